import DiceHost
import Foundation
import Testing

/// A roll with more outcomes than `--max-roll-outcomes` stops `odds` and `solve` with a
/// message naming the limit and its flag (not "not analysable"); raised, the game is
/// answered.
@Suite struct RollOutcomeLimitTests {
    /// Three dice (216 outcomes); a player whose last die is 6 wins, else loses.
    static let threeDice = """
        local t = rules { name = "Three dice", players = 1, dice = "3d6" }
        function t.roll(g, p, r)
          if r.values[3] == 6 then g:win(p) else g:lose(p) end
        end
        return t
        """

    @Test func oddsRefusesARollAboveTheLimitNamingTheFlag() throws {
        var o = options(["Ann"])
        o.maxRollOutcomes = 215
        let file = try temporaryRules(Self.threeDice)
        let error = #expect(throws: OddsError.self) { try Odds.analyse(rulesFile: file, options: o) }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("a roll of 3d6 has 216 outcomes, more than the 215 followed"), "\(text)")
        #expect(text.contains("--max-roll-outcomes"), "\(text)")
        #expect(!text.contains("not analysable"), "\(text)")
    }

    @Test func oddsAnswersOnceTheLimitIsRaisedToTheRoll() throws {
        var o = options(["Ann"])
        o.maxRollOutcomes = 216
        let result = try Odds.analyse(rulesFile: try temporaryRules(Self.threeDice), options: o)
        #expect(result.wins[0].exact == Rational(1, 6), "\(result.wins[0].text)")
    }

    @Test func solveHonoursTheLimitToo() throws {
        var o = BestPlay.Options()
        o.players = ["Ann"]
        o.memoryBytes = 256 << 20
        o.maxRollOutcomes = 100
        let file = try temporaryRules(Self.threeDice)
        let error = #expect(throws: OddsError.self) { try BestPlay.solve(rulesFile: file, options: o) }
        #expect(error.map { "\($0)" }?.contains("raise --max-roll-outcomes") == true, "\(String(describing: error))")
        o.maxRollOutcomes = 216
        let best = try BestPlay.solve(rulesFile: file, options: o)
        #expect(abs(best.wins[0] - 1.0 / 6) < 1e-12, "\(best.wins)")
    }

    @Test func theDefaultFollowsSixDice() {
        #expect(Odds.defaultMaxRollOutcomes == 46_656)
        #expect(Odds.Options().maxRollOutcomes == Odds.defaultMaxRollOutcomes)
        #expect(BestPlay.Options().maxRollOutcomes == Odds.defaultMaxRollOutcomes)
    }
}
