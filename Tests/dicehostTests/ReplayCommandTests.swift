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
}
