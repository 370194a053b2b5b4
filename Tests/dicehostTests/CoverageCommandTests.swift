import Foundation
import Testing

/// `dicehost test --coverage [--lcov FILE]` and `dicehost fuzz --coverage`: the lines of
/// each rule script that ran, the lines that never did, and an lcov tracefile.
@Suite struct CoverageCommandTests {
    /// A mkdtemp folder with a rule script whose six-wins branch (line 4) the test
    /// below never takes, and that test.
    func corpus() throws -> (folder: String, rules: String, test: String) {
        var template = Array((NSTemporaryDirectory() + "/dicehost-coverage-cli-XXXXXX").utf8CString)
        let folder = try #require(mkdtemp(&template).map { String(cString: $0) })
        let rules = folder + "/cover.lua"
        try """
            local cover = rules { name = "Cover", players = {2, 2}, dice = "1d6" }
            function cover.roll(g, p, r)
              if r.value == 6 then
                g:win(p)
              else
                g:next_turn()
              end
            end
            return cover

            """.write(toFile: rules, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: folder + "/tests", withIntermediateDirectories: true)
        let test = folder + "/tests/low-rolls-pass.txt"
        try """
            # output: unchecked
            rules: ../cover.lua
            players: Ann, Bob
            seed: 1

            > roll 2
            > roll 3

            """.write(toFile: test, atomically: true, encoding: .utf8)
        return (folder, rules, test)
    }

    @Test func coverageNamesTheLinesTheTestsNeverRan() throws {
        let (_, rules, test) = try corpus()
        let result = try runDicehost(["test", "--coverage", test])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let full = URL(fileURLWithPath: rules).standardizedFileURL.path
        #expect(result.stdout.contains("coverage \(full): 6 of 7 lines run (85%); never run: 4\n"), "\(result.stdout)")
        // The summary stays the last line.
        #expect(result.stdout.hasSuffix("1 passed, 0 failed\n"), "\(result.stdout)")
    }

    @Test func aScriptBesideTheRulesThatNoTestRunsIsReportedAsNeverRun() throws {
        let (folder, _, test) = try corpus()
        try "local unused = rules { name = \"Unused\" }\nreturn unused\n".write(toFile: folder + "/unused.lua", atomically: true, encoding: .utf8)
        let result = try runDicehost(["test", "--coverage", test])
        let full = URL(fileURLWithPath: folder + "/unused.lua").standardizedFileURL.path
        #expect(result.stdout.contains("coverage \(full): 0 of 2 lines run (0%); never run: 1-2\n"), "\(result.stdout)")
    }

    @Test func lcovWritesEveryExecutableLineWithItsHits() throws {
        let (folder, rules, test) = try corpus()
        let lcov = folder + "/lcov.info"
        let result = try runDicehost(["test", "--lcov", lcov, test])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let text = try String(contentsOfFile: lcov, encoding: .utf8)
        let full = URL(fileURLWithPath: rules).standardizedFileURL.path
        // Line 8, the function's `end`: its closure made once, and both rolls returning there.
        #expect(text == "TN:\nSF:\(full)\nDA:1,1\nDA:2,1\nDA:3,2\nDA:4,0\nDA:6,2\nDA:8,3\nDA:9,1\nLF:7\nLH:6\nend_of_record\n")
    }

    @Test func lcovRefusesAFolderAndLeavesItAlone() throws {
        let (folder, _, test) = try corpus()
        let target = folder + "/tests"
        let result = try runDicehost(["test", "--lcov", target, test])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--lcov: cannot write \(target)"), "\(result.stderr)")
        #expect(result.stderr.contains("not a regular file"), "\(result.stderr)")
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: target, isDirectory: &isFolder) && isFolder.boolValue)
    }

    @Test func fuzzCoverageReportsWhatRandomPlayReached() throws {
        let (_, rules, _) = try corpus()
        let result = try runDicehost(["fuzz", rules, "--inputs", "30", "--coverage", "--quiet"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let full = URL(fileURLWithPath: rules).standardizedFileURL.path
        // Random play rolls a six sooner or later: every line runs.
        #expect(result.stdout.contains("coverage \(full): 7 of 7 lines run (100%)\n"), "\(result.stdout)")
        let json = try runDicehost(["fuzz", rules, "--inputs", "30", "--coverage", "--json"])
        #expect(json.stdout.contains("\"coverage\""), "\(json.stdout)")
        #expect(json.stdout.contains("\"never_run\""), "\(json.stdout)")
    }
}
