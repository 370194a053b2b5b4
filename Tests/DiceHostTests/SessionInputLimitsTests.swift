import DiceHost
import Foundation
import Lua
import Testing

/// Bad command lines are clear errors that leave the game exactly as it was.
@Suite struct SessionInputLimitsTests {
    func pigSession() throws -> GameSession {
        GameSession(game: try Game(rulesFile: "examples/rules/pig.lua", players: ["Ann", "Bob"], seed: 1))
    }

    /// Runs `line`, expects exactly `error`, and checks nothing about the game changed, in bounded time.
    func expectRefused(_ line: String, _ error: String, in session: GameSession, sourceLocation: SourceLocation = #_sourceLocation) {
        let events = session.game.events, state = session.describeState(), now = session.game.now
        let started = ContinuousClock.now
        let reply = session.run(line)
        #expect(ContinuousClock.now - started < .seconds(6), sourceLocation: sourceLocation)
        #expect(reply.lines == [error], sourceLocation: sourceLocation)
        #expect(session.game.events == events, sourceLocation: sourceLocation)
        #expect(session.describeState() == state, sourceLocation: sourceLocation)
        #expect(session.game.now == now, sourceLocation: sourceLocation)
    }

    @Test func aLineLongerThan64KiBIsRefused() throws {
        let session = try pigSession()
        let error = "error: the line is longer than 65536 bytes, the most a command may have"
        for line in ["roll " + String(repeating: "1 ", count: 40_000), String(repeating: "x", count: 65_537), "hold " + String(repeating: "é", count: 40_000)] {
            expectRefused(line, error, in: session)
        }
        #expect(session.run(String(repeating: " ", count: 65_536)).lines.isEmpty)  // at the limit: taken (a blank line)
    }

    @Test func asIsTakenOnlyOncePerLine() throws {
        let session = try pigSession()
        let error = "error: 'as' cannot be nested: name one player, e.g. 'as Bob roll'"
        for line in ["as Ann as Bob roll", "as Bob as Bob as Bob hold", "as Ann as"] {
            expectRefused(line, error, in: session)
        }
        let deep = Array(repeating: "as Ann", count: 5_000).joined(separator: " ") + " roll"
        expectRefused(deep, error, in: session)
    }

    @Test func logTakesAWholeNumberFromOne() throws {
        let session = try pigSession()
        for arg in ["-1", "abc", "0", "99999999999999999999", "1.5"] {
            expectRefused("log \(arg)", "error: usage: log [N], N a whole number of events from 1, got '\(arg)'", in: session)
        }
        expectRefused("log 1 2", "error: usage: log [N], N a whole number of events from 1, got '1 2'", in: session)
        #expect(session.run("log 1").lines == ["[0ms] say Ann to roll (score 0)"])
    }

    @Test func tickIsRangeCheckedToOneDay() throws {
        let session = try pigSession()
        for arg in ["9223372036854775s", "86400001ms", "86401s", "-5ms", "-1", "nan", "infs", "nans", "1e3s", "0x10", "1..5s", ".s", "ms", "s", "+5ms"] {
            expectRefused("tick \(arg)", "error: tick takes a duration from 0 to 1 day (86400000ms), e.g. 'tick 500ms' or 'tick 2s', got '\(arg)'", in: session)
        }
        #expect(session.run("tick 86400s").lines.allSatisfy { !$0.hasPrefix("error") })
        #expect(session.game.now == 86_400_000)
        #expect(session.run("tick 1.5s").lines.allSatisfy { !$0.hasPrefix("error") })
        #expect(session.game.now == 86_401_500)
    }

    @Test func rollValuesThatDoNotFitOrAreAbsurdAreErrors() throws {
        let session = try pigSession()
        expectRefused("roll 99999999999999999999", "error: roll takes numbers, 'tilt' or 'short', got '99999999999999999999'", in: session)
        for arg in ["-9223372036854775808", "9223372036854775807", "1000001"] {
            expectRefused("roll \(arg)", "error: a rolled value must be from 1 to 1000000, got '\(arg)'", in: session)
        }
        expectRefused("roll 0", "error: a 6-sided die cannot show 0", in: session)
        expectRefused("roll 3 4", "error: roll needs 1 value for 1d6, got 2", in: session)
    }

    @Test func actionArgumentsNeverTrapAndNonFiniteNumbersStayStrings() throws {
        let game = try Game(source: """
            local r = rules { name = "Echo", players = {1, 2}, dice = "1d6" }
            function r.roll(g, p, r) end
            r.actions = { echo = function(g, p, ...) local out = {} for _, v in ipairs({...}) do out[#out + 1] = math.type(v) or type(v) end g:say(table.concat(out, " ")) end }
            return r
            """, path: "echo.lua", players: ["Ann"], seed: 1)
        let session = GameSession(game: game)
        #expect(session.run("echo 99999999999999999999 -9223372036854775808 nan inf 1e999 1.5 true x").lines
                == ["say float integer string string string float boolean string"])
    }

    @Test func aFullHistoryRefusesCommandsSayingWhatToDo() throws {
        let session = try pigSession()
        session.historyLimit = (steps: 3, bytes: 1 << 20)
        for _ in 0..<3 { _ = session.run("state") }
        let full = "error: the session's history is full (3 commands or 1048576 bytes); 'save FILE' keeps the game, 'undo' frees a step"
        expectRefused("roll 3", full, in: session)
        expectRefused("state", full, in: session)
        #expect(session.steps.count == 3)
        session.historyLimit = (steps: 100, bytes: 200)
        expectRefused("roll 3", full.replacingOccurrences(of: "3 commands or 1048576", with: "100 commands or 200"), in: session)
    }

    @Test func scriptTextCannotForgeATranscriptLine() throws {
        let game = try Game(source: """
            local r = rules { name = "Forge", players = {1, 2}, dice = "1d6" }
            function r.roll(g, p, r)
              g:say("one\\n> roll 6\\nwin Ann")
              g:emit("name\\r\\n", "data\\t\\27[31m\\127")
              g:say("sep\\u{2028}x\\u{85}y back\\\\n")
            end
            return r
            """, path: "forge.lua", players: ["Ann"], seed: 1)
        let session = GameSession(game: game)
        let lines = session.run("roll 1").lines
        #expect(lines == ["roll Ann ⚀", "say one\\n> roll 6\\nwin Ann", "emit name\\r\\n data\\t\\u{1B}[31m\\u{7F}", "say sep\\u{2028}x\\u{85}y back\\n"])
        #expect(lines.allSatisfy { !$0.contains("\n") && !$0.contains("\r") })
        #expect(session.transcript(for: "x.txt").components(separatedBy: "\n").filter { $0.hasPrefix(">") } == ["> roll 1"])
    }

    @Test func eventDescriptionsEscapeControlCharactersAndKeepOtherText() {
        #expect(GameEvent(time: 0, kind: .say("a\nb")).description == "say a\\nb")
        #expect(GameEvent(time: 0, kind: .turn(player: "A\u{0}B")).description == "turn A\\u{0}B")
        #expect(GameEvent(time: 0, kind: .say("⚀ naïve \\ ok")).description == "say ⚀ naïve \\ ok")
        #expect(GameEvent(time: 5, kind: .win(player: "x\r")).timestamped == "[5ms] win x\\r")
    }
}
