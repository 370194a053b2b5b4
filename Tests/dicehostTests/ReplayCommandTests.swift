import Foundation
import Testing

@Suite struct ReplayCommandTests {
    func scratch() throws -> String {
        let folder = NSTemporaryDirectory() + "dicehost-cli-replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aLoggedSessionReplaysWithEveryEventMatching() throws {
        let folder = try scratch()
        let play = try runDicehost(["play", "examples/rules/pig.lua", "--seed", "5", "--log", folder + "/g.jsonl"],
                                   input: "roll\nroll\nhold\nstate\nroll 9\nroll\ntick 1s\n")
        #expect(play.status == 0, "\(play)")
        let replay = try runDicehost(["replay", folder + "/g.jsonl"])
        #expect(replay.status == 0, "\(replay)")
        #expect(replay.stdout.hasPrefix("examples/rules/pig.lua: 6 inputs replayed, all "))
        let text = try runDicehost(["replay", folder + "/g.jsonl", "--text"])
        #expect(text.stdout.hasPrefix("   0.000s start Ann,Bob seed=5\n   0.000s turn Ann\n"))
    }

    @Test func autoPlayIsLoggedAsBotMovesAndReplays() throws {
        let folder = try scratch()
        let play = try runDicehost(["play", "rules/race.lua", "--seed", "9", "--auto", "--log", folder + "/g.jsonl"])
        #expect(play.status == 0, "\(play)")
        let replay = try runDicehost(["replay", folder + "/g.jsonl"])
        #expect(replay.status == 0, "\(replay)")
        #expect(replay.stdout.contains("inputs replayed, all"))
    }

    @Test func otherRulesShowTheFirstDifferenceAndExitOne() throws {
        let folder = try scratch()
        _ = try runDicehost(["play", "examples/rules/pig.lua", "--seed", "5", "--log", folder + "/g.jsonl"], input: "roll 4\nroll 1\nroll 6\n")
        let edited = try String(contentsOfFile: "examples/rules/pig.lua", encoding: .utf8)
        try (edited + "\n").write(toFile: folder + "/pig.lua", atomically: true, encoding: .utf8)
        #expect(try runDicehost(["replay", folder + "/g.jsonl", "--rules", folder + "/pig.lua"]).status == 0)
        let other = try runDicehost(["replay", folder + "/g.jsonl", "--rules", "rules/race.lua"])
        #expect(other.status == 1, "\(other)")
        #expect(other.stdout.contains("first difference at the start of the game (log line 1)"))
        #expect(other.stdout.contains("  logged:\n") && other.stdout.contains("  replayed:\n"))
    }

    @Test func aBadLogExitsTwoNamingTheLine() throws {
        let folder = try scratch()
        try "{\"dicehost_log\":1}\n".write(toFile: folder + "/bad.jsonl", atomically: true, encoding: .utf8)
        let result = try runDicehost(["replay", folder + "/bad.jsonl"])
        #expect(result.status == 2)
        #expect(result.stderr == "dicehost: \(folder)/bad.jsonl:1: expected a header: the field 'rules' is missing\n")
        let missing = try runDicehost(["replay", folder + "/none.jsonl"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("none.jsonl:0: cannot read the log: No such file or directory"))
    }
    /// A log line as a hand-edited log would have it: a command and no events.
    func entry(_ n: Int, _ input: String) -> String {
        "{\"n\":\(n),\"command\":\"\(input)\",\"t\":0,\"events\":[]}\n"
    }

    @Test func aLoggedSaveIsRefusedAndWritesNothing() throws {
        let folder = try scratch()
        try FileManager.default.createDirectory(atPath: folder + "/logs", withIntermediateDirectories: true)
        try "precious\n".write(toFile: folder + "/victim.txt", atomically: true, encoding: .utf8)
        let log = folder + "/logs/g.jsonl"
        let play = try runDicehost(["play", "examples/rules/pig.lua", "--seed", "5", "--log", log], input: "roll 3\n")
        #expect(play.status == 0, "\(play)")
        for (n, input) in [(2, "save ../victim.txt --force"), (3, "save \(folder)/victim.txt --force"), (4, "save fresh.txt")] {
            let handle = try #require(FileHandle(forWritingAtPath: log))
            handle.seekToEndOfFile()
            handle.write(Data(entry(n, input).utf8))
            try handle.close()
        }
        let replay = try runDicehost(["replay", log])
        #expect(replay.status == 1, "\(replay)")
        #expect(replay.stdout.contains("error: cannot write ../victim.txt: a replay never writes files (the log asked to)"), "\(replay.stdout)")
        #expect(!replay.stdout.contains("all "))
        #expect(try String(contentsOfFile: folder + "/victim.txt", encoding: .utf8) == "precious\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/logs") == ["g.jsonl"])
    }

    @Test func aReplayReadsRecordingsOnlyFromTheLogsFolder() throws {
        let folder = try scratch()
        for sub in ["logs", "outside"] { try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true) }
        let recording = "t,x,y,z\n0,0.1,0,1\n"
        try recording.write(toFile: folder + "/logs/tilt.csv", atomically: true, encoding: .utf8)
        try recording.write(toFile: folder + "/outside/secret.csv", atomically: true, encoding: .utf8)
        // A log whose recording lies beside it replays.
        let log = folder + "/logs/g.jsonl"
        let play = try runDicehost(["play", "rules/labyrinth.lua", "--seed", "1", "--log", log],
                                   input: "sensor accelerometer \(folder)/logs/tilt.csv\ntick 100ms\n")
        #expect(play.status == 0, "\(play)")
        let good = try runDicehost(["replay", log])
        #expect(good.status == 0, "\(good)")
        // The log holds the recording's samples, typed; an edited log may name a file in a
        // command line instead, as a format 1 log did.
        for outside in ["../outside/secret.csv", folder + "/outside/secret.csv"] {
            var lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
            lines[1] = entry(1, "sensor accelerometer \(outside)").trimmingCharacters(in: .newlines)
            try (lines.joined(separator: "\n") + "\n").write(toFile: folder + "/logs/edited.jsonl", atomically: true, encoding: .utf8)
            let replay = try runDicehost(["replay", folder + "/logs/edited.jsonl"])
            #expect(replay.status == 1, "\(replay)")
            #expect(replay.stdout.contains("error: cannot load \(outside): a replayed log may only read files in its own folder (\(folder)/logs)"), "\(replay.stdout)")
        }
    }

    @Test func aReplayStoppedAtALoadDoesNotSayEverythingMatched() throws {
        let folder = try scratch()
        let log = folder + "/g.jsonl"
        let play = try runDicehost(["play", "examples/rules/pig.lua", "--seed", "5", "--log", log],
                                   input: "roll 3\nsave \(folder)/s.txt\nload \(folder)/s.txt\nroll 4\nroll 5\n")
        #expect(play.status == 0, "\(play)")
        let replay = try runDicehost(["replay", log])
        #expect(replay.status == 1, "\(replay)")
        #expect(!replay.stdout.contains("all "), "\(replay.stdout)")
        #expect(replay.stdout.contains("examples/rules/pig.lua: 1 of 4 inputs replayed and their "), "\(replay.stdout)")
        #expect(replay.stdout.contains("events match; the 3 from the load on were not checked"), "\(replay.stdout)")
    }
}
