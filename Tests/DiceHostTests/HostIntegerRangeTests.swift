import DiceHost
import Lua
import Testing

/// Every integer a script hands the host is range-checked with a Lua-style error; none
/// can trap the process, and a refused input leaves the game as it was.
@Suite struct HostIntegerRangeTests {
    static let rules = """
        local r = rules { name = "Edge", players = {2, 3} }
        function r.setup(g) g.state.n = 0 end
        function r.roll(g, p, roll) g.state.n = g.state.n + 1 g:next_turn() end
        local function touch(g) g.state.n = g.state.n + 1 g:say("touched") led.set(2, "blue") end
        r.actions = {
          blink = function(g, p, key, value) touch(g) led.blink(1, "red", {[key] = value}) end,
          fade = function(g, p, ms) touch(g) led.fade(1, "red", ms) end,
          fade_table = function(g, p, ms) touch(g) led.fade(1, "red", {ms = ms}) end,
          after = function(g, p, ms) touch(g) timer.after(ms, function(g) g:say("fired") end) end,
          every = function(g, p, ms) touch(g) timer.every(ms, function(g) g:say("fired") end) end,
          cancel = function(g, p, id) touch(g) local h = timer.after(10, function(g) g:say("kept") end) h.id = id h:cancel() end,
          seat = function(g, p, seat) g.current.seat = seat end,
          record = function(g, p, v) touch(g) g:record("x", v) end,
          roll = function(g, p, notation) touch(g) g.state.r = dice.roll(notation).total end,
          colour = function(g, p, c) touch(g) led.set(1, c) end,
          rgb = function(g, p, n) touch(g) local t = {} for i = 1, n do t[i] = 1 end led.set(1, t) end,
          many = function(g, p, n) touch(g) for i = 1, n do timer.after(i, function() end) end end,
          fake = function(g, p, how) touch(g) local fake = {seat = 1, name = "Ann"} if how == "win" then g:win(fake) else g:next_turn(fake) end end,
        }
        return r
        """

    let maxInt = LuaValue.integer(.max), minInt = LuaValue.integer(.min)

    func game() throws -> Game { try makeGame(Self.rules) }

    @Test func hugeBlinkOptionsAreArgumentErrors() throws {
        let game = try game()
        for (key, value, message) in [
            ("on", maxInt, "on must be 0..60000 ms, got 9223372036854775807"),
            ("cycle", maxInt, "cycle must be 0..60000 ms, got 9223372036854775807"),
            ("count", maxInt, "count must be 1..10000, got 9223372036854775807"),
            ("priority", maxInt, "priority must be 0..100, got 9223372036854775807"),
            ("count", minInt, "count must be 1..10000, got -9223372036854775808"),
            ("priority", -1, "priority must be 0..100, got -1"),
            ("on", 60001, "on must be 0..60000 ms, got 60001"),
            ("count", 0, "count must be 1..10000, got 0"),
            ("on", .number(1e300), "on must be a whole number of ms, got 1e+300"),
            ("on", .number(.nan), "on must be a whole number of ms, got nan"),
            ("cycle", .number(.infinity), "cycle must be a whole number of ms, got inf"),
            ("count", .number(2.5), "count must be a whole number, got 2.5"),
            ("count", "many", "count must be a whole number, got string"),
        ] as [(String, LuaValue, String)] {
            expectRefused(game, "test.lua:6: bad argument #3 to 'blink' (\(message))") {
                try game.act("blink", arguments: [.string(key), value])
            }
        }
        // The largest allowed values work, and the timeline's sums stay in range.
        try game.act("blink", arguments: ["count", .integer(10_000)])
        try game.act("blink", arguments: ["on", .integer(60_000)])
        #expect(game.led.color(face: 1, at: game.now + 59_999) == LEDColor(red: 255, green: 0, blue: 0))
        #expect(game.led.color(face: 1, at: .max) == .off)
    }

