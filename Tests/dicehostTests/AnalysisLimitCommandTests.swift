import Foundation
import Testing

/// What `odds`, `solve` and `check` say at a limit, and their progress where standard
/// error is not a terminal.
@Suite struct AnalysisLimitCommandTests {
    static let pig = "Tests/AnalysisFixtures/pig-roll-counter.lua"

    @Test func solveAtTheStateLimitNamesWhatGrowsAndTheFlag() throws {
        let result = try runDicehost(["solve", Self.pig, "--set", "target=30", "--max-states", "3000", "--quiet"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("more than 3000 positions") && result.stderr.contains("raise --max-states"), "\(result.stderr)")
        #expect(result.stderr.contains("g.state.rolls: ") && result.stderr.contains("declare statistics = {\"rolls\"}"), "\(result.stderr)")
        #expect(!result.stderr.contains("not analysable"), "\(result.stderr)")
    }

    @Test func checkWarnsAboutACounterPlayNeverReads() throws {
        let result = try runDicehost(["check", Self.pig])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("odds: analysable as far as checked (200 positions; there are more)"), "\(result.stdout)")
        #expect(result.stdout.contains("\nwarning: the fields with the most values") && result.stdout.contains("Play never reads rolls in ") && result.stdout.contains("statistics = {\"rolls\"}"), "\(result.stdout)")
    }

    @Test func oddsWritesAProgressLineEveryIntervalWhenStandardErrorIsNotATerminal() throws {
        let result = try runDicehost(["odds", "examples/rules/pig.lua", "--set", "target=30"], environment: ["DICEHOST_PROGRESS_SECONDS": "0.05"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(!lines.isEmpty, "no progress lines")
        for line in lines {
            #expect(line.hasPrefix("examples/rules/pig.lua: ") && line.contains(" s, ") && line.contains("MiB"), "\(line)")
        }
        #expect(lines.contains { $0.contains("exploring: ") && $0.contains("positions/s") }, "\(lines)")
        #expect(!result.stderr.contains("\r") && !result.stderr.contains("\u{1B}"), "a terminal's redraw in a log")
    }

    @Test func quietWritesNoProgress() throws {
        let result = try runDicehost(["odds", "examples/rules/pig.lua", "--set", "target=30", "--quiet"], environment: ["DICEHOST_PROGRESS_SECONDS": "0.05"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    @Test func aBadIntervalIsBadUsage() throws {
        let result = try runDicehost(["odds", "rules/race.lua", "--set", "target=5"], environment: ["DICEHOST_PROGRESS_SECONDS": "0"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("DICEHOST_PROGRESS_SECONDS must be a number of seconds from 0.05 to 86400, got '0'"), "\(result.stderr)")
    }
}
