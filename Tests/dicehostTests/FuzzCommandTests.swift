import Foundation
import Testing

/// `dicehost fuzz` as a user runs it: exit 0 when nothing is found, 1 with the shrunk
/// case (and a rule test under --save that `dicehost test` fails), 2 for bad usage, 3
/// for a script that does not load; --json for tools.
@Suite struct FuzzCommandTests {
    static let bug = "Tests/DiceHostTests/FuzzFixtures/broken-invariant.lua"

    @Test func nothingFoundExitsZero() throws {
        let result = try runDicehost(["fuzz", "examples/rules/pig.lua", "--inputs", "120", "--seed", "3"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("fuzzed Pig (Ann, Bob): 120 inputs in 3 games"))
        #expect(result.stdout.hasSuffix("nothing found\n"))
    }

    @Test func aFoundBugExitsOneAndItsSavedTestFailsUntilFixed() throws {
        let folder = try writeTemporary(try String(contentsOfFile: packageRoot.path + "/" + Self.bug, encoding: .utf8), name: "chips.lua")
        let dir = (folder as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try runDicehost(["fuzz", folder, "--inputs", "2000", "--seed", "1", "--save", dir + "/tests"])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("FOUND invariant in game 1"))
        #expect(result.stdout.contains("shrunk to 1 input in "))
        #expect(result.stdout.contains("  > bet 3\n"))
        let saved = dir + "/tests/fuzz-chips-invariant-seed1.txt"
        #expect(result.stdout.contains("saved as a rule test: \(saved)"))
        let failing = try runDicehost(["test", saved])
        #expect(failing.status == 1)
        #expect(failing.stdout.contains("FAIL \(saved): check invariant: after input 1 (bet 3) the invariant is broken"))
        let fixed = try String(contentsOfFile: folder, encoding: .utf8).replacingOccurrences(of: "(n == 3 and 2 or n)", with: "n")
        try fixed.write(toFile: folder, atomically: true, encoding: .utf8)
        let passing = try runDicehost(["test", saved])
        #expect(passing.status == 0, "\(passing.stdout)")
        #expect(passing.stdout.hasSuffix("1 passed, 0 failed\n"))
    }

    @Test func jsonNamesTheCheckAndTheShrunkInputs() throws {
        let result = try runDicehost(["fuzz", Self.bug, "--inputs", "2000", "--seed", "1", "--json"])
        #expect(result.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let found = try #require(object["found"] as? [String: Any])
        #expect(found["check"] as? String == "invariant")
        #expect(found["inputs"] as? [String] == ["bet 3"])
        #expect((object["inputs"] as? Int ?? 0) > 0)
    }

    @Test(arguments: [["--threads", "0"], ["--checks", "no-rule-eror"], ["--inputs", "0"], ["--seconds", "-1"]])
    func badUsageExitsTwo(_ options: [String]) throws {
        let result = try runDicehost(["fuzz", "examples/rules/pig.lua"] + options)
        #expect(result.status == 2, "\(result.stderr)")
    }

    @Test func aScriptThatDoesNotLoadExitsThree() throws {
        let script = try writeTemporary("return rules { name = 'Broken', players = {1, 2}, dice = '1d6' ")
        defer { try? FileManager.default.removeItem(atPath: (script as NSString).deletingLastPathComponent) }
        let result = try runDicehost(["fuzz", script, "--inputs", "10"])
        #expect(result.status == 3, "\(result.stdout)\(result.stderr)")
    }
}
