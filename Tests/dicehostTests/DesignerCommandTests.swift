import Foundation
import Testing

/// The designer's loop at the command line (issue 13): auto-play under --watch, games
/// that end, tests that read the same from any folder, exit statuses, the test runner.
@Suite struct DesignerCommandTests {
    func folder() throws -> String {
        let dir = NSTemporaryDirectory() + "dicehost-designer-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    func solo(_ word: String) -> String {
        """
        local r = rules { name = "Solo \(word)", players = 1 }
        function r.roll(g, p, roll) g:say("\(word) %d", roll.value); if roll.value >= 4 then g:win(p) end end
        return r
        """
    }

    @Test func autoWatchPlaysAgainAfterEachSave() throws {
        let path = try folder() + "/solo.lua"
        try solo("first").write(toFile: path, atomically: true, encoding: .utf8)
        let play = try LiveProcess(["play", path, "--auto", "--watch", "--seed", "3", "--players", "Ann"])
        defer { if play.process.isRunning { play.process.terminate() } }
        #expect(play.waitFor("replaying after each save") != nil, "\(play.printed)")
        #expect(play.printed.contains("say first"))
        try solo("second").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(play.waitFor("reloaded \(path): Solo second, replaying seed 3") != nil, "\(play.printed)")
        #expect(play.waitFor("say second") != nil, "\(play.printed)")
        #expect(play.finish() == 0)
    }

    @Test func crapsWithDefaultsEndsInPlayAndSim() throws {
        let play = try runDicehost(["play", "rules/craps.lua", "--auto", "--seed", "1", "--players", "Ann"])
        #expect(play.status == 0, "\(play)")
        #expect(!play.stdout.contains("did not end"))
        #expect(play.stdout.contains("\nwin Ann\n") || play.stdout.hasSuffix("draw\n"), "\(play.stdout.suffix(300))")
        let sim = try runDicehost(["sim", "rules/craps.lua", "--games", "300", "--seed", "1", "--threads", "1"])
        #expect(sim.status == 0)
        #expect(!sim.stdout.contains("unfinished"), "\(sim.stdout)")
    }

    @Test func simSaysLoudlyWhenMostGamesDoNotEnd() throws {
        let path = try writeTemporary("""
            local r = rules { name = "Endless", players = 1 }
            function r.roll(g, p, roll) end
            return r
            """, name: "endless.lua")
        let sim = try runDicehost(["sim", path, "--games", "20", "--seed", "1", "--move-limit", "50", "--threads", "1"])
        #expect(sim.stdout.contains("WARNING: 100.00% of the games (20 of 20) did not end within 50 moves"), "\(sim.stdout)")
        #expect(sim.stdout.contains("--set rounds=1"))
        #expect(sim.stderr.contains("WARNING"))
    }

    @Test func aTranscriptNamesItsRulesRelativeToItselfFromAnyFolder() throws {
        let dir = try folder()
        try FileManager.default.createDirectory(atPath: dir + "/tests", withIntermediateDirectories: true)
        try """
            local r = rules { name = "Oops", players = 1 }
            function r.roll(g, p, roll) local t = nil; return t.x end
            return r
            """.write(toFile: dir + "/oops.lua", atomically: true, encoding: .utf8)
        let test = dir + "/tests/oops.txt"
        try """
            rules: ../oops.lua
            players: Ann
            seed: 1

            turn Ann
            > roll 1
            error: ../oops.lua:2: attempt to index a nil value (local 't')

            """.write(toFile: test, atomically: true, encoding: .utf8)
        let fromPackage = try runDicehost(["test", test])
        #expect(fromPackage.stdout.hasSuffix("1 passed, 0 failed\n"), "\(fromPackage.stdout)")
        let binary = packageRoot.appendingPathComponent(".build/debug/dicehost").path
        let fromTests = try runProgram(binary, ["test", "oops.txt"], in: dir + "/tests")
        #expect(fromTests.stdout == "1 passed, 0 failed\n", "\(fromTests.stdout)")
        let fromTemp = try runProgram(binary, ["test", test], in: NSTemporaryDirectory())
        #expect(fromTemp.stdout == "1 passed, 0 failed\n", "\(fromTemp.stdout)")
    }

    @Test func updateNeverRecordsATestWhoseRulesDoNotLoad() throws {
        let test = try writeTemporary("rules: missing.lua\nplayers: Ann\nseed: 1\n\n> roll\n", name: "setup.txt")
        let before = try String(contentsOfFile: test, encoding: .utf8)
        let result = try runDicehost(["test", "--update", test])
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL \(test): the game did not start: cannot read rule script missing.lua"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("0 passed, 1 failed\n"))
        #expect(try String(contentsOfFile: test, encoding: .utf8) == before)
    }

