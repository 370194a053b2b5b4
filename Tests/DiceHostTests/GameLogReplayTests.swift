import DiceHost
import Foundation
import Testing

@Suite struct GameLogReplayTests {
    /// A game of race played through a recorder into memory: the log's lines.
    func recordedRace(_ inputs: [String], rules: String = "rules/race.lua", seed: UInt64 = 7) throws -> [String] {
        let game = try Game(rulesFile: rules, players: ["Ann", "Bob"], seed: seed, params: [("target", "12")])
        var lines: [String] = []
        let recorder = GameLogRecorder { lines.append($0); return nil }
        recorder.begin(game)
        let session = GameSession(game: game)
        for input in inputs { _ = recorder.run(input, in: session) }
        return lines
    }

    @Test func sha256MatchesTheStandardVectors() {
        #expect(SHA256.hex(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(of: [UInt8](repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func theHeaderNamesTheGameAndEachInputCarriesItsEvents() throws {
        let lines = try recordedRace(["roll 3", "state", "fly", "roll 4", "tick 2s"])
        #expect(lines.count == 5)  // header, roll, fly (refused), roll, tick; state is a query
        let games = try GameLog.parse(lines.joined(separator: "\n"))
        let header = games[0].header
        #expect(header.rules == "rules/race.lua")
        #expect(header.rules_sha256 == SHA256.hex(of: Array(try Data(contentsOf: URL(fileURLWithPath: "rules/race.lua")))))
        #expect(header.seed == 7 && header.players == ["Ann", "Bob"] && header.params == [["target", "12"]])
        #expect(header.events.first?["text"] == .string("start Ann,Bob seed=7"))
        let entries = games[0].entries.map(\.entry)
        #expect(entries.map(\.inputText) == ["roll 3", "fly", "roll 4", "tick 2000ms"])  // a typed input shows as its line
        #expect(entries[0].events.first?["text"] == .string("roll Ann ⚂"))
        #expect(entries[1].error == "unknown command 'fly' (try 'help')" && entries[1].events.isEmpty)
        #expect(entries[3].t == 2000)
        #expect(entries[3].events.contains { $0["type"] == .string("led") })  // the pulse timer fired
    }

    @Test func replayReproducesEveryEventOfARecordedGame() throws {
        let lines = try recordedRace(["roll", "roll", "roll tilt", "roll", "tick 31s", "roll", "undo", "roll", "roll", "roll", "roll", "roll"])
        let report = GameReplay.run(try GameLog.parse(lines.joined(separator: "\n")))
        #expect(report.matched, "\(report.lines)")
        #expect(report.games[0].matchedInputs == 12)
        #expect(report.games[0].checkedEvents == (try GameLog.parse(lines.joined(separator: "\n"))[0].entries.reduce(3) { $0 + $1.entry.events.count }))
    }

    @Test func botMovesAreLoggedAndReplayed() throws {
        let game = try Game(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: 3)
        var lines: [String] = []
        let recorder = GameLogRecorder { lines.append($0); return nil }
        while !game.isOver { try recorder.playBotMove(game) }
        let games = try GameLog.parse(lines.joined(separator: "\n"))
        #expect(games[0].entries.allSatisfy { $0.entry.isBotMove && $0.entry.command == nil })
        #expect(GameReplay.run(games).matched)
    }

    @Test func aTamperedEventIsReportedAtItsInputWithBothSides() throws {
        var lines = try recordedRace(["roll 3", "roll 4", "roll 5"])
        lines[2] = lines[2].replacingOccurrences(of: "say scores: Ann 3, Bob 4", with: "say scores: Ann 3, Bob 5")
        let report = GameReplay.run(try GameLog.parse(lines.joined(separator: "\n")))
        let divergence = try #require(report.games[0].divergence)
        #expect(divergence.input == 2 && divergence.line == 3 && divergence.command == "roll 4")
        #expect(divergence.lines.contains("  > [0ms] say scores: Ann 3, Bob 5"))
        #expect(divergence.lines.contains("  > [0ms] say scores: Ann 3, Bob 4"))
        #expect(report.games[0].matchedInputs == 1)
    }

    @Test func editedRulesPinpointTheFirstInputWhoseEventsDiffer() throws {
        let lines = try recordedRace(["roll 3", "roll 4", "roll 6", "roll 2", "roll 6"])
        let folder = NSTemporaryDirectory() + "dicehost-replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let edited = try String(contentsOfFile: "rules/race.lua", encoding: .utf8)
            .replacingOccurrences(of: "p.score = p.score + move(g, p, r)", with: "p.score = p.score + move(g, p, r) + (r.total == 6 and 1 or 0)")
        try edited.write(toFile: folder + "/race.lua", atomically: true, encoding: .utf8)
        let report = GameReplay.run(try GameLog.parse(lines.joined(separator: "\n")), rules: folder + "/race.lua")
        let divergence = try #require(report.games[0].divergence)
        #expect(divergence.input == 3 && divergence.command == "roll 6")
        #expect(divergence.logged.map { $0["text"] } .contains(.string("say scores: Ann 9, Bob 4")))
        #expect(divergence.replayed.map { $0["text"] }.contains(.string("say scores: Ann 10, Bob 4")))
        #expect(report.games[0].notes == ["replaying under \(folder)/race.lua, not the logged rules/race.lua"])
    }

