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
        #expect(result.stdout.contains("warning: unknown rule field 'on_rol' (\(path):3): the host never calls it; did you mean 'roll'?"), "\(result.stdout)")
        #expect(!(try runDicehost(["check", "rules/race.lua"])).stdout.contains("warning"))
    }

    @Test func newWritesAGameWhoseTestPassesAtOnce() throws {
        let dir = try folder()
        let binary = packageRoot.appendingPathComponent(".build/debug/dicehost").path
        let made = try runProgram(binary, ["new", "dice-duel"], in: dir)
        #expect(made.status == 0, "\(made)")
        #expect(made.stdout.hasPrefix("created dice-duel.lua and tests/dice-duel/first-turns.txt\n"))
        let tested = try runProgram(binary, ["test"], in: dir)
        #expect(tested.stdout == "1 passed, 0 failed\n", "\(tested)")
        let check = try runProgram(binary, ["check", "dice-duel.lua"], in: dir)
        #expect(check.stdout.hasPrefix("dice-duel.lua: ok\nDice Duel: 2-4 players, dice 1d6\n") && !check.stdout.contains("warning"), "\(check.stdout)")
        let auto = try runProgram(binary, ["play", "dice-duel.lua", "--auto", "--seed", "2"], in: dir)
        #expect(auto.status == 0 && auto.stdout.hasSuffix("win Ann\n") || auto.stdout.hasSuffix("win Bob\n"), "\(auto.stdout.suffix(200))")
        let again = try runProgram(binary, ["new", "dice-duel"], in: dir)
        #expect(again.status == 2 && again.stderr.contains("exists already"))
        #expect(try runProgram(binary, ["new", "../escape"], in: dir).status == 2)
    }

    @Test func theHelpListsEveryCommandWithItsOptions() throws {
        let help = try runDicehost(["--help"])
        #expect(help.status == 0)
        for usage in ["dicehost play <rules> [--players <players>]", "dicehost test [<paths> ...] [-k <k>] [--update] [--accept-errors] [--watch]",
                      "dicehost sim run [<options>] <rules>", "dicehost sim merge <files> ...", "dicehost check <rules> [--set <set> ...]", "dicehost new <name>"] {
            #expect(help.stdout.contains(usage), "\(usage)")
        }
        let sim = try runDicehost(["sim", "--help"])
        #expect(sim.stdout.contains("--games <games>") && sim.stdout.contains("--move-limit") && sim.stdout.contains("--csv <csv>")
                && sim.stdout.contains("--sweep <sweep>") && sim.stdout.contains("dicehost sim merge"), "\(sim.stdout)")
    }

    @Test func simWritesOneCSVRowPerGame() throws {
        let dir = try folder()
        let csv = dir + "/games.csv"
        let result = try runDicehost(["sim", "rules/craps.lua", "--games", "300", "--seed", "5", "--csv", csv, "--threads", "2"])
        #expect(result.status == 0, "\(result)")
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "rules,game,seed,outcome,winner,rolls,turns,lost,won")
        #expect(lines.count == 301)
        #expect(lines[1].hasPrefix("rules/craps.lua,0,"))
        let wins = lines.dropFirst().filter { $0.contains(",win,Ann,") }.count
        #expect(result.stdout.contains("  Ann wins" + String(repeating: " ", count: 6 + 9 - "\(wins)".count) + "\(wins) "), "\(result.stdout)")
        #expect(result.stdout.contains("mean per record [95% CI]"))
        // Again: the CSV it wrote is replaced; another file is not, unless forced.
        #expect(try runDicehost(["sim", "rules/craps.lua", "--games", "10", "--seed", "5", "--csv", csv]).status == 0)
        try "keep me\n".write(toFile: csv, atomically: true, encoding: .utf8)
        #expect(try runDicehost(["sim", "rules/craps.lua", "--games", "10", "--seed", "5", "--csv", csv]).status == 2)
        #expect(try String(contentsOfFile: csv, encoding: .utf8) == "keep me\n")
        #expect(try runDicehost(["sim", "rules/craps.lua", "--games", "10", "--csv", "rules/craps.lua", "--force"]).status == 2)
    }

    @Test func ctrlCDuringSimPrintsThePartialResult() throws {
        let run = try LiveProcess(["sim", "rules/craps.lua", "--games", "2000000", "--seed", "1", "--threads", "1"])
        defer { if run.process.isRunning { run.process.terminate() } }
        usleep(1_500_000)
        run.process.interrupt()
        run.process.waitUntilExit()
        #expect(run.process.terminationStatus == 1)
        #expect(run.waitFor("PARTIAL RESULT: stopped by Ctrl-C after ") != nil, "\(run.printed)")
        #expect(run.printed.contains(" of 2000000 games"))
        #expect(run.printed.contains("(games 0..<"))
    }

    @Test func progressBarFitsANarrowTerminalOnOneLine() throws {
        let binary = packageRoot.appendingPathComponent(".build/debug/dicehost").path
        let command = "stty cols 40; \(binary) sim rules/race.lua --games 20000 --seed 1 --threads 1 > /dev/null"
        let result = try runProgram("/usr/bin/script", ["-qec", command, "/dev/null"])
        let drawn = result.stdout.components(separatedBy: "\r").map { $0.replacingOccurrences(of: "\u{1B}[K", with: "") }
            .filter { $0.contains("left") }
        #expect(!drawn.isEmpty, "\(result.stdout.debugDescription)")
        for line in drawn { #expect(line.count <= 39 && !line.contains("\n"), "\(line.debugDescription)") }
    }

    @Test func rollKeepAndRedoAtThePrompt() throws {
        let path = try writeTemporary("""
            local y = rules { name = "Keep", players = 1, dice = "3d6" }
            function y.roll(g, p, r) g:say("kept %s", r.kept and table.concat(r.kept, ",") or "none") end
            return y
            """, name: "keep.lua")
        let result = try runDicehost(["play", path, "--seed", "1"], input: "roll 6 2 6\nroll keep 1 3\nroll keep 4\nundo 2\nredo\nparams\n")
        #expect(result.stdout.contains("roll Ann ⚅ ⚁ ⚅ = 14\nsay kept none\n"), "\(result.stdout)")
        #expect(result.stdout.contains("say kept 1,3\n"))
        #expect(result.stdout.contains("error: roll keep: positions are 1 to 3 for 3d6, got 4\n"))
        #expect(result.stdout.contains("undone: roll keep 1 3\nundone: roll 6 2 6\nredo: roll 6 2 6\nroll Ann ⚅ ⚁ ⚅ = 14\n"))
        #expect(result.stdout.hasSuffix("dice = 3d6\n"))
    }

    // MARK: dicehost test

    @Test func testFiltersByName() throws {
        let result = try runDicehost(["test", "rules/tests", "-k", "DOUBLES"])
        let expected = try FileManager.default.contentsOfDirectory(atPath: packageRoot.path + "/rules/tests/race-doubles").filter { $0.hasSuffix(".txt") }.count
        #expect(result.stdout == "\(expected) passed, 0 failed\n")
    }

    @Test func testWithNoPathRunsTheRulesAndExamplesCorpora() throws {
        let result = try runDicehost(["test"])
        let count = ["rules/tests", "examples/rules/tests", "examples/dice-games/tests"].map { folder in
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
        run.process.interrupt()  // Ctrl-C leaves, even when the test runner hands SIGINT down blocked
        #expect(run.finish() != 0 || !run.process.isRunning)
    }
}

/// Runs any program in `folder` (default: the package), with `environment` instead of
/// this process's when given.
func runProgram(_ path: String, _ arguments: [String], in folder: String? = nil,
                environment: [String: String]? = nil) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.currentDirectoryURL = folder.map { URL(fileURLWithPath: $0) } ?? packageRoot
    if let environment { process.environment = environment }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let errorReader = PipeReader(err.fileHandleForReading)  // both pipes drained at once, as in runDicehost
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = errorReader.wait()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                         stderr: String(decoding: stderr, as: UTF8.self))
}
