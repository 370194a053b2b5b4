import DiceHost
import Foundation
import Lua
import Testing

/// What a designer writing new games runs into (issue 13): reload, errors, emit, turn
/// order, solo games, variants, misspelled hooks, LED blinks, saved sessions.
@Suite struct DesignerLoopTests {
    func temporaryFolder() throws -> String {
        let dir = NSTemporaryDirectory() + "dicehost-designer-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    func race(target: Int, name: String = "Race") -> String {
        """
        local r = rules { name = "\(name)", players = {1, 2}, params = { target = \(target), bonus = 1 } }
        function r.roll(g, p, roll) g:say("target %d", g.params.target) end
        return r
        """
    }

    // MARK: Reload

    @Test func aReloadAppliesNewParamDefaultsAndSaysWhatChanged() throws {
        let path = try temporaryFolder() + "/race.lua"
        try race(target: 25).write(toFile: path, atomically: true, encoding: .utf8)
        let game = try Game(rulesFile: path, players: ["Ann"])
        try race(target: 30).write(toFile: path, atomically: true, encoding: .utf8)
        try game.reload()
        #expect(game.events.last?.description == "reload Race; params: target 25 → 30")
        try game.roll(values: [1])
        #expect(game.events.last?.description == "say target 30")
    }

    @Test func aParamSetOnTheCommandLineKeepsItsValueOverAReload() throws {
        let path = try temporaryFolder() + "/race.lua"
        try race(target: 25).write(toFile: path, atomically: true, encoding: .utf8)
        let game = try Game(rulesFile: path, players: ["Ann"], params: [("target", "40")])
        try race(target: 30).write(toFile: path, atomically: true, encoding: .utf8)
        try game.reload()
        #expect(game.events.last?.description == "reload Race")
        try game.roll(values: [1])
        #expect(game.events.last?.description == "say target 40")
    }

    @Test func aVariantFollowsItsBaseOnReload() throws {
        let dir = try temporaryFolder()
        func base(_ word: String, target: Int) -> String {
            """
            local base = rules { name = "Base", players = 1, params = { target = \(target) } }
            function base.roll(g, p, r) g:say("\(word) %d", g.params.target) end
            return base
            """
        }
        try base("old", target: 10).write(toFile: dir + "/base.lua", atomically: true, encoding: .utf8)
        try """
            local base = require "base"
            local variant = rules.extend(base, { name = "Variant", params = { extra = 1 } })
            return variant
            """.write(toFile: dir + "/variant.lua", atomically: true, encoding: .utf8)
        let game = try Game(rulesFile: dir + "/variant.lua", players: ["Ann"])
        try game.roll(values: [1])
        #expect(game.events.last?.description == "say old 10")
        try base("new", target: 20).write(toFile: dir + "/base.lua", atomically: true, encoding: .utf8)
        try game.reload()
        #expect(game.events.last?.description == "reload Variant; params: target 10 → 20")
        try game.roll(values: [1])
        #expect(game.events.last?.description == "say new 20")
    }

    // MARK: Errors and events

    @Test func errorAtLevelZeroHasNoPositionAndIsARefusal() throws {
        let game = try makeGame("""
            local r = rules { name = "E", players = {1, 2} }
            function r.roll(g, p, roll) end
            r.actions = { refuse = function(g, p) error("not now", 0) end, fail = function(g, p) error("broken") end }
            return r
            """)
        expectGameError("not now") { try game.act("refuse") }
        expectGameError("test.lua:3: broken") { try game.act("fail") }
        let session = GameSession(game: game)
        _ = session.run("refuse")
        #expect(!session.sawRuleError)
        _ = session.run("fail")
        #expect(session.sawRuleError)
    }

    @Test func emittingATableShowsItsContentsInKeyOrder() throws {
        let game = try makeGame("""
            local r = rules { name = "E", players = {1, 2} }
            function r.roll(g, p, roll) g:emit("board", {b = 2, a = {1, 2, 3}, [5] = "x", roll = roll}) end
            return r
            """)
        try game.roll(values: [4])
        #expect(game.events.last?.description == "emit board {[5]=\"x\", a={1, 2, 3}, b=2, roll=⚃}")
    }

    // MARK: Turn order

    let turnRules = """
        local r = rules { name = "Turns", players = {2, 3} }
        function r.roll(g, p, roll) g:say("%s rolled", p.name); g:next_turn() end
        r.actions = { bid = function(g, p) g:say("%s bids", p.name) end, snap = function(g, p) g:say("%s snaps", p.name) end }
        r.anytime = {"snap"}
        return r
        """

