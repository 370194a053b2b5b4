import DiceHost
import Foundation
import Testing

/// A two-player duel on 2d6 with one reroll: roll, then keep some dice and roll the
/// others once (`{"roll", keep = ...}`), or stand; the higher total wins, the second
/// player wins a tie (so it is zero-sum and best play has one value).
let keptDiceDuel = """
    local duel = rules { name = "Duel", players = 2, dice = "2d6", keep_dice = true, params = { least = 4 } }
    function duel.setup(g) for _, p in ipairs(g.players) do p.total = 0 end end
    function duel.turn(g, p) g.state.rolls = 0 end
    local function finish(g, p, total)
      p.total = total
      if p ~= g.players[#g.players] then g:next_turn(); return end
      local a, b = g.players[1], g.players[2]
      if a.total > b.total then g:win(a) else g:win(b) end
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

/// Kept dice in `odds` (the bot's keep, exact) and in `solve` (every subset tried).
@Suite struct KeptDiceTests {
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
        var annWins = Rational.zero
        for (a, pa) in totals {
            for (b, pb) in totals where a > b { annWins = annWins + pa * pb }
        }
        #expect(odds.wins[0].exact == annWins)
        #expect(odds.draw.exact == .zero)
        #expect(odds.wins[1].exact == Rational.one - annWins)
    }

    /// The chance that one player's final total is at least `at` when, after a first roll
    /// of `a` and `b`, they stand (a + b) or keep any subset and roll the rest once:
    /// per option, the distribution of the total.
    func choices(_ a: Int, _ b: Int) -> [[Int: Double]] {
        var result: [[Int: Double]] = [[a + b: 1]]  // stand (or keep both)
        for keep in [[Int](), [a], [b]] {
            let rolled = 2 - keep.count
            let outcomes = rolled == 1 ? (1...6).map { [$0] } : (1...6).flatMap { x in (1...6).map { [x, $0] } }
            var totals: [Int: Double] = [:]
            for values in outcomes { totals[keep.reduce(0, +) + values.reduce(0, +), default: 0] += 1 / Double(outcomes.count) }
            result.append(totals)
        }
        return result
    }

    /// Best play of the duel by hand: Bob, knowing Ann's total A, takes the option most
    /// likely to reach A (a tie is his); Ann takes the option that maximises her chance
    /// against that.
    func bobWins(against total: Int) -> Double {
        var sum = 0.0
        for a in 1...6 {
            for b in 1...6 {
                let best = choices(a, b).map { o in o.filter { $0.key >= total }.values.reduce(0, +) }.max() ?? 0
                sum += best / 36
            }
        }
        return sum
    }

    func duelByHand() -> Double {
        var annWins = 0.0
        for a in 1...6 {
            for b in 1...6 {
                let best = choices(a, b).map { o in o.reduce(0) { $0 + $1.value * (1 - bobWins(against: $1.key)) } }.max() ?? 0
                annWins += best / 36
            }
        }
        return annWins
    }

    @Test func solveTriesKeepingEverySubsetOfTheLastRoll() throws {
        var o = BestPlay.Options()
        o.players = ["Ann", "Bob"]
        o.memoryBytes = 256 << 20
        o.writesPolicy = true
        let path = try temporaryRules(keptDiceDuel)
        let best = try BestPlay.solve(rulesFile: path, options: o)
        let byHand = duelByHand()
        #expect(abs(best.wins[0] - byHand) < 1e-9, "solve \(best.wins[0]), by hand \(byHand)")
        #expect(best.moveCounts.contains { $0.0.hasPrefix("roll keep") }, "\(best.moveCounts)")
        // Its policy written as a module answers with keeps a bot can return.
        let policy = try #require(best.policyModule)
        #expect(policy.contains("{\"roll\", keep = {"))
        // ... and, as the bot of both seats, plays back to solve's value.
        let folder = (path as NSString).deletingLastPathComponent
        try policy.write(toFile: folder + "/duel_best.lua", atomically: true, encoding: .utf8)
        let withPolicy = keptDiceDuel.replacingOccurrences(of: "function duel.bot(g, p)\n",
            with: "local best = require(\"duel_best\")\nfunction duel.bot(g, p)\n  do return best.move(g, p) end\n")
        try withPolicy.write(toFile: folder + "/duel_policy.lua", atomically: true, encoding: .utf8)
        let played = try Odds.analyse(rulesFile: folder + "/duel_policy.lua", options: DiceHostTests.options(["Ann", "Bob"]))
        #expect(abs(played.wins[0].double - best.wins[0]) < 1e-9, "policy \(played.wins[0].double), solve \(best.wins[0])")
        // The rules' bot (keep 5s and 6s) in Ann's seat against Bob's best play, by hand.
        // (Keeping 4 or more turns out to be best play for Ann.)
        o.params = [("least", "5")]
        let versus = try BestPlay.versus(rulesFile: path, options: o)
        let botTotals = finalTotals(least: 5)
        let botByHand = botTotals.reduce(0.0) { $0 + $1.value.doubleValue * (1 - bobWins(against: $1.key)) }
        #expect(abs(versus.botInSeat[0][0] - botByHand) < 1e-9, "versus \(versus.botInSeat[0][0]), by hand \(botByHand)")
        #expect(versus.botInSeat[0][0] < best.wins[0])
    }
}

/// A player's own dice (`p.dice`) in `odds`: each roll follows the roller's dice now.
@Suite struct PlayerDiceOddsTests {
    /// Ann rolls her own 3d6 (the declared dice are 2d6), keeps her sixes and rolls the
    /// rest once: all sixes wins. A bot's keep is checked against her three dice.
    @Test func aKeepOfThePlayersOwnDice() throws {
        let path = try temporaryRules("""
            local t = rules { name = "Sixes", players = 2, dice = "2d6", keep_dice = true }
            function t.setup(g) g.state.n = 0; g.players[1].dice = "3d6" end
            function t.roll(g, p, r)
              g.state.n = g.state.n + 1
              if g.state.n < 2 then return end
              local all = true
              for _, v in ipairs(r.values) do if v ~= 6 then all = false end end
              if all then g:win(g.players[1]) else g:win(g.players[2]) end
            end
            function t.bot(g, p)
              if g.state.n == 0 then return "roll" end
              local keep = {}
              for i, v in ipairs(p.last_roll.values) do if v == 6 then keep[#keep + 1] = i end end
              return {"roll", keep = keep}
            end
            return t
            """)
        let odds = try Odds.analyse(rulesFile: path, options: options(["Ann", "Bob"]))
        // Each die ends a six with chance 1/6 + 5/6 · 1/6 = 11/36.
        #expect(odds.wins[0].exact == Rational(11 * 11 * 11, 36 * 36 * 36))
        var o = BestPlay.Options()
        o.players = ["Ann", "Bob"]
        o.memoryBytes = 256 << 20
        let best = try BestPlay.solve(rulesFile: path, options: o)
        #expect(abs(best.wins[0] - 1331.0 / 46656) < 1e-12)
    }

    /// A player who has no dice (p.dice = 0) has no roll move in `solve`; it decides by
    /// its actions alone (Bob guesses, knowing Ann's roll: best play wins every time).
    @Test func solveGivesAPlayerWithoutDiceNoRollMove() throws {
        let path = try temporaryRules("""
            local t = rules { name = "No dice", players = 2, dice = "1d6", choices = { guess = {"high", "low"} } }
            function t.setup(g) g.players[2].dice = 0; g.state.v = 0 end
            function t.roll(g, p, r)
              if p ~= g.players[1] or g.state.v ~= 0 then error("Ann rolls once", 0) end
              g.state.v = r.value; g:next_turn()
            end
            t.actions = { guess = function(g, p, h)
              if p ~= g.players[2] then error("Bob guesses", 0) end
              if (h == "high") == (g.state.v >= 4) then g:win(p) else g:win(g.players[1]) end
            end }
            return t
            """)
        var o = BestPlay.Options()
        o.players = ["Ann", "Bob"]
        o.memoryBytes = 256 << 20
        let best = try BestPlay.solve(rulesFile: path, options: o)
        #expect(abs(best.wins[1] - 1) < 1e-12)
    }

    @Test func aRollFollowsThePlayersDiceNotOnlyTheDeclaredOnes() throws {
        let path = try temporaryRules("""
            local game = rules { name = "Growing", players = 1, dice = "1d6" }
            function game.setup(g) g.state.first = 0 end
            function game.roll(g, p, r)
              if g.state.first == 0 then g.state.first = r.total; p.dice = 2; return end
              if g.state.first + r.total >= 12 then g:win(p) else g:lose(p) end
            end
            return game
            """)
        let odds = try Odds.analyse(rulesFile: path, options: options(["Ann"]))
        // By hand: the first roll a, then 2d6 must reach 12 - a.
        var byHand = Rational.zero
        for a in 1...6 {
            var reach = 0
            for x in 1...6 { for y in 1...6 where a + x + y >= 12 { reach += 1 } }
            byHand = byHand + Rational(1, 6) * Rational(reach, 36)
        }
        #expect(odds.wins[0].exact == byHand)
    }
}

/// `unordered_dice = true`: odds and solve follow each set of values once, weighted by
/// its orders; the same answers, and a script that keeps the order is caught.
@Suite struct UnorderedDiceTests {
    /// Highest die of 3d6 against the opponent's; the rules read the dice as a set.
    static func highest(declared: Bool, sorted: Bool) -> String {
        """
        local t = rules { name = "High", players = 2, dice = "3d6"\(declared ? ", unordered_dice = true" : "") }
        function t.setup(g) for _, p in ipairs(g.players) do p.best = 0 end end
        function t.roll(g, p, r)
          local dice = {}
          for i, v in ipairs(r.values) do dice[i] = v end
          \(sorted ? "table.sort(dice)" : "")
          p.dice_seen = dice
          for _, v in ipairs(dice) do if v > p.best then p.best = v end end
          if p == g.players[1] then g:next_turn(); return end
          local a, b = g.players[1], g.players[2]
          if a.best > b.best then g:win(a) elseif b.best > a.best then g:win(b) else g:draw() end
        end
        return t
        """
    }

    @Test func aSetOfValuesOnceGivesTheSameExactOdds() throws {
        let ordered = try Odds.analyse(rulesFile: try temporaryRules(Self.highest(declared: false, sorted: true)), options: options(["Ann", "Bob"]))
        let unordered = try Odds.analyse(rulesFile: try temporaryRules(Self.highest(declared: true, sorted: true)), options: options(["Ann", "Bob"]))
        #expect(unordered.wins[0].exact == ordered.wins[0].exact)
        #expect(unordered.draw.exact == ordered.draw.exact)
        // By hand: P(max of 3d6 = k) = (k³ - (k-1)³) / 216.
        let p = (1...6).map { Rational($0 * $0 * $0 - ($0 - 1) * ($0 - 1) * ($0 - 1), 216) }
        var draw = Rational.zero
        for k in 0..<6 { draw = draw + p[k] * p[k] }
        #expect(unordered.draw.exact == draw)
        #expect(unordered.states == ordered.states && unordered.transitions == ordered.transitions)
        var o = BestPlay.Options()
        o.players = ["Ann", "Bob"]
        o.memoryBytes = 256 << 20
        let best = try BestPlay.solve(rulesFile: try temporaryRules(Self.highest(declared: true, sorted: true)), options: o)
        #expect(abs(best.draw - draw.doubleValue) < 1e-12)
    }

    @Test func aScriptThatKeepsTheOrderIsRefused() throws {
        let path = try temporaryRules(Self.highest(declared: true, sorted: false))
        #expect {
            _ = try Odds.analyse(rulesFile: path, options: options(["Ann", "Bob"]))
        } throws: { error in
            "\(error)".contains("unordered_dice") && "\(error)".contains("reach different positions")
        }
        var o = BestPlay.Options()
        o.players = ["Ann", "Bob"]
        o.memoryBytes = 256 << 20
        #expect { _ = try BestPlay.solve(rulesFile: path, options: o) } throws: { "\($0)".contains("unordered_dice") }
    }
}
