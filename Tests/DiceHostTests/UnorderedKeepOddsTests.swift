import DiceHost
import Foundation
import Testing

/// `odds` of a kept roll under `unordered_dice` plays each set of values rolled again once,
/// weighted by its orders: every figure equals the same game's with the flag off, and it
/// plays fewer rolls.
@Suite struct UnorderedKeepOddsTests {
    /// One turn: roll three d4, then up to twice keep the most common value (its places)
    /// and roll the rest; three alike win, recording each roll's total. Sorted in the hook,
    /// `r.value` and `r.kept` cleared, so the order of the dice never shows.
    static func turn(unordered: Bool) -> String {
        """
        local t = rules { name = "Keep turn", players = 1, dice = "3d4", keep_dice = true, unordered_dice = \(unordered) }
        function t.setup(g) g.state.rolls = 0 end
        function t.roll(g, p, r)
          table.sort(r.values)
          r.value = r.values[1]
          r.kept = nil
          g.state.rolls = g.state.rolls + 1
          g:record("total", r.total)
          local v = r.values
          if v[1] == v[3] then g:win(p) elseif g.state.rolls == 3 then g:lose(p) end
        end
        function t.bot(g, p)
          if g.state.rolls == 0 then return "roll" end
          local v = p.last_roll.values
          local best = v[2]
          local keep = {}
          for i = 1, 3 do if v[i] == best then keep[#keep + 1] = i end end
          return {"roll", keep = keep}
        end
        return t
        """
    }

    @Test func aKeptRollCountsEachSetByItsOrders() throws {
        let on = try Odds.analyse(rulesFile: try temporaryRules(Self.turn(unordered: true)), options: options(["Ann"]))
        let off = try Odds.analyse(rulesFile: try temporaryRules(Self.turn(unordered: false)), options: options(["Ann"]))
        UnorderedDiceWeightTests.expectSameFigures(on, off, "keep turn")
        #expect(on.wins.first?.exact != nil)
        // 196 plays: each set once (a kept roll played as ordered tuples made it 244; the
        // flag off, 288).
        #expect(on.repeatedRolls.rollsPlayed == 196, "\(on.repeatedRolls.rollsPlayed) plays with the flag on")
        #expect(off.repeatedRolls.rollsPlayed == 288, "\(off.repeatedRolls.rollsPlayed) plays with the flag off")
    }
}
