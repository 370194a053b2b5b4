import DiceHost
import Lua
import Testing

@Suite struct GameEventTests {
    @Test func eventsHaveAStableTextAndJSONForm() throws {
        let game = try makeGame("""
            local r = rules { name = "Ev", players = 1, dice = "2d6" }
            function r.roll(g, p, roll) g:emit("scored", roll.total) g:say('he said "%s"', "hi") g:win(p) end
            return r
            """, players: ["Ann"], seed: 3)
        try game.roll(values: [2, 3])
        #expect(game.events.map(\.description) == ["start Ann seed=3", "turn Ann", "roll Ann ⚁ ⚂ = 5", "emit scored 5", "say he said \"hi\"", "win Ann"])
        #expect(game.events.map(\.json) == [
            #"{"t":0,"type":"start","players":["Ann"],"seed":3}"#,
            #"{"t":0,"type":"turn","player":"Ann"}"#,
            #"{"t":0,"type":"roll","player":"Ann","values":[2,3],"total":5,"flag":"ok"}"#,
            #"{"t":0,"type":"emit","name":"scored","data":"5"}"#,
            #"{"t":0,"type":"say","text":"he said \"hi\""}"#,
            #"{"t":0,"type":"win","player":"Ann"}"#,
        ])
    }

    @Test func simulationModeKeepsNoTextButStillDecides() throws {
        let game = try makeGame(minimalRules, players: ["Ann"], params: [("target", "5")])
        game.recordsEvents = false
        game.transactional = false
        try game.roll(values: [6])
        #expect(game.outcome == .win("Ann"))
        #expect(game.events.count == 2) // start and the first turn, logged before recording stopped
        #expect(game.rollCount == 1)
    }

    @Test func ledSetFadeAndOffTrackTheClock() throws {
        let game = try makeGame("""
            local r = rules { name = "L", players = 1 }
            function r.roll() end
            r.actions = {
              set = function() led.set(led.faces(1, 2), {255, 0, 0}) end,
              fade = function() led.fade(led.face(1), "blue", 100) end,
              off = function() led.off() end,
            }
            return r
            """, players: ["Ann"])
        try game.act("set")
        #expect(game.led.colors(at: 0).prefix(3) == [LEDColor(red: 255, green: 0, blue: 0), LEDColor(red: 255, green: 0, blue: 0), .off])
        try game.advance(by: 100)
        try game.act("fade")
        #expect(game.led.color(face: 1, at: 150) == LEDColor(red: 128, green: 0, blue: 127)) // halfway from red to blue
        #expect(game.led.color(face: 1, at: 300) == LEDColor(red: 0, green: 0, blue: 255))
        try game.advance(by: 500)
        try game.act("off")
        #expect(game.led.colors(at: game.now) == Array(repeating: .off, count: 6))
        #expect(game.events.last?.description == "led off all")
    }
}