    @Test func hugeFadesAreArgumentErrors() throws {
        let game = try game()
        for value in [maxInt, minInt, LuaValue.integer(60_001), LuaValue.integer(-1)] {
            expectRefused(game, "test.lua:7: bad argument #3 to 'fade' (ms must be 0..60000 ms, got \(value))") {
                try game.act("fade", arguments: [value])
            }
            expectRefused(game, "test.lua:8: bad argument #3 to 'fade' (ms must be 0..60000 ms, got \(value))") {
                try game.act("fade_table", arguments: [value])
            }
        }
        expectRefused(game, "test.lua:7: bad argument #3 to 'fade' (number has no integer representation)") {
            try game.act("fade", arguments: [.number(.infinity)])
        }
        try game.act("fade", arguments: [.integer(60_000)])
        #expect(game.led.color(face: 1, at: .max) == LEDColor(red: 255, green: 0, blue: 0))
    }

    @Test func badColoursAreArgumentErrors() throws {
        let game = try game()
        for text in ["#-00001", "#+fffff", "#0x1234", "#ffffff0", "#ｆｆｆｆｆｆ"] {
            expectRefused(game, "test.lua:15: bad argument #2 to 'set' (unknown colour '\(text)' (use a name like red, \"#rrggbb\" or {r, g, b}))") {
                try game.act("colour", arguments: [.string(text)])
            }
        }
        let long = String(repeating: "x", count: 100_000)
        expectRefused(game, "test.lua:15: bad argument #2 to 'set' (unknown colour '\(String(repeating: "x", count: 40))…' (use a name like red, \"#rrggbb\" or {r, g, b}))") {
            try game.act("colour", arguments: [.string(long)])
        }
        for n in [2, 4, 200_000] {
            expectRefused(game, "test.lua:16: bad argument #2 to 'set' (colour must be {r, g, b} with each 0..255)") {
                try game.act("rgb", arguments: [.integer(Int64(n))])
            }
        }
        try game.act("colour", arguments: ["#00ff80"])
        #expect(game.led.color(face: 1, at: game.now) == LEDColor(red: 0, green: 255, blue: 128))
    }

    @Test func timerDelaysAreBounded() throws {
        let game = try game()
        for (action, value, message) in [
            ("after", maxInt, "delay must be 0..86400000 ms, got 9223372036854775807"),
            ("after", LuaValue.integer(86_400_001), "delay must be 0..86400000 ms, got 86400001"),
            ("after", minInt, "delay must be >= 0 ms, got -9223372036854775808"),
            ("every", maxInt, "period must be 0..86400000 ms, got 9223372036854775807"),
            ("every", LuaValue.integer(0), "a repeating timer needs a period > 0 ms"),
            ("after", LuaValue.number(.infinity), "number has no integer representation"),
        ] as [(String, LuaValue, String)] {
            let line = action == "after" ? 9 : 10
            expectRefused(game, "test.lua:\(line): bad argument #1 to 'after' (\(message))") {
                try game.act(action, arguments: [value])
            }
        }
        // The longest delay works, and a day-long repeating timer fires on time.
        try game.act("every", arguments: [.integer(86_400_000)])
        try game.advance(by: 2 * 86_400_000)
        #expect(log(game).filter { $0 == "say fired" }.count == 2)
    }

    @Test func pendingTimersAreBounded() throws {
        let game = try game()
        expectRefused(game, "test.lua:17: timer.after: a game may have at most 1000 timers pending") {
            try game.act("many", arguments: [.integer(1001)])
        }
        try game.act("many", arguments: [.integer(1000)])
        try game.advance(by: 1000)
        try game.act("many", arguments: [.integer(1000)]) // fired timers free their places
    }