    @Test func playExitsOneOnlyWhenAHookFailed() throws {
        let refused = try runDicehost(["play", "rules/craps.lua", "--seed", "1", "--players", "Ann"], input: "fly\nante\nroll 9 9\nas Bob roll\n")
        #expect(refused.status == 0, "\(refused)")
        let path = try writeTemporary("""
            local r = rules { name = "Broken", players = 1 }
            function r.roll(g, p, roll) return nil + 1 end
            return r
            """, name: "broken.lua")
        let failed = try runDicehost(["play", path, "--seed", "1"], input: "roll\n")
        #expect(failed.status == 1)
    }

    @Test func noColorKeepsTheTerminalLayout() throws {
        let input = try writeTemporary("roll 3\n", name: "input.txt")
        let binary = packageRoot.appendingPathComponent(".build/debug/dicehost").path
        let command = "NO_COLOR=1 \(binary) play examples/rules/pig.lua --seed 7 --players Ann,Bob < \(input)"
        let result = try runProgram("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(result.stdout.contains("── Ann's turn ──"), "\(result.stdout)")
        #expect(!result.stdout.contains("\u{1B}["), "\(result.stdout)")
    }

    @Test func checkWarnsAboutAMisspelledHook() throws {
        let path = try writeTemporary("""
            local r = rules { name = "Typo", players = 1 }
            function r.roll(g, p, roll) end
            function r.on_rol(g, p, roll) end
            return r
            """, name: "typo.lua")
        let result = try runDicehost(["check", path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("warning: unknown rule field 'on_rol' (\(path):1): the host never calls it; did you mean 'roll'?"), "\(result.stdout)")
        #expect(!(try runDicehost(["check", "rules/race.lua"])).stdout.contains("warning"))
    }

    // MARK: dicehost test

    @Test func testFiltersByName() throws {
        let result = try runDicehost(["test", "rules/tests", "-k", "DOUBLES"])
        let expected = try FileManager.default.contentsOfDirectory(atPath: packageRoot.path + "/rules/tests/race-doubles").filter { $0.hasSuffix(".txt") }.count
        #expect(result.stdout == "\(expected) passed, 0 failed\n")
    }

    @Test func testWithNoPathRunsTheRulesAndExamplesCorpora() throws {
        let result = try runDicehost(["test"])
        let count = ["rules/tests", "examples/rules/tests"].map { folder in
            (FileManager.default.enumerator(atPath: packageRoot.path + "/" + folder)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".txt") }.count
        }.reduce(0, +)
        #expect(result.stdout.hasSuffix("\(count) passed, 0 failed\n"), "\(result.stdout)")
    }

    @Test func aFailingTestShowsOnlyTheLinesAroundTheDifference() throws {
        let rules = packageRoot.appendingPathComponent("examples/rules/pig.lua").path
        var lines = ["rules: \(rules)", "players: Ann, Bob", "seed: 1", "", "turn Ann", "say Ann to roll (score 0)"]
        for _ in 0..<10 { lines += ["> state", "state: {turn_total=0}", "Ann: {eliminated=false, score=0}", "Bob: {eliminated=false, score=0}"] }
        lines += ["> roll 5", "roll Ann ⚅", "led blink 5 green on=100ms cycle=50ms count=3 priority=0"]
        let path = try writeTemporary(lines.joined(separator: "\n") + "\n", name: "long.txt")
        let result = try runDicehost(["test", path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("    - roll Ann ⚅\n    + roll Ann ⚄\n"), "\(result.stdout)")
        #expect(result.stdout.components(separatedBy: "> state").count - 1 <= 1, "\(result.stdout)")  // context, not the whole file
        #expect(!result.stdout.contains("say Ann to roll (score 0)"))
    }

    @Test func testWatchRunsAgainWhenATestIsSaved() throws {
        let rules = packageRoot.appendingPathComponent("examples/rules/pig.lua").path
        let good = "rules: \(rules)\nplayers: Ann, Bob\nseed: 1\n\nturn Ann\nsay Ann to roll (score 0)\n"
        let path = try writeTemporary(good, name: "watched.txt")
        let run = try LiveProcess(["test", "--watch", path])
        defer { if run.process.isRunning { run.process.terminate() } }
        #expect(run.waitFor("1 passed, 0 failed") != nil, "\(run.printed)")
        try (good + "> roll 5\nroll Ann ⚅\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(run.waitFor("0 passed, 1 failed") != nil, "\(run.printed)")
        run.process.interrupt()
    }
}

/// Runs any program in `folder` (default: the package).
func runProgram(_ path: String, _ arguments: [String], in folder: String? = nil) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.currentDirectoryURL = folder.map { URL(fileURLWithPath: $0) } ?? packageRoot
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                         stderr: String(decoding: stderr, as: UTF8.self))
}
