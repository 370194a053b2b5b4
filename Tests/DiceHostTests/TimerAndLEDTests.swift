import DiceHost
import Lua
import Testing

@Suite struct TimerAndLEDTests {
    let timerRules = """
        local r = rules { name = "Timers", players = 1 }
        function r.setup(g)
          g.state.ticks = 0
          timer.after(300, function(g) g:say("after 300") end)
          timer.after(100, function(g) g:say("first 100") end)
          timer.after(100, function(g) g:say("second 100") end)
          g.state.pulse = timer.every(250, function(g) g.state.ticks = g.state.ticks + 1 g:say("tick") end)
        end
        function r.roll(g, p, roll) g.state.pulse:cancel() g:say("cancelled") end
        r.actions = { bad = function(g) timer.after(10, function() error("timer broke") end) end }
        return r
        """

    @Test func timersFireInOrderOnTheGameClock() throws {
        let game = try makeGame(timerRules, players: ["Ann"])
        try game.advance(by: 99)
        #expect(!log(game).contains("say first 100"))
        try game.advance(by: 500)
        #expect(log(game).filter { $0.hasPrefix("say") } == ["say first 100", "say second 100", "say tick", "say after 300", "say tick"])
        #expect(game.events.last?.time == 500)
        #expect(game.now == 599)
    }

    @Test func cancelledTimersStop() throws {
        let game = try makeGame(timerRules, players: ["Ann"])
        try game.roll(values: [1])
        try game.advance(by: 1000)
        #expect(!log(game).contains("say tick"))
    }

    @Test func failingTimerCallbackRollsBackTheAdvance() throws {
        let game = try makeGame(timerRules, players: ["Ann"])
        try game.act("bad")
        let before = game.events
        expectGameError("test.lua:10: timer broke") { try game.advance(by: 50) }
        #expect(game.now == 0)
        #expect(game.events == before)
    }

    @Test func negativeDelaysAreArgumentErrors() {
        expectGameError("test.lua:2: bad argument #1 to 'after' (delay must be >= 0 ms, got -5)") {
            _ = try makeGame("local r = rules { name = 'T', players = 1 }\nfunction r.setup() timer.after(-5, function() end) end\nfunction r.roll() end\nreturn r", players: ["A"])
        }
    }

    let ledRules = """
        local r = rules { name = "Lights", players = 1 }
        function r.roll(g, p, roll)
          if roll.ok then
            led.blink(led.face(roll.value), "green", {on = 100, cycle = 50, count = 5})
          else
            led.blink(led.ALL, "red", {priority = 1, on = 100, cycle = 200, count = 4})
          end
        end
        r.actions = {
          mask = function(g, p, m) led.set(m, "blue") end,
          colour = function(g, p, c) led.set(1, c) end,
          period = function(g) led.blink(1, "red", {on = -1}) end,
        }
        return r
        """

    @Test func ledFacesAnswerWhatTheyShowOverTime() throws {
        let game = try makeGame(ledRules, players: ["Ann"])
        try game.roll(values: [3])
        let green = LEDColor(red: 0, green: 255, blue: 0)
        #expect(game.led.color(face: 3, at: 0) == green)
        #expect(game.led.color(face: 3, at: 120) == .off)      // dark gap of 50 ms
        #expect(game.led.color(face: 3, at: 150) == green)     // second blink
        #expect(game.led.color(face: 3, at: 750) == .off)      // 5 blinks of 150 ms are over
        #expect(game.led.color(face: 2, at: 0) == .off)
        #expect(log(game).contains("led blink 3 green on=100ms cycle=50ms count=5 priority=0"))
    }

    @Test func lowerPriorityDoesNotInterruptARunningHigherOne() throws {
        let game = try makeGame(ledRules, players: ["Ann"])
        try game.roll(flag: .tilt)                     // all red, priority 1, 800 ms
        try game.advance(by: 250)
        try game.roll(values: [3])                     // green on face 3, priority 0: refused while red runs
        let red = LEDColor(red: 255, green: 0, blue: 0)
        #expect(game.led.color(face: 3, at: 400) == red)
        try game.advance(by: 600)
        try game.roll(values: [3])                     // red finished at 800: green takes it
        #expect(game.led.color(face: 3, at: 850) == LEDColor(red: 0, green: 255, blue: 0))
    }

    @Test func badMasksColoursAndPeriodsAreClearErrors() throws {
        let game = try makeGame(ledRules, players: ["Ann"])
        expectGameError("test.lua:10: bad argument #1 to 'set' (mask must be 0..63, got 64)") { try game.act("mask", arguments: [64]) }
        expectGameError("test.lua:11: bad argument #2 to 'set' (unknown colour 'mauve' (use a name like red, \"#rrggbb\" or {r, g, b}))") {
            try game.act("colour", arguments: ["mauve"])
        }
        expectGameError("test.lua:12: bad argument #3 to 'blink' (on must be 0..60000 ms, got -1)") { try game.act("period") }
        try game.act("colour", arguments: ["#ff8000"])
        #expect(game.led.color(face: 1, at: game.now) == LEDColor(red: 255, green: 128, blue: 0))
    }
}