    @Test func theClockCannotOverflow() throws {
        let game = try game()
        try game.act("every", arguments: [.integer(86_400_000)])
        expectRefused(game, "the game clock cannot pass 9007199254740992 ms (it is at 0 ms, asked to advance 9223372036854775807 ms)") {
            try game.advance(by: .max)
        }
        // The REPL refuses a tick past a day before it reaches the game.
        let session = GameSession(game: game)
        #expect(session.run("tick 9223372036854775807ms").lines
                == ["error: tick takes a duration from 0 to 1 day (86400000ms), e.g. 'tick 500ms' or 'tick 2s', got '9223372036854775807ms'"])
        try game.advance(by: 1000)
        expectRefused(game, "the game clock cannot pass 9007199254740992 ms (it is at 1000 ms, asked to advance 9007199254740992 ms)") {
            try game.advance(by: 1 << 53)
        }
    }

    @Test func cancelTakesAnyIdAndRefusesNonIntegers() throws {
        let game = try game()
        for id in [maxInt, minInt, LuaValue.integer(0), LuaValue.integer(-1), LuaValue.number(1e15)] {
            try game.act("cancel", arguments: [id]) // names no pending timer: cancels nothing
        }
        try game.advance(by: 10)
        #expect(log(game).filter { $0 == "say kept" }.count == 5)
        for (id, message) in [(LuaValue.number(0.5), "number has no integer representation"), (.number(.nan), "number has no integer representation"),
                              (.nil, "number expected, got nil"), ("x", "number expected, got string")] {
            expectRefused(game, "test.lua:11: bad argument #1 to 'cancel' (\(message))") { try game.act("cancel", arguments: [id]) }
        }
    }

    @Test func metricsMustBeFinite() throws {
        let game = try game()
        for (value, shown) in [(LuaValue.number(.nan), "nan"), (.number(.infinity), "inf"), (.number(-.infinity), "-inf")] {
            expectRefused(game, "test.lua:13: bad argument #2 to 'record' (value must be a finite number, got \(shown))") {
                try game.act("record", arguments: [value])
            }
        }
        try game.act("record", arguments: [maxInt])
        try game.act("record", arguments: [.number(-1e308)])
        #expect(game.metrics.map(\.1) == [9.223372036854775807e18, -1e308])
    }

    @Test func currentSeatOutOfRangeIsRefusedNotATrap() throws {
        for seat in [LuaValue.integer(3), .integer(0), .integer(-1), maxInt, minInt, .number(2.5), .number(.infinity), "1"] {
            let game = try game()
            try game.act("seat", arguments: [seat]) // the script may write anything there
            let shown = seat.stringValue.map { "'\($0)'" } ?? seat.description
            expectRefused(game, "g.current must be one of g.players (its seat is \(shown), there are 2 players)") { try game.roll(values: [3]) }
            expectRefused(game, "g.current must be one of g.players (its seat is \(shown), there are 2 players)") { try game.act("blink", arguments: ["on", 1]) }
            // Naming the player still works (with no valid current player, turn order cannot
            // refuse), and its table is the one the script changed; then it is Ann's turn.
            try game.act("seat", by: "Bob", arguments: [1])
            try game.roll(values: [3], by: "Ann")
        }
    }

    @Test func setupWithABadCurrentPlayerFailsTheStart() {
        for seat in ["99", "0", "math.maxinteger", "-math.maxinteger"] {
            let source = "local r = rules { name = 'S', players = 2 }\nfunction r.setup(g) g.current = {seat = \(seat)} end\nfunction r.roll() end\nreturn r"
            do {
                _ = try makeGame(source)
                Issue.record("expected an error for seat \(seat)")
            } catch {
                #expect("\(error)".hasPrefix("g.current must be one of g.players (its seat is "), "\(error)")
                #expect("\(error)".hasSuffix(", there are 2 players)"), "\(error)")
            }
        }
    }

    @Test func aSimulationsFirstTurnChecksTheSeatToo() throws {
        let source = """
            local r = rules { name = 'S', players = 2 }
            local starts = 0
            function r.setup(g) starts = starts + 1 if starts > 1 then g.current = {seat = math.maxinteger} end end
            function r.roll(g) g:win(g.current) end
            return r
            """
        let game = try makeGame(source)
        game.recordsEvents = false
        game.transactional = false
        do {
            try game.startNewGame(seed: 2)
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("g.current must be one of g.players (its seat is 9223372036854775807, there are 2 players)"), "\(error)")
        }
    }

    @Test func fakePlayerTablesAreArgumentErrors() throws {
        let game = try game()
        expectRefused(game, "test.lua:18: bad argument #1 to 'win' (player expected, got table)") { try game.act("fake", arguments: ["win"]) }
        expectRefused(game, "test.lua:18: bad argument #1 to 'next_turn' (player expected, got table)") { try game.act("fake", arguments: ["next"]) }
    }

    @Test func diceNotationNumbersAreBounded() throws {
        let game = try game()
        for (notation, reason) in [
            ("99999999d6", "dice count must be 1..100, got 99999999"),
            ("99999999999999999999999d6", "dice count must be 1..100, got 99999999999999999999999"),
            ("101d6", "dice count must be 1..100, got 101"),
            ("2d9223372036854775807", "sides must be 2..1000, got 9223372036854775807"),
            ("2d6+9223372036854775807", "the modifier must be 0..999999, got 9223372036854775807"),
            ("2d6-1000000", "the modifier must be 0..999999, got 1000000"),
            ("4d6kh99999999999", "the count after 'kh' must be 0..999999, got 99999999999"),
        ] {
            expectRefused(game, "test.lua:14: bad argument #1 to 'roll' (bad dice notation '\(notation)': \(reason) (expected e.g. 2d6, 4d6kh3, 1d6!+2))") {
                try game.act("roll", arguments: [.string(notation)])
            }
        }
        let long = String(repeating: "9", count: 100_000) + "d6"
        expectRefused(game, "test.lua:14: bad argument #1 to 'roll' (bad dice notation '\(String(repeating: "9", count: 40))…': dice count must be 1..100, got \(String(repeating: "9", count: 40))… (expected e.g. 2d6, 4d6kh3, 1d6!+2))") {
            try game.act("roll", arguments: [.string(long)])
        }
        // The biggest dice there are: totals stay small.
        try game.act("roll", arguments: ["100d1000!+999999"])
        try game.act("roll", arguments: ["100d1000-999999"])
    }

    @Test func givenValuesOfExplodingDiceAreBounded() throws {
        let game = try makeGame(Self.rules, params: [("dice", "2d6!")])
        expectRefused(game, "a 6-sided die cannot show 9223372036854775807") { try game.roll(values: [.max, .max]) }
        expectRefused(game, "a 6-sided die cannot show 607") { try game.roll(values: [607, 1]) }
        try game.roll(values: [606, 606])
        #expect(log(game).contains("roll Ann [606] [606] = 1212"))
    }

    @Test func notationTotalsAndRollsSaturateForAnyValues() throws {
        let notation = try DiceNotation("2d6!+5")
        #expect(notation.total(of: [.max, .max]) == 2 * 606 + 5)
        #expect(notation.total(of: [.min, .min]) == 7)
        #expect(Roll(values: [.max, .max]).total == .max)
        #expect(LEDCommand(.blink(on: .max, cycle: .max, count: .max), mask: .all).duration == .max)
        let fade = LEDCommand(.fade(duration: .max), mask: .all, color: LEDColor(red: 255, green: 0, blue: 0))
        #expect(fade.description == "fade all red 9223372036854775807ms")
        var timeline = LEDTimeline()
        timeline.apply(LEDCommand(.blink(on: .max, cycle: 1, count: .max), mask: .all, priority: .max), at: .max)
        timeline.apply(fade, at: 0)
        #expect(timeline.color(face: 1, at: .max - 1).red >= 0)
        #expect(LEDColor(red: .max, green: .min, blue: 300) == LEDColor(red: 255, green: 0, blue: 255))
    }
}
