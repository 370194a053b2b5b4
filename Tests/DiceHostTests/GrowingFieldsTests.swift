import DiceHost
import Foundation
import Testing

/// A stop at --max-states (or the memory budget) names the fields whose values keep
/// changing across the positions found, and suggests `statistics` for those play never reads.
@Suite struct GrowingFieldsTests {
    static let pig = "Tests/AnalysisFixtures/pig-roll-counter.lua"

    func stop(_ run: () throws -> Void) throws -> OddsError {
        do { try run() } catch let error as OddsError { return error }
        Issue.record("the analysis did not stop")
        throw CancellationError()
    }

    @Test func oddsStoppedByTheStateLimitNamesTheRollCounterAndSuggestsStatistics() throws {
        var o = options(["Ann", "Bob"], [("target", "30")])
        o.maxStates = 3_000
        let error = try stop { _ = try Odds.analyse(rulesFile: Self.pig, options: o) }
        guard case .tooManyStates(3_000, _, _) = error else { Issue.record("\(error)"); return }
        let growth = try #require(error.growth, "\(error)")
        #expect(growth.fields.contains { $0.path == "g.state.rolls" }, "\(growth.fields)")
        #expect(growth.unread == ["rolls"], "\(growth)")
        let text = "\(error)"
        #expect(text.contains("raise --max-states"), "\(text)")
        #expect(text.contains("g.state.rolls: ") && text.contains("statistics = {\"rolls\"}"), "\(text)")
        #expect(!text.contains("not analysable"), "\(text)")
    }

    @Test func solveStoppedByTheStateLimitSaysTheSame() throws {
        var o = BestPlay.Options()
        o.players = ["Ann", "Bob"]
        o.params = [("target", "30")]
        o.memoryBytes = 256 << 20
        o.maxStates = 3_000
        let error = try stop { _ = try BestPlay.solve(rulesFile: Self.pig, options: o) }
        #expect(error.growth?.unread == ["rolls"], "\(error)")
    }

    /// Declared, the counter is left out of solve's positions: nothing is suggested again.
    @Test func aDeclaredStatisticIsNotSuggestedAgain() throws {
        let source = try String(contentsOfFile: Self.pig, encoding: .utf8)
            .replacingOccurrences(of: "params = { target = 20, hold = 10 },", with: "params = { target = 20, hold = 10 }, statistics = {\"rolls\"},")
        #expect(source.contains("statistics = {\"rolls\"}"))
        var o = BestPlay.Options()
        o.players = ["Ann", "Bob"]
        o.params = [("target", "40")]
        o.memoryBytes = 256 << 20
        o.maxStates = 3_000
        let error = try stop { _ = try BestPlay.solve(rulesFile: try temporaryRules(source), options: o) }
        #expect(!(error.growth?.unread.contains("rolls") ?? false), "\(error)")
        #expect(!(error.growth?.fields.contains { $0.path == "g.state.rolls" } ?? false), "\(error)")
    }

    /// Fields play reads (the turn total, the scores) are named but never suggested.
    @Test func fieldsPlayReadsAreNotSuggested() throws {
        var o = options(["Ann", "Bob"], [("target", "100")])
        o.maxStates = 2_000
        let error = try stop { _ = try Odds.analyse(rulesFile: "examples/rules/pig.lua", options: o) }
        let growth = try #require(error.growth, "\(error)")
        #expect(growth.unread.isEmpty, "\(growth)")
        #expect(growth.fields.contains { $0.path == "g.state.turn_total" }, "\(growth.fields)")
        #expect(!"\(error)".contains("statistics ="), "\(error)")
    }

    @Test func checkWarnsAboutAFieldPlayNeverReads() {
        let verdict = Odds.analysability(rulesFile: Self.pig)
        guard case .undecided(_, let growth) = verdict else { Issue.record("\(verdict)"); return }
        #expect(growth?.unread == ["rolls"], "\(verdict)")
        #expect(verdict.description.contains("\nwarning: ") && verdict.description.contains("statistics = {\"rolls\"}"), "\(verdict.description)")
    }

    @Test func numbersAreGroupedByThousands() {
        #expect(GrowingFields(fields: [.init(path: "g.state.round", name: "round", values: 1214, late: 40)], stillGrowing: true,
                              sampled: 4000, found: 200_000, unread: [], checkedGames: 0).text
                == "what keeps growing, in 4,000 of the 200,000 positions found (in the order found): g.state.round: 1,214 values (40 new in the last fifth)")
    }
}
