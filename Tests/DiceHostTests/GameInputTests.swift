import DiceHost
import Foundation
import Lua
import Testing

@Suite struct GameInputTests {
    static let typedRules = "examples/rules/typed-arguments.lua"

    func typedGame(players: [String] = ["Ann"]) throws -> Game {
        try Game(rulesFile: Self.typedRules, players: players, seed: 1)
    }

    /// What the rules said the last `call` received.
    func said(_ outcome: GameOutcome) -> String? {
        outcome.events.last?.description
    }

    @Test func quotedAndBareArgumentsReachTheRulesWithTheirTypes() throws {
        let session = GameSession(game: try typedGame())
        let cases: [(String, String)] = [
            ("call \"07\"", "string \"07\""), ("call \"true\"", "string \"true\""), ("call 2.0", "float 2.0"),
            ("call 2", "integer 2"), ("call \"1e3\"", "string \"1e3\""), ("call \"Ann Lee\"", "string \"Ann Lee\""),
            ("call \"é\"", "string \"é\""), ("call 07", "integer 7"), ("call true", "boolean true"), ("call 1e3", "float 1000.0"),
            ("call \"a \\\"q\\\" \\\\ b\"", "string \"a \\\"q\\\" \\\\ b\""), ("call \"\"", "string \"\""),
        ]
        for (line, expected) in cases {
            #expect(session.run(line).lines == ["say Ann called with \(expected)"], "\(line)")
        }
    }

    @Test func aLineWithABrokenStringIsAnErrorNamingTheColumn() throws {
        let session = GameSession(game: try typedGame())
        #expect(session.run("call \"07").lines == ["error: column 6: the string opened here has no closing '\"'"])
        #expect(session.run("call \"07\"x").lines == ["error: column 10: expected a space after the closing '\"' of a string"])
        #expect(session.run("call \"\\q\"").lines.first?.hasPrefix("error: column 7: a quoted string knows the escapes") == true)
        #expect(session.run("# a comment with a \" in it").lines.isEmpty)
    }

    @Test func anInputsLineReadsBackAsTheSameInput() throws {
        let session = GameSession(game: try typedGame(players: ["Ann", "Bob"]))
        let inputs: [GameInput] = [
            GameInput(.action(name: "call", arguments: [.string("07"), .string("true"), .float(2.0), .integer(2), .string("1e3"),
                                                         .string("Ann Lee"), .string("é"), .boolean(false), .string(""), .string("say \"hi\"\\")])),
            GameInput(.action(name: "call", arguments: [.float(1e20), .float(-0.5), .integer(-3)]), seat: "Ann"),
            GameInput(.tick(milliseconds: 250)),
        ]
        for input in inputs {
            _ = session.run(input.line)
            #expect(session.lastInput == input, "\(input.line)")
        }
        #expect(GameInput(.roll(.keep(positions: [1, 3], rolled: [4, 5])), seat: "Bob").line == "as Bob roll keep 1 3 = 4 5")
        #expect(GameInput(.roll(.flagged(.tooShort))).line == "roll short")
        #expect(GameInput(.device(.status(.battery, value: 12))).line == "device battery 12")
    }