    @Test func aRollOrActionOutOfTurnIsRefusedBeforeAnyHook() throws {
        let game = try makeGame(turnRules)
        let before = game.events.count
        expectGameError("it is Ann's turn, not Bob's") { try game.roll(values: [3], by: "Bob") }
        expectGameError("it is Ann's turn, not Bob's") { try game.act("bid", by: "Bob") }
        #expect(game.events.count == before)
        try game.roll(values: [3], by: "Ann")
        #expect(game.currentPlayer == "Bob")
    }

    @Test func anActionListedInAnytimeMayComeFromAnyone() throws {
        let game = try makeGame(turnRules)
        try game.act("snap", by: "Bob")
        #expect(game.events.last?.description == "say Bob snaps")
        #expect(game.rules.anytime == ["snap"])
    }

    @Test func anytimeMustNameInputsTheRulesHave() throws {
        #expect(throws: GameError.self) {
            _ = try makeGame(turnRules.replacingOccurrences(of: "r.anytime = {\"snap\"}", with: "r.anytime = {\"snpa\"}"))
        }
    }

    // MARK: Solo games

    @Test func aLonePlayerCanLose() throws {
        let game = try makeGame("""
            local r = rules { name = "Solo", players = 1 }
            function r.roll(g, p, roll) if roll.value == 1 then g:lose(p) else g:win(p) end end
            return r
            """, players: ["Ann"])
        try game.roll(values: [1])
        #expect(game.outcome == .loss("Ann"))
        #expect(log(game).suffix(1) == ["lose Ann"])
        expectGameError("the game is over (Ann lost); use restart to play again") { try game.roll(values: [2]) }
    }

    // MARK: check

    @Test func aMisspelledHookIsAWarningNamingTheNearestHook() throws {
        let game = try makeGame("""
            local r = rules { name = "Typos", players = 1 }
            function r.roll(g, p, roll) end
            function r.on_rol(g, p, roll) end
            function r.turn_start(g, p) end
            function r.move(g, p) end -- a helper: far from every hook
            return r
            """, players: ["Ann"])
        #expect(game.rules.warnings.count == 2)
        #expect(game.rules.warnings.contains { $0.hasPrefix("unknown rule field 'on_rol'") && $0.hasSuffix("did you mean 'roll'?") })
        #expect(game.rules.warnings.contains { $0.hasPrefix("unknown rule field 'turn_start'") && $0.hasSuffix("did you mean 'turn'?") })
    }

    // MARK: LEDs

    @Test func aBlinkReturnsToTheSteadyColourItInterrupted() {
        var timeline = LEDTimeline()
        timeline.apply(LEDCommand(.set, mask: .face(1), color: LEDColor.named["green"]!), at: 0)
        timeline.apply(LEDCommand(.blink(on: 100, cycle: 200, count: 2), mask: .face(1), color: LEDColor.named["red"]!), at: 1000)
        #expect(timeline.color(face: 1, at: 500) == LEDColor.named["green"])
        #expect(timeline.color(face: 1, at: 1050) == LEDColor.named["red"])
        #expect(timeline.color(face: 1, at: 1150) == .off)  // dark between flashes
        #expect(timeline.color(face: 1, at: 1250) == LEDColor.named["red"])
        #expect(timeline.color(face: 1, at: 1400) == LEDColor.named["green"])  // over: back to green
    }

    @Test func aLowerPriorityCommandDuringABlinkIsDroppedNotQueued() {
        var timeline = LEDTimeline()
        timeline.apply(LEDCommand(.blink(on: 100, cycle: 200, count: 4), mask: .face(2), color: LEDColor.named["red"]!, priority: 1), at: 0)
        let taken = timeline.apply(LEDCommand(.set, mask: .face(2), color: LEDColor.named["blue"]!), at: 100)
        #expect(taken.rawValue == 0)
        #expect(timeline.color(face: 2, at: 900) == .off)  // the blue set was dropped, not applied afterwards
    }

    // MARK: Saved sessions

    @Test func saveKeepsOnlyTheInputsThatChangedTheGame() throws {
        let game = try makeGame(minimalRules)
        let session = GameSession(game: game)
        for line in ["help", "state", "fly", "roll 3", "log", "as Ann roll 2", "players", "add 2"] { _ = session.run(line) }
        let text = session.transcript(for: "saved.txt")
        #expect(text.contains("> roll 3\n"))
        #expect(text.contains("> add 2\n"))
        for left in ["> help", "> state", "> fly", "> log", "> as Ann roll 2", "> players"] { #expect(!text.contains(left), "\(left)") }
    }
}
