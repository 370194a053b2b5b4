import DiceHost
import Foundation
import Testing

/// A two-player duel on 2d6 with one reroll: roll, then keep some dice and roll the
/// others once (`{"roll", keep = ...}`), or stand; the higher total wins.
let keptDiceDuel = """
    local duel = rules { name = "Duel", players = 2, dice = "2d6", keep_dice = true, params = { least = 4 } }
    function duel.setup(g) for _, p in ipairs(g.players) do p.total = 0 end end
    function duel.turn(g, p) g.state.rolls = 0 end
    local function finish(g, p, total)
      p.total = total
      if p ~= g.players[#g.players] then g:next_turn(); return end
      local a, b = g.players[1], g.players[2]
      if a.total > b.total then g:win(a) elseif b.total > a.total then g:win(b) else g:draw() end
    end
    function duel.roll(g, p, r)
      if g.state.rolls == 1 and not r.kept then error("keep some dice ('roll keep 1') or stand", 0) end
      g.state.rolls = g.state.rolls + 1
      if g.state.rolls == 2 then finish(g, p, r.total) end
    end
    duel.actions = {
      stand = function(g, p)
        if g.state.rolls ~= 1 then error("roll first", 0) end
        finish(g, p, p.last_roll.total)
      end,
    }
    -- Keep the dice showing `least` or more; stand when both do.
    function duel.bot(g, p)
      if g.state.rolls == 0 then return "roll" end
      local keep = {}
      for i, v in ipairs(p.last_roll.values) do if v >= g.params.least then keep[#keep + 1] = i end end
      if #keep == 2 then return "stand" end
      return {"roll", keep = keep}
    end
    return duel
    """

@Suite struct KeptDiceOddsTests {
    /// The duel's final total under its bot, by hand: every first roll, then every
    /// outcome of the dice rolled again.
    func finalTotals(least: Int) -> [Int: Rational] {
        var totals: [Int: Rational] = [:]
        for a in 1...6 {
            for b in 1...6 {
                let first = Rational(1, 36)
                let kept = [a, b].filter { $0 >= least }
                if kept.count == 2 { totals[a + b] = (totals[a + b] ?? .zero) + first; continue }
                let rolled = 2 - kept.count
                let outcomes = rolled == 1 ? (1...6).map { [$0] } : (1...6).flatMap { x in (1...6).map { [x, $0] } }
                for values in outcomes {
                    let total = kept.reduce(0, +) + values.reduce(0, +)
                    totals[total] = (totals[total] ?? .zero) + first * Rational(1, outcomes.count)
                }
            }
        }
        return totals
    }

    @Test(arguments: [4, 5])
    func aKeptRollIsAChanceNodeOverTheDiceNotKept(least: Int) throws {
        let path = try temporaryRules(keptDiceDuel)
        let odds = try Odds.analyse(rulesFile: path, options: options(["Ann", "Bob"], [("least", "\(least)")]))
        #expect(odds.exact)
        let totals = finalTotals(least: least)
        var annWins = Rational.zero, draw = Rational.zero
        for (a, pa) in totals {
            for (b, pb) in totals {
                if a > b { annWins = annWins + pa * pb } else if a == b { draw = draw + pa * pb }
            }
        }
        #expect(odds.wins[0].exact == annWins)
        #expect(odds.draw.exact == draw)
        #expect(odds.wins[1].exact == Rational.one - annWins - draw)
    }
}
