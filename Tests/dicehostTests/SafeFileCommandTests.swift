import Foundation
import Testing

/// `save`, `--record` and `--log` from the command line write only regular files in
/// the folder asked for, never the rules, never through a link; the game goes on.
/// Every target here is inside a fresh temporary folder.
@Suite struct SafeFileCommandTests {
    func scratch() throws -> String {
        let folder = NSTemporaryDirectory() + "dicehost-cli-files-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    func timed(_ body: () throws -> CommandResult) rethrows -> CommandResult {
        let started = ContinuousClock.now
        let result = try body()
        #expect(ContinuousClock.now - started < .seconds(90))
        return result
    }

    @Test func saveRefusesAFIFOAFolderALinkAndTheRulesAndTheGameGoesOn() throws {
        let folder = try scratch()
        #expect(mkfifo(folder + "/pipe", 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.txt", withDestinationPath: folder + "/target.txt")
        let rules = folder + "/pig.lua"
        try FileManager.default.copyItem(atPath: "examples/rules/pig.lua", toPath: rules)
        let input = "roll 3\nsave \(folder)/pipe\nsave \(folder)\nsave \(folder)/link.txt\nsave \(rules) --force\nroll 4\nsave \(folder)/ok.txt\n"
        let result = try timed { try runDicehost(["play", rules, "--seed", "1"], input: input) }
        #expect(result.status == 0, "\(result)")
        let errors = result.stdout.split(separator: "\n").filter { $0.hasPrefix("error") }
        #expect(errors == ["error: cannot write \(folder)/pipe: it is a FIFO, not a regular file",
                           "error: cannot write \(folder): it is a folder, not a regular file",
                           "error: cannot write \(folder)/link.txt: it is a symbolic link, not a regular file",
                           "error: cannot write \(rules): it is the rules script or a file it requires"])
        #expect(result.stdout.hasSuffix("saved 2 commands to \(folder)/ok.txt\n"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/target.txt"))
        #expect(try String(contentsOfFile: rules, encoding: .utf8) == String(contentsOfFile: "examples/rules/pig.lua", encoding: .utf8))
    }

    @Test func saveOverAFileThatIsNotATranscriptNeedsForce() throws {
        let folder = try scratch()
        let notes = folder + "/notes.txt"
        try "my notes\n".write(toFile: notes, atomically: false, encoding: .utf8)
        let refused = try timed { try runDicehost(["play", "examples/rules/pig.lua", "--seed", "1"], input: "roll 3\nsave \(notes)\nsave \(notes) --frce\n") }
        #expect(refused.stdout.contains("error: cannot write \(notes): it exists and is not a transcript (save FILE --force replaces it)\nerror: usage: save FILE [--force]\n"), "\(refused)")
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "my notes\n")
        let forced = try runDicehost(["play", "examples/rules/pig.lua", "--seed", "1"], input: "roll 3\nsave \(notes) --force\n")
        #expect(forced.stdout.hasSuffix("saved 1 command to \(notes)\n"))
        #expect(try String(contentsOfFile: notes, encoding: .utf8).contains("> roll 3"))
    }

    @Test func recordRefusesBadTargetsBeforePlayingWithExitTwo() throws {
        let folder = try scratch()
        #expect(mkfifo(folder + "/pipe", 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.txt", withDestinationPath: folder + "/target.txt")
        try "keep me\n".write(toFile: folder + "/notes.txt", atomically: false, encoding: .utf8)
        let cases = [(folder + "/pipe", "it is a FIFO, not a regular file"), (folder, "it is a folder, not a regular file"),
                     (folder + "/link.txt", "it is a symbolic link, not a regular file"),
                     (folder + "/notes.txt", "it exists and is not a transcript (--force replaces it)"),
                     ("examples/rules/pig.lua", "it is the rules script or a file it requires"),
                     (folder + "/no/such.txt", "no such folder \(folder)/no")]
        for (target, reason) in cases {
            let result = try timed { try runDicehost(["play", "examples/rules/pig.lua", "--seed", "1", "--record", target], input: "roll 3\n") }
            #expect(result.status == 2, "\(result)")
            #expect(result.stderr == "dicehost: --record: cannot write \(target): \(reason)\n")
            #expect(result.stdout.isEmpty)
        }
        #expect(try String(contentsOfFile: folder + "/notes.txt", encoding: .utf8) == "keep me\n")
        #expect(!FileManager.default.fileExists(atPath: folder + "/target.txt"))
        let forced = try runDicehost(["play", "examples/rules/pig.lua", "--seed", "1", "--record", folder + "/notes.txt", "--force"], input: "roll 3\n")
        #expect(forced.status == 0)
        #expect(try String(contentsOfFile: folder + "/notes.txt", encoding: .utf8).contains("> roll 3"))
    }

    @Test func logRefusesALinkAFIFOAndTheRulesWithExitTwo() throws {
        let folder = try scratch()
        #expect(mkfifo(folder + "/pipe", 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.log", withDestinationPath: folder + "/elsewhere.log")
        let cases = [(folder + "/pipe", "it is a FIFO, not a regular file"), (folder + "/link.log", "it is a symbolic link, not a regular file"),
                     ("examples/rules/pig.lua", "it is the rules script or a file it requires"), (folder, "it is a folder, not a regular file")]
        for (target, reason) in cases {
            let result = try timed { try runDicehost(["play", "examples/rules/pig.lua", "--seed", "1", "--log", target], input: "roll 3\n") }
            #expect(result.status == 2, "\(result)")
            #expect(result.stderr == "dicehost: --log: cannot write \(target): \(reason)\n")
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/elsewhere.log"))
        let ok = try runDicehost(["play", "examples/rules/pig.lua", "--seed", "1", "--log", folder + "/game.log"], input: "roll 3\n")
        #expect(ok.status == 0)
        #expect(try String(contentsOfFile: folder + "/game.log", encoding: .utf8).contains("\"text\":\"roll Ann ⚂\""))
    }

    @Test func testUpdateWritesThroughTheSafeWriter() throws {
        let folder = try scratch()
        try FileManager.default.copyItem(atPath: "examples/rules/pig.lua", toPath: folder + "/pig.lua")
        let test = folder + "/t.txt"
        try "rules: pig.lua\nplayers: Ann, Bob\nseed: 1\n\nturn Ann\n> roll 3\nwrong\n".write(toFile: test, atomically: false, encoding: .utf8)
        let result = try runDicehost(["test", test, "--update"])
        #expect(result.status == 0, "\(result)")
        #expect(try String(contentsOfFile: test, encoding: .utf8).contains("> roll 3\nroll Ann ⚂\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["pig.lua", "t.txt"])
    }

    @Test func anOverlongInputLineIsAnErrorAndTheSessionGoesOn() throws {
        let input = String(repeating: "x", count: 300_000) + "\nroll 3\n"
        let result = try timed { try runDicehost(["play", "examples/rules/pig.lua", "--seed", "1"], input: input) }
        #expect(result.status == 0)
        #expect(result.stdout.contains("error: the line is longer than 65536 bytes, the most a command may have\nroll Ann ⚂\n"), "\(result.stdout.prefix(500))")
    }
}