    @Test func aChangedRulesFileIsNamedEvenWhenTheEventsStillMatch() throws {
        let folder = NSTemporaryDirectory() + "dicehost-replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "rules/race.lua", toPath: folder + "/race.lua")
        let lines = try recordedRace(["roll 3"], rules: folder + "/race.lua")
        try (String(contentsOfFile: folder + "/race.lua", encoding: .utf8) + "\n-- a comment\n").write(toFile: folder + "/race.lua", atomically: true, encoding: .utf8)
        let report = GameReplay.run(try GameLog.parse(lines.joined(separator: "\n")))
        #expect(report.matched)
        #expect(report.games[0].notes.first?.hasPrefix("the rules file has changed since the log was written (sha256 ") == true)
    }

    @Test func badLogLinesNameTheLineAndWhatWasExpected() throws {
        let header = try recordedRace([])[0]
        // Format 1 (inputs as command lines) is still read, and still checked.
        let formatOne = header.replacingOccurrences(of: "\"dicehost_log\":2", with: "\"dicehost_log\":1")
        let cases: [(String, String)] = [
            ("", "log:1: expected a header line, the file has no games"),
            ("not json", "log:1: expected one JSON object per line, got 'not json'"),
            ("{\"n\":1,\"command\":\"roll\",\"t\":0,\"events\":[]}", "log:1: expected a header line ({\"dicehost_log\":2,\"rules\":…}) before any input, got '{\"n\":1,\"command\":\"roll\",\"t\":0,\"events\":[]}'"),
            (header + "\n{\"n\":1,\"t\":0,\"events\":[]}", "log:2: expected an input line with either \"input\" (an input object) or \"command\" (a command line)"),
            (header + "\n{\"n\":2,\"command\":\"roll\",\"t\":0,\"events\":[]}", "log:2: expected input number 1, got 2"),
            (header + "\n{\"n\":1,\"input\":{\"type\":\"roll\"},\"t\":0}", "log:2: expected an input line: the field 'events' is missing"),
            (header + "\n{\"n\":1,\"input\":7,\"t\":0,\"events\":[]}", "log:2: expected an input: the field 'input': expected an object, got 7"),
            (header + "\n{\"n\":1,\"input\":{\"type\":\"action\",\"name\":\"call\",\"args\":[[1]]},\"t\":0,\"events\":[]}",
             "log:2: expected an input: the field 'input.args[0]': expected an integer, a number, a string or true/false, got [1]"),
            (header + "\n{\"n\":1,\"input\":{\"type\":\"fly\"},\"t\":0,\"events\":[]}",
             "log:2: expected an input: the field 'input.type': expected roll, action, tick, device, tilt, sensor, restart, reload, bot or skip, got \"fly\""),
            (header + "\n{\"n\":1,\"command\":\"roll\",\"t\":0,\"events\":[{\"t\":0}]}", "log:2: expected event 1 to be an object with \"t\" (ms) and \"text\", got '{\"t\":0}'"),
            (formatOne + "\n{\"n\":1,\"t\":0,\"events\":[]}", "log:2: expected an input line with either \"input\" (a command) or \"bot\":true"),
            (formatOne + "\n{\"n\":1,\"input\":7,\"t\":0,\"events\":[]}", "log:2: expected an input line: the field 'input' is not a string"),
            ("{\"dicehost_log\":9}", "log:1: this log is format 9; this dicehost reads formats 1 to 2"),
            ("{\"dicehost_log\":1,\"rules\":\"r.lua\"}", "log:1: expected a header: the field 'rules_sha256' is missing"),
        ]
        for (text, expected) in cases {
            #expect(throws: GameLog.FormatError.self) { try GameLog.parse(text) }
            do { _ = try GameLog.parse(text) } catch { #expect("\(error)" == expected) }
        }
    }

    @Test func rulesThatNoLongerLoadAreAFailureNotACrash() throws {
        let lines = try recordedRace(["roll 3"])
        let path = NSTemporaryDirectory() + "dicehost-replay-\(UUID().uuidString).lua"
        try "return 1 +".write(toFile: path, atomically: true, encoding: .utf8)
        let report = GameReplay.run(try GameLog.parse(lines.joined(separator: "\n")), rules: path)
        #expect(report.games[0].failure?.hasPrefix("cannot start the game: ") == true)
        #expect(!report.matched)
    }
}

extension GameLogReplayTests {
    @Test func aSeedAboveInt64KeepsEveryDigitInTheLog() throws {
        let game = try Game(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: .max)
        var lines: [String] = []
        GameLogRecorder { lines.append($0); return nil }.begin(game)
        #expect(lines[0].contains("\"seed\":18446744073709551615,"))
        let header = try GameLog.parse(lines[0])[0].header
        #expect(header.seed == .max)
        #expect(header.events[0]["seed"] == .unsigned(.max))
    }
}
