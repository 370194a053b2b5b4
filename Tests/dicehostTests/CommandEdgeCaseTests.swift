import Foundation
import Testing

/// The small things of the command line: big dice expressions, exploding dice cut at a
/// depth, keeping dice with given values, and `new` with names and folders that cannot work.
@Suite struct CommandEdgeCaseTests {
    /// A sum of many big dice is a window sum per die, far less work than it was
    /// estimated at (25d1000 was refused as 3×10^8 steps; 100d1000 takes about 10 s of
    /// CPU in a debug build, bench/README.md).
    @Test func aSumOfManyBigDiceIsComputed() throws {
        let result = try runDicehost(["dice", "25d1000", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(((object["outcomes"] as? [String: Any])?["total"] as? [Int])?.count == 24_976)  // totals 25 ... 25000
        #expect(abs((object["mean"] as? Double ?? 0) - 12_512.5) < 1e-6)
    }

    @Test func tooMuchWorkIsRefusedWithTheReasonAndTheWayOut() throws {
        let kept = try runDicehost(["dice", "100d1000kh99"])
        #expect(kept.status == 2)
        #expect(kept.stderr.contains("needs about") && kept.stderr.contains("dicehost sim"), "\(kept.stderr)")
    }

    @Test func atLeastCountsTheMassLeftOutByADepth() throws {
        let result = try runDicehost(["dice", "1d6!", "--depth", "0", "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let outcomes = try #require(object["outcomes"] as? [String: Any])
        let atLeast = try #require(outcomes["at_least"] as? [Double])
        #expect((outcomes["total"] as? [Int])?.first == 1)
        #expect(atLeast.first == 1.0)  // every roll is at least 1, exploded or not
        #expect(abs((atLeast.last ?? 0) - 2.0 / 6) < 1e-12)  // a 5, or a 6 that exploded
        let text = try runDicehost(["dice", "1d6!", "--depth", "0"])
        #expect(text.stdout.contains("'at least' counts it"), "\(text.stdout)")
    }

    @Test func rollKeepTakesTheValuesOfTheDiceRolledAgain() throws {
        let input = "roll 1 2 3 4 5\nroll keep 1 3 = 6 6 6\nroll keep 2 = 1\nroll keep = 1 1 1 1 7\nroll keep 1 2 3 4 5\nroll keep 1\n"
        for seed in ["1", "2"] {  // the same values whatever the seed
            let result = try runDicehost(["play", "examples/dice-games/yacht.lua", "--players", "Ann", "--seed", seed], input: input)
            #expect(result.stdout.contains("roll Ann ⚀ ⚅ ⚂ ⚅ ⚅ = 22\n"), "\(result.stdout)")
            #expect(result.stdout.contains("error: roll keep: 4 dice are rolled again, so give 4 values after '=', got 1\n"))
            #expect(result.stdout.contains("error: a 6-sided die cannot show 7\n"))
            #expect(result.stdout.contains("error: three rolls a turn: score now\n"))
        }
    }

    func folder() throws -> String {
        let path = NSTemporaryDirectory() + "dicehost-new-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func newRefusesANameWithoutALetterAndLeavesNothing() throws {
        let dir = try folder()
        let binary = packageRoot.appendingPathComponent(".build/debug/dicehost").path
        for name in ["_", "-", "__-"] {
            let made = try runProgram(binary, ["new", name], in: dir)
            #expect(made.status == 2, "\(made)")
            #expect(made.stderr.contains("with a letter or digit"), "\(made.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        #expect(try runProgram(binary, ["new", "a_"], in: dir).status == 0)
    }

    @Test func newIntoAFileOrAnUnusableFolderIsAPlainUsageError() throws {
        let dir = try folder()
        let binary = packageRoot.appendingPathComponent(".build/debug/dicehost").path
        try "not a folder".write(toFile: dir + "/FILE", atomically: true, encoding: .utf8)
        let file = try runProgram(binary, ["new", "x", "--folder", "FILE"], in: dir)
        #expect(file.status == 2)
        #expect(file.stderr == "dicehost: new: --folder FILE: it is a file, not a folder\n")
        let under = try runProgram(binary, ["new", "x", "--folder", "FILE/games"], in: dir)
        #expect(under.status == 2)
        #expect(under.stderr == "dicehost: new: --folder FILE/games: FILE is a file, not a folder\n")
        // A folder the system will not create: a plain message, nothing left behind.
        let long = String(repeating: "n", count: 300)
        let tooLong = try runProgram(binary, ["new", "x", "--folder", "games/\(long)"], in: dir)
        #expect(tooLong.status == 2)
        #expect(tooLong.stderr.hasPrefix("dicehost: new: cannot create the folder games/\(long)/tests/x: "), "\(tooLong.stderr)")
        #expect(!tooLong.stderr.contains("NSCocoaErrorDomain") && !tooLong.stderr.contains("Error Domain"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["FILE"])
        if getuid() != 0 {  // root writes anywhere
            try FileManager.default.createDirectory(atPath: dir + "/locked", withIntermediateDirectories: true)
            chmod(dir + "/locked", 0o555)
            let locked = try runProgram(binary, ["new", "x", "--folder", "locked"], in: dir)
            #expect(locked.status == 2)
            #expect(locked.stderr == "dicehost: new: --folder locked: cannot write into it: Permission denied\n")
        }
    }
}