    @Test func theJSONFormKeepsFloatsAndStringsApart() throws {
        let input = try GameInput(json: #"{"type":"action","name":"call","args":["07","true",2.0,2,"1e3","Ann Lee","é",1e3,true],"seat":"Ann"}"#)
        #expect(input == GameInput(.action(name: "call", arguments: [.string("07"), .string("true"), .float(2), .integer(2), .string("1e3"),
                                                                     .string("Ann Lee"), .string("é"), .float(1000), .boolean(true)]), seat: "Ann"))
        #expect(input.json == #"{"args":["07","true",2.0,2,"1e3","Ann Lee","é",1000.0,true],"name":"call","seat":"Ann","type":"action"}"#)
        #expect(try GameInput(json: input.json) == input)
        let others: [GameInput] = [
            GameInput(.roll(.random)), GameInput(.roll(.values([3, 4])), seat: "Bob"), GameInput(.roll(.flagged(.tilt))),
            GameInput(.roll(.keep(positions: [2], rolled: nil))), GameInput(.tick(milliseconds: 500)),
            GameInput(.device(.roll(Roll(values: [5])))), GameInput(.device(.roll(Roll(values: [], flag: .tooShort)))),
            GameInput(.device(.status(.disconnected, value: nil))), GameInput(.tilt(x: 0.2, y: -1)),
            GameInput(.sensor(samples: [SensorSample(sensor: .touch, time: 5, values: [3])], fromNow: true)),
            GameInput(.restart), GameInput(.reload), GameInput(.bot),
        ]
        for other in others { #expect(try GameInput(json: other.json) == other, "\(other.json)") }
    }

    @Test func badJSONInputsNameTheField() throws {
        let cases: [(String, String)] = [
            (#"{"type":"action","name":"call","args":[[1]]}"#, "the field 'args[0]': expected an integer, a number, a string or true/false, got [1]"),
            (#"{"type":"action","name":"call","args":[{"a":1}]}"#, #"the field 'args[0]': expected an integer, a number, a string or true/false, got {"a":1}"#),
            (#"{"type":"action","name":"call","args":[null]}"#, "the field 'args[0]': expected an integer, a number, a string or true/false, got null"),
            (#"{"type":"action","name":"call","args":[1,"\#(String(repeating: "x", count: 5000))"]}"#, "the field 'args[1]': expected a string of at most 4096 bytes, got 5000"),
            (#"{"type":"tick","ms":1.5}"#, "the field 'ms': expected a whole number, got 1.5"),
            (#"{"type":"roll","flag":"ok"}"#, "the field 'flag': expected \"tilt\" or \"too_short\", got \"ok\""),
            (#"{"type":"roll","colour":"red"}"#, "the field 'colour': this input has no such field"),
            (#"{"type":"jump"}"#, "the field 'type': expected roll, action, tick, device, tilt, sensor, restart, reload, bot or skip, got \"jump\""),
            (#"{"type":"tick","ms":-5}"#, "tick takes a duration from 0 to 1 day (86400000ms), got -5ms"),
        ]
        for (json, expected) in cases {
            do { _ = try GameInput(json: json); Issue.record("accepted \(json)") } catch { #expect("\(error)" == expected) }
        }
    }

    @Test func applySaysWhyAnInputWasRefusedWithACode() throws {
        let game = try makeGame(minimalRules)
        let before = log(game)
        #expect(game.apply(GameInput(.roll(.values([3])), seat: "Bob")) == .refused(.notYourTurn, "it is Ann's turn, not Bob's"))
        #expect(game.apply(GameInput(.roll(.values([3])), seat: "Cy")) == .refused(.unknownPlayer, "no player named 'Cy' (players: Ann, Bob)"))
        if case .refused(.unknownAction, _) = game.apply(GameInput(.action(name: "fly", arguments: []))) {} else { Issue.record("fly was not an unknown action") }
        if case .refused(.badArgument, _) = game.apply(GameInput(.roll(.values([3, 4])))) {} else { Issue.record("two dice for 1d6 were not a bad argument") }
        #expect(game.apply(GameInput(.tick(milliseconds: -1))) == .refused(.badArgument, "tick takes a duration from 0 to 1 day (86400000ms), got -1ms"))
        #expect(log(game) == before)
        guard case .ruleFailure(let failure) = game.apply(GameInput(.action(name: "boom", arguments: []))) else {
            Issue.record("boom did not fail in the rules")
            return
        }
        #expect(failure.file == "test.lua" && failure.line == 9 && failure.message == "boom went Ann")
        #expect(log(game) == before)
        #expect(game.apply(GameInput(.roll(.values([6])))).isApplied)
        #expect(game.apply(GameInput(.roll(.values([6])))).isApplied)  // Bob
        if case .applied = game.apply(GameInput(.action(name: "add", arguments: [.integer(5)]))) {} else { Issue.record("add was refused") }
    }

    @Test func theRulesRefusalAndTheEndOfTheGameHaveTheirCodes() throws {
        let game = try makeGame("""
            local r = rules { name = "Refuse", players = {1, 2}, dice = "1d6" }
            function r.roll(g, p, r) if r.total == 6 then g:win(p) end end
            r.actions = { no = function(g, p) error("not now", 0) end }
            return r
            """, players: ["Ann"])
        #expect(game.apply(GameInput(.action(name: "no", arguments: []))) == .refused(.rulesRefused, "not now"))
        #expect(game.apply(GameInput(.roll(.values([6])))).isApplied)
        if case .refused(.gameOver, _) = game.apply(GameInput(.roll(.values([1])))) {} else { Issue.record("a roll after the end was not game-over") }
    }

    @Test func typedArgumentsSurviveALogAndItsReplay() throws {
        let game = try typedGame()
        var lines: [String] = []
        let recorder = GameLogRecorder { lines.append($0); return nil }
        recorder.begin(game)
        let session = GameSession(game: game)
        for line in ["call \"07\"", "call \"true\"", "call 2.0", "call 2", "call \"1e3\"", "call \"Ann Lee\"", "call \"é\"", "undo", "redo", "fly"] {
            _ = recorder.run(line, in: session)
        }
        _ = recorder.run(GameInput(.action(name: "call", arguments: [.float(3)])), in: session)
        #expect(lines[3].contains(#""input":{"args":[2.0],"name":"call","type":"action"}"#), "\(lines[3])")
        let games = try GameLog.parse(lines.joined(separator: "\n"))
        let entries = games[0].entries.map(\.entry)
        #expect(entries[0].input == GameInput(.action(name: "call", arguments: [.string("07")])))
        #expect(entries[2].input == GameInput(.action(name: "call", arguments: [.float(2)])))
        #expect(entries[7].command == "undo" && entries[8].command == "redo" && entries[9].command == "fly")
        #expect(entries[9].error == "unknown command 'fly' (try 'help')")
        let report = GameReplay.run(games)
        #expect(report.matched, "\(report.lines)")
        #expect(report.games[0].matchedInputs == 11)
        // The rules see the same types again.
        let said = entries.prefix(7).compactMap { $0.events.last?["text"]?.stringValue }
        #expect(said == ["say Ann called with string \"07\"", "say Ann called with string \"true\"", "say Ann called with float 2.0",
                         "say Ann called with integer 2", "say Ann called with string \"1e3\"", "say Ann called with string \"Ann Lee\"",
                         "say Ann called with string \"é\""])
    }

    /// A command entry's line as format 1 wrote it: the command as "input" (an event's
    /// own "command" field, an LED's, stays).
    func formatOne(_ line: String) -> String {
        let key = "{\"command\":"
        return line.hasPrefix(key) ? "{\"input\":" + line.dropFirst(key.count) : line
    }

    @Test func aFormatOneLogStillReplays() throws {
        let game = try Game(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: 7)
        var lines: [String] = []
        let recorder = GameLogRecorder { lines.append($0); return nil }
        recorder.begin(game)
        let session = GameSession(game: game)
        var entries: [String] = []
        for (n, line) in ["roll 3", "as Bob roll 4", "fly", "tick 2s"].enumerated() {
            let outcome = GameLog.perform(line, in: session)
            entries.append(formatOne(GameLog.line(GameLog.Entry(n: n + 1, input: outcome.input, t: outcome.time,
                                                                events: outcome.events.map(GameLog.json), error: outcome.error))))
        }
        try recorder.playBotMove(game)
        let bot = try #require(lines.last).replacingOccurrences(of: #""input":{"type":"bot"},"#, with: #""bot":true,"#)
        let header = lines[0].replacingOccurrences(of: "\"dicehost_log\":2", with: "\"dicehost_log\":1")
        let text = ([header] + entries + [bot.replacingOccurrences(of: "\"n\":1,", with: "\"n\":5,")]).joined(separator: "\n")
        let games = try GameLog.parse(text)
        #expect(games[0].entries.map(\.entry.command) == ["roll 3", "as Bob roll 4", "fly", "tick 2s", nil])
        #expect(games[0].entries.last?.entry.isBotMove == true)
        let report = GameReplay.run(games)
        #expect(report.matched, "\(report.lines)")
        #expect(report.games[0].matchedInputs == 5)
    }

    /// A format 1 log of race: header, then command lines (one refused), then a bot move.
    func formatOneRace() throws -> String {
        let game = try Game(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: 7)
        let header = GameLog.line(GameLog.Header(game: game)).replacingOccurrences(of: "\"dicehost_log\":2", with: "\"dicehost_log\":1")
        let session = GameSession(game: game)
        var lines = [header]
        for (n, line) in ["roll 3", "as Bob roll 4", "fly", "undo", "tick 2s"].enumerated() {
            let outcome = GameLog.perform(line, in: session)
            lines.append(formatOne(GameLog.line(GameLog.Entry(n: n + 1, input: outcome.input, t: outcome.time,
                                                              events: outcome.events.map(GameLog.json), error: outcome.error))))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func aFormatOneLogIsConvertedToTypedInputsOnlyWhenItReplays() throws {
        let folder = NSTemporaryDirectory() + "dicehost-convert-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/old.jsonl"
        let old = try formatOneRace()
        try old.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try GameLogConversion.convert(path) == 1)
        let games = try GameLog.read(path)
        #expect(games[0].header.dicehost_log == 2)
        let entries = games[0].entries.map(\.entry)
        #expect(entries[0].input == GameInput(.roll(.values([3]))))
        #expect(entries[1].input == GameInput(.roll(.values([4])), seat: "Bob"))
        #expect(entries[2].command == "fly" && entries[3].command == "undo")
        #expect(entries[4].input == GameInput(.tick(milliseconds: 2000)))
        #expect(GameReplay.run(logFile: path).matched)
        #expect(try GameLogConversion.convert(path) == 0)  // already format 2

        // A tampered event: the log does not replay, and the file stays byte for byte.
        let tampered = old.replacingOccurrences(of: "roll Ann ⚂", with: "roll Ann ⚅")
        try tampered.write(toFile: path, atomically: true, encoding: .utf8)
        do { try GameLogConversion.convert(path); Issue.record("converted a log that does not replay") } catch {
            #expect("\(error)" == "\(path):2: cannot convert the log: input 1 (roll 3) does not replay as it was logged; the file is left as it was")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == tampered)
    }

    @Test func aFailureIsPlacedByItsLuaErrorsFileAndLine() throws {
        let error = LuaError(kind: .runtime, message: "boom", file: "rules/x.lua", line: 12)
        #expect(FuzzFailure.ScriptLocation(of: GameError.script(error)) == FuzzFailure.ScriptLocation(of: error))
        #expect(FuzzFailure.ScriptLocation(of: GameError.script(error))?.line == 12)
        #expect(FuzzFailure.ScriptLocation(of: GameError.refused("rules/x.lua:12: not a Lua error")) == nil)
    }
}
