import DiceHost
import Foundation
import Testing

/// `GameReplay.run(logFile:)` reads the log line by line and replays each input as it is
/// read: what it reports must be what reading the whole log first reports.
@Suite struct StreamedReplayTests {
    func recordedRace(_ inputs: [String], seed: UInt64 = 7) throws -> [String] {
        let game = try Game(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: seed, params: [("target", "12")])
        var lines: [String] = []
        let recorder = GameLogRecorder { lines.append($0); return nil }
        recorder.begin(game)
        let session = GameSession(game: game)
        for input in inputs { _ = recorder.run(input, in: session) }
        return lines
    }

    func writeLog(_ text: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dicehost-stream-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/game.jsonl"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aMalformedLastLineIsReportedAfterEveryEarlierInputIsChecked() throws {
        let lines = try recordedRace(["roll", "roll", "fly", "roll", "tick 2s", "roll"])
        let text = (lines + ["{\"n\":7,\"input\":\"roll\""]).joined(separator: "\r\n") + "\r\n"
        let path = try writeLog(text)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let report = GameReplay.run(logFile: path)
        #expect(!report.matched)
        #expect(report.games.count == 1)
        #expect(report.games[0].matchedInputs == 6 && report.games[0].inputCount == 6, "\(report.lines)")
        #expect(report.games[0].divergence == nil && report.games[0].failure == nil)
        // The same error, line number and all, as parsing the whole text names.
        var parsed: GameLog.FormatError?
        do { _ = try GameLog.parse(text, file: path) } catch let error as GameLog.FormatError { parsed = error }
        #expect(report.logError == parsed)
        #expect(report.logError?.line == 8)
        #expect(report.logError?.description.hasPrefix("\(path):8: expected one JSON object per line") == true)
    }

    @Test func aStreamedReplayReportsWhatAWholeReplayReports() throws {
        var first = try recordedRace(["roll", "roll 3", "fly", "roll"])
        let second = try recordedRace(["roll", "tick 31s", "roll", "undo", "roll"], seed: 9)
        // Tamper with the second input of the first game: a divergence at input 2, line 3.
        first[2] = first[2].replacingOccurrences(of: "\"text\":\"roll", with: "\"text\":\"rolled")
        let text = (first + ["", "  "] + second).joined(separator: "\n")
        let path = try writeLog(text)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let streamed = GameReplay.run(logFile: path)
        let expected = GameReplay.run(try GameLog.read(path))
        #expect(streamed.logError == nil)
        #expect(streamed.lines == expected.lines)
        #expect(streamed.games.map(\.inputCount) == [4, 5])
        #expect(streamed.games[0].divergence?.input == 2 && streamed.games[0].divergence?.line == 3)
        #expect(streamed.games[1].matched)
    }

    @Test func aLogThatCannotBeReadHasNoGamesAndNamesWhy() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dicehost-stream-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = GameReplay.run(logFile: folder)
        #expect(report.games.isEmpty && !report.matched)
        #expect(report.logError?.description == "\(folder):0: cannot read the log: not a regular file")
        let empty = try writeLog("\n\n")
        let none = GameReplay.run(logFile: empty)
        #expect(none.logError?.description == "\(empty):1: expected a header line, the file has no games")
    }
}
