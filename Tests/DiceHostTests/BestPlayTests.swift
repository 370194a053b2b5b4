import DiceHost
import Foundation
import Testing

/// `dicehost solve` against answers worked out here, independently of the code under test.
@Suite struct BestPlayTests {
    func solveOptions(_ players: [String], _ params: [(String, String)] = []) -> BestPlay.Options {
        var o = BestPlay.Options()
        o.players = players
        o.params = params
        o.memoryBytes = 256 << 20
        return o
    }

    /// One decision: bet 1, 2, 3 or 6, then one roll wins when it is at most the bet.
    /// The rules refuse a bet above 3 (and a second bet, and a roll before a bet), so the
    /// best legal play is bet 3: 1/2. Choosing the refused bet 6 would claim 1.
    static let oneBet = """
        local game = rules { name = "One bet", players = 1, choices = { bet = {1, 2, 3, 6} } }
        function game.setup(g) g.state.bet = 0 end
        game.actions = {
          bet = function(g, p, k)
            if g.state.bet > 0 then error("you have bet already", 0) end
            if k > 3 then error("the most you may bet is 3", 0) end
            g.state.bet = k
          end,
        }
        function game.roll(g, p, r)
          if g.state.bet == 0 then error("bet first", 0) end
          if r.value <= g.state.bet then g:win(p) else g:lose(p) end
        end
        return game
        """

    @Test func aOneDecisionGameTakesTheBestLegalMoveNotARefusedOne() throws {
        let best = try BestPlay.solve(rulesFile: try temporaryRules(Self.oneBet), options: solveOptions(["Ann"]))
        // By hand: max over the legal bets k of k/6.
        let byHand = [1, 2, 3].map { Double($0) / 6 }.max() ?? 0
        #expect(abs(best.wins[0] - byHand) < 1e-12)
        #expect(best.firstMove == "bet 3")
        #expect(best.converged)
    }

    /// Pig to `target` by a value iteration written here: P(i, j, k) is the chance that the
    /// player to move, with score i against j and turn total k, wins under best play.
    func pigByHand(target: Int) -> Double {
        var p = [[[Double]]](repeating: [[Double]](repeating: [Double](repeating: 0, count: target), count: target), count: target)
        var change = 1.0
        while change > 1e-14 {
            change = 0
            for i in 0..<target {
                for j in 0..<target {
                    for k in 0..<(target - i) {
                        var roll = (1 - p[j][i][0]) / 6
                        for face in 2...6 {
                            roll += (i + k + face >= target ? 1 : p[i][j][k + face]) / 6
                        }
                        let hold = 1 - p[j][i + k][0]
                        let value = max(roll, hold)
                        change = max(change, abs(value - p[i][j][k]))
                        p[i][j][k] = value
                    }
                }
            }
        }
        return p[0][0][0]
    }

    @Test func pigToTenMatchesAValueIterationWrittenHere() throws {
        let best = try BestPlay.solve(rulesFile: "examples/rules/pig.lua", options: solveOptions(["Ann", "Bob"], [("target", "10")]))
        let byHand = pigByHand(target: 10)
        #expect(abs(best.wins[0] - byHand) < 1e-9, "solve \(best.wins[0]), by hand \(byHand)")
        #expect(abs(best.wins[1] - (1 - byHand)) < 1e-9)
        #expect(best.converged && best.residual <= best.tolerance)
        #expect(best.firstMove == "roll")
        // Best play is not the bot's: holding at 5 both, Ann's chance is another number.
        let bots = try Odds.analyse(rulesFile: "examples/rules/pig.lua", options: DiceHostTests.options(["Ann", "Bob"], [("target", "10"), ("hold", "5")]))
        #expect(abs(bots.wins[0].double - byHand) > 1e-6)
    }

    @Test func aHiddenStateGameIsRefusedAsOddsRefusesIt() throws {
        let path = try temporaryRules("""
            local game = rules { name = "Lucky", players = 1 }
            function game.setup(g) g.state.n = 0 end
            function game.roll(g, p, r) if math.random(2) == 1 then g:win(p) end end
            return game
            """)
        #expect(throws: OddsError.self) { try BestPlay.solve(rulesFile: path, options: solveOptions(["Ann"])) }
    }

    /// Ann's chance in Pig to `target` when she holds at `hold` (the rules' bot) and Bob
    /// plays his best reply, by a value iteration written here. v[mover][a][b][k] is Ann's
    /// chance with Ann's score a, Bob's b, the mover's turn total k.
    func pigBotAgainstBest(target: Int, hold: Int) -> Double {
        let row = [Double](repeating: 0, count: target)
        var v = [[[[Double]]]](repeating: [[[Double]]](repeating: [[Double]](repeating: row, count: target), count: target), count: 2)
        var change = 1.0
        while change > 1e-14 {
            change = 0
            for a in 0..<target {
                for b in 0..<target {
                    for k in 0..<target {
                        if a + k < target {  // Ann (the bot) to move
                            var value: Double
                            if k >= hold {
                                value = v[1][a + k][b][0]
                            } else {
                                value = v[1][a][b][0] / 6
                                for face in 2...6 { value += (a + k + face >= target ? 1 : v[0][a][b][k + face]) / 6 }
                            }
                            change = max(change, abs(value - v[0][a][b][k])); v[0][a][b][k] = value
                        }
                        if b + k < target {  // Bob (best reply: least for Ann) to move
                            var roll = v[0][a][b][0] / 6
                            for face in 2...6 { roll += (b + k + face >= target ? 0 : v[1][a][b][k + face]) / 6 }
                            let value = min(roll, v[0][a][b + k][0])
                            change = max(change, abs(value - v[1][a][b][k])); v[1][a][b][k] = value
                        }
                    }
                }
            }
        }
        return v[0][0][0][0]
    }

