import DiceHost
import Testing

/// `odds` counts rolls that only reached what another position's rolls had reached:
/// positions that differ in history kept for show.
@Suite struct RepeatedRollsTests {
    /// One player races to `target` on 1d6; `keepingLast` keeps the last value in g.state
    /// for show (read by nothing).
    static func race(keepingLast: Bool) -> String {
        """
        local race = rules { name = "Race", players = {1, 1}, dice = "1d6", params = { target = 12 } }
        function race.setup(g) g.state.score = 0 end
        function race.roll(g, p, r)
          g.state.score = g.state.score + r.value
          \(keepingLast ? "g.state.last = r.value" : "")
          if g.state.score >= g.params.target then g:win(p) end
        end
        return race
        """
    }

    @Test func historyKeptForShowIsCountedAndChangesNoOdds() throws {
        let kept = try Odds.analyse(rulesFile: try temporaryRules(Self.race(keepingLast: true)), options: options(["Ann"]))
        let clean = try Odds.analyse(rulesFile: try temporaryRules(Self.race(keepingLast: false)), options: options(["Ann"]))
        // By hand: scores 0...11 roll; with the last value kept, score s (1...11) is one
        // position per last value that can reach it (min(s, 6)), all rolling alike.
        let scores = 0..<12
        let withHistory = 1 + (1..<12).map { min($0, 6) }.reduce(0, +)
        #expect(clean.repeatedRolls == RepeatedRolls.counted(positions: scores.count, rolled: 6, repeated: 0))
        #expect(kept.repeatedRolls == RepeatedRolls.counted(positions: withHistory, rolled: 6, repeated: withHistory - scores.count))
        #expect(kept.rolls?.exact != nil)
        #expect(kept.rolls?.exact == clean.rolls?.exact)
        #expect(kept.wins[0].exact == clean.wins[0].exact)
    }

    @Test func theNoteIsForWhenRepeatsAreMostOfTheWork() {
        var r = RepeatedRolls()
        r.rollsPlayed = 100_000
        r.repeatedRollsPlayed = 19_999
        #expect(!r.isLarge)  // under a fifth
        r.repeatedRollsPlayed = 20_000
        #expect(r.isLarge)
        r = RepeatedRolls()
        r.rollsPlayed = 9_999
        r.repeatedRollsPlayed = 9_999
        #expect(!r.isLarge)  // too few to matter
        r.repeatedPositions = 1_666
        r.positions = 1_667
        r.rollsPlayed = 60_000
        r.repeatedRollsPlayed = 59_994
        #expect(r.advice.hasPrefix("note: 59994 of the 60000 rolls played (99%) came from 1666 positions that roll exactly as another"))
    }
}

extension RepeatedRolls {
    static func counted(positions: Int, rolled outcomes: Int, repeated: Int) -> RepeatedRolls {
        var r = RepeatedRolls()
        r.positions = positions
        r.rollsPlayed = positions * outcomes
        r.repeatedPositions = repeated
        r.repeatedRollsPlayed = repeated * outcomes
        return r
    }
}
