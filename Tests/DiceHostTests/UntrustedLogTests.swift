import DiceHost
import Foundation
import Testing

/// Game logs and sensor recordings are files from elsewhere: CRLF line ends are read,
/// a replay writes nothing and reads only beside the log, and its reports say exactly
/// what differs, briefly.
@Suite struct UntrustedLogTests {
    func recordedPig(_ inputs: [String], seed: UInt64 = 5) throws -> [String] {
        let game = try Game(rulesFile: "examples/rules/pig.lua", players: ["Ann", "Bob"], seed: seed)
        var lines: [String] = []
        let recorder = GameLogRecorder { lines.append($0); return nil }
        recorder.begin(game)
        let session = GameSession(game: game)
        for input in inputs { _ = recorder.run(input, in: session) }
        return lines
    }

    @Test func aLogWithCRLFLineEndsReadsAsWithLF() throws {
        let lines = try recordedPig(["roll 3", "roll 4", "hold", "roll"])
        let lf = try GameLog.parse(lines.joined(separator: "\n") + "\n")
        let crlf = try GameLog.parse(lines.joined(separator: "\r\n") + "\r\n")
        #expect(crlf.map(\.header) == lf.map(\.header))
        #expect(crlf[0].entries.map(\.entry) == lf[0].entries.map(\.entry))
        #expect(GameReplay.run(crlf).matched)
    }

    @Test func aRecordingWithCRLFLineEndsReadsAsWithLF() throws {
        let csv = try SensorRecording.parse("t,x,y,z\r\n0,0.1,0,0.99\r\n16,0.2,0,0.98\r\n", sensor: .accelerometer)
        #expect(csv.map(\.time) == [0, 16] && csv[1].values == [0.2, 0, 0.98])
        let jsonl = try SensorRecording.parse("{\"t\":0,\"x\":0.1,\"y\":0,\"z\":1}\r\n{\"t\":5,\"values\":[0,0,1]}\r\n", sensor: .accelerometer)
        #expect(jsonl.map(\.time) == [0, 5])
    }

    @Test func aBadSeedOrNumberNamesItsField() throws {
        let header = try recordedPig([])[0]
        let seed = try #require(header.range(of: "\"seed\":5", options: .backwards))  // the header's, not the start event's
        for (bad, shown) in [("-1", "-1"), ("1e30", "1e+30"), ("\"7\"", "\"7\""), ("1.5", "1.5")] {
            let text = header.replacingCharacters(in: seed, with: "\"seed\":\(bad)")
            do { _ = try GameLog.parse(text); Issue.record("accepted seed \(bad)") } catch {
                #expect("\(error)" == "log:1: expected a header: the field 'seed' must be a whole number from 0 to 18446744073709551615, got '\(shown)'")
            }
        }
        let entry = "{\"n\":1,\"command\":\"roll\",\"t\":1e300,\"events\":[]}"
        do { _ = try GameLog.parse(header + "\n" + entry); Issue.record("accepted t 1e300") } catch {
            #expect("\(error)".hasPrefix("log:2: expected an input line: the field 't' must be a whole number from "))
        }
    }

    @Test func aDifferenceOnlyInAnEventsFieldsIsShownByField() throws {
        var lines = try recordedPig(["roll 3"])
        // The roll event keeps its text but says it showed another value.
        #expect(lines[1].contains("\"values\":[3]"))
        // The event's values, not the typed input's (`{"type":"roll","values":[3]}`).
        lines[1] = lines[1].replacingOccurrences(of: "\"total\":3,\"type\":\"roll\",\"values\":[3]", with: "\"total\":3,\"type\":\"roll\",\"values\":[4]")
        let report = GameReplay.run(try GameLog.parse(lines.joined(separator: "\n")))
        let divergence = try #require(report.games[0].divergence)
        #expect(divergence.lines.contains("  field \"values\" differs: logged [4], replayed [3]"), "\(divergence.lines)")
    }

    @Test func aHugeEventIsShownShortened() throws {
        var lines = try recordedPig(["roll 3"])
        let huge = String(repeating: "x", count: 1_000_000)
        let text = try #require(lines[1].range(of: "\"text\":\"", options: .backwards))
        lines[1].replaceSubrange(text, with: "\"text\":\"\(huge)")
        #expect(lines[1].utf8.count > 1_000_000)
        let report = GameReplay.run(try GameLog.parse(lines.joined(separator: "\n")))
        let divergence = try #require(report.games[0].divergence)
        #expect(divergence.lines.allSatisfy { $0.utf8.count < 1000 }, "\(divergence.lines.map(\.count))")
        #expect(divergence.lines.contains { $0.contains("xxx… (") && $0.contains(" bytes)") })
    }

    @Test func aReplayFromTextWritesAndReadsNoFile() throws {
        let folder = NSTemporaryDirectory() + "dicehost-untrusted-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "t,x,y,z\n0,0,0,1\n".write(toFile: folder + "/rec.csv", atomically: true, encoding: .utf8)
        var lines = try recordedPig(["roll 3"])
        lines.append("{\"n\":2,\"command\":\"save \(folder)/out.txt\",\"t\":0,\"events\":[]}")
        let report = GameReplay.run(try GameLog.parse(lines.joined(separator: "\n")))
        #expect(report.games[0].divergence?.replayedError == "cannot write \(folder)/out.txt: a replay never writes files (the log asked to)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.txt"))
        lines[2] = "{\"n\":2,\"command\":\"sensor accelerometer \(folder)/rec.csv\",\"t\":0,\"events\":[]}"
        let read = GameReplay.run(try GameLog.parse(lines.joined(separator: "\n")))
        #expect(read.games[0].divergence?.replayedError == "cannot load \(folder)/rec.csv: a replayed log read from text may not read files")
    }
}