    @Test func theBotAgainstBestPlayMatchesAValueIterationWrittenHere() throws {
        let versus = try BestPlay.versus(rulesFile: "examples/rules/pig.lua",
                                         options: solveOptions(["Ann", "Bob"], [("target", "12"), ("hold", "4")]))
        let byHand = pigBotAgainstBest(target: 12, hold: 4)
        #expect(abs(versus.botInSeat[0][0] - byHand) < 1e-9, "versus \(versus.botInSeat[0][0]), by hand \(byHand)")
        #expect(versus.botInSeat[0][0] < versus.best[0])  // the bot gives something away
        #expect(abs(versus.best[0] - pigByHand(target: 12)) < 1e-9)
    }
}

/// The policy module `solve --policy` writes, used as the bot of a copy of the rules:
/// `odds` of that copy is exactly best play (every seat follows the module).
@Suite struct BestPlayPolicyTests {
    func policyPlayedBack(rules: String, moduleName: String, params: [(String, String)], players: [String]) throws -> (BestPlay.Result, Odds.Result) {
        var o = BestPlay.Options()
        o.players = players
        o.params = params
        o.memoryBytes = 256 << 20
        o.writesPolicy = true
        let best = try BestPlay.solve(rulesFile: rules, options: o)
        let module = try #require(best.policyModule)
        let folder = (rules as NSString).deletingLastPathComponent
        try module.write(toFile: (folder as NSString).appendingPathComponent(moduleName + ".lua"), atomically: true, encoding: .utf8)
        let copy = (folder as NSString).appendingPathComponent("played-back.lua")
        let base = (rules as NSString).lastPathComponent.replacingOccurrences(of: ".lua", with: "")
        try """
            local game = require("\(base)")
            local best = require("\(moduleName)")
            return rules.extend(game, { bot = function(g, p) return best.move(g, p) end })
            """.write(toFile: copy, atomically: true, encoding: .utf8)
        let odds = try Odds.analyse(rulesFile: copy, options: DiceHostTests.options(players, params))
        return (best, odds)
    }

    @Test func theOneBetPolicyBetsThree() throws {
        let rules = try temporaryRules(BestPlayTests.oneBet, name: "onebet.lua")
        let (best, odds) = try policyPlayedBack(rules: rules, moduleName: "onebet-best", params: [], players: ["Ann"])
        #expect(best.policyModule?.contains("{\"bet\", 3}") == true)
        #expect(abs(odds.wins[0].double - best.wins[0]) < 1e-12)
    }

    /// The policy module as the bot of both seats in `sim`: the win rate agrees with
    /// solve's value within the simulation's 99.9% interval (bench/policy_vs_sim.py plays
    /// 10^6 games of Pig to 30 the same way).
    @Test func pigsPolicySimulatesToTheSolvedValue() throws {
        let pig = try String(contentsOfFile: "examples/rules/pig.lua", encoding: .utf8)
        let rules = try temporaryRules(pig, name: "pig.lua")
        let (best, _) = try policyPlayedBack(rules: rules, moduleName: "pig-best", params: [("target", "12")], players: ["Ann", "Bob"])
        let variant = ((rules as NSString).deletingLastPathComponent as NSString).appendingPathComponent("played-back.lua")
        var plan = Simulation.Plan(rulesFile: variant, players: ["Ann", "Bob"], games: 20_000, seed: 26)
        plan.params = [("target", "12")]
        let simulated = try Simulation.run(plan)
        #expect(simulated.errors == 0 && simulated.unfinished == 0)
        let n = Double(simulated.games)
        for seat in 0..<2 {
            let p = best.wins[seat], rate = Double(simulated.wins[seat]) / n
            let half = 3.29 * (p * (1 - p) / n).squareRoot()
            #expect(abs(rate - p) <= half + 1 / n, "seat \(seat + 1): solve \(p), simulated \(rate) ± \(half)")
        }
        // Not the rules' own bot (hold at 10 here): its chance differs by more than the interval.
        let own = try Odds.analyse(rulesFile: rules, options: DiceHostTests.options(["Ann", "Bob"], [("target", "12")]))
        #expect(abs(own.wins[0].double - best.wins[0]) > 3.29 * (best.wins[0] * (1 - best.wins[0]) / n).squareRoot())
    }

    @Test func pigsPolicyPlaysBackToTheSolvedValue() throws {
        let pig = try String(contentsOfFile: "examples/rules/pig.lua", encoding: .utf8)
        let rules = try temporaryRules(pig, name: "pig.lua")
        let (best, odds) = try policyPlayedBack(rules: rules, moduleName: "pig-best", params: [("target", "12")], players: ["Ann", "Bob"])
        #expect(abs(odds.wins[0].double - best.wins[0]) < 1e-9, "odds \(odds.wins[0].double), solve \(best.wins[0])")
    }
}
