import BigInt
import DiceHost
import Foundation
import Testing

/// A rule script in a fresh temporary folder (odds reads rules from files).
func temporaryRules(_ source: String, name: String = "game.lua") throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("odds-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let path = folder.appendingPathComponent(name).path
    try source.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

func options(_ players: [String], _ params: [(String, String)] = [], precision: Odds.Precision = .auto) -> Odds.Options {
    var o = Odds.Options()
    o.players = players
    o.params = params
    o.precision = precision
    o.memoryBytes = 256 << 20
    return o
}

@Suite struct OddsTests {
    @Test func crapsPassLineIsExactly244Over495() throws {
        let odds = try Odds.analyse(rulesFile: "rules/craps.lua", options: options(["Ann"], [("rounds", "1")]))
        #expect(odds.exact)
        #expect(odds.wins[0].exact == Rational(244, 495))
        #expect(odds.draw.exact == Rational(251, 495))
        // The pass line's expected length: 557/165 rolls.
        #expect(odds.rolls?.exact == Rational(557, 165))
        let won = try #require(odds.metrics.first { $0.name == "won" })
        #expect(won.expectedSum.exact == Rational(244 * 5, 495))  // $5 ante
    }

    /// P(n rolls of 1d6 reach `target`), as a table over n: the race by hand.
    func rollsNeeded(_ target: Int) -> [Rational] {
        // reached[n] = P(the score reaches target within n rolls).
        var below: [Int: Rational] = [0: .one]  // scores still below target → probability
        var reached: [Rational] = [.zero]
        while !below.isEmpty {
            var next: [Int: Rational] = [:]
            var done = reached.last ?? .zero
            for (score, p) in below {
                for face in 1...6 {
                    let share = p * Rational(1, 6)
                    if score + face >= target { done = done + share } else { next[score + face] = (next[score + face] ?? .zero) + share }
                }
            }
            reached.append(done)
            below = next
        }
        return reached
    }

    @Test func raceToFiveMatchesTheHandComputation() throws {
        let odds = try Odds.analyse(rulesFile: "rules/race.lua", options: options(["Ann", "Bob"], [("target", "5")]))
        // Ann rolls first: she wins when she needs no more rolls than Bob, i.e.
        // Σ_n P(N_Ann = n) · P(N_Bob ≥ n).
        let reached = rollsNeeded(5)
        var ann = Rational.zero
        for n in 1..<reached.count {
            ann = ann + (reached[n] - reached[n - 1]) * (.one - reached[n - 1])
        }
        #expect(odds.wins[0].exact == ann)
        #expect(odds.wins[1].exact == .one - ann)
        #expect(odds.draw.exact == .zero)
        #expect(odds.wins[0].double > 0.6)  // the first player's advantage
    }

    @Test func pigToTenMatchesTheHandComputation() throws {
        // With target 10 and hold-at-10 bots a player wins by piling up 10 in one turn
        // before a 1: q = f(0), f(t) = 1 for t ≥ 10, f(t) = Σ_{v=2..6} f(t + v) / 6.
        var f = [Rational](repeating: .one, count: 17)
        for t in stride(from: 9, through: 0, by: -1) {
            f[t] = (2...6).reduce(Rational.zero) { $0 + f[t + $1] * Rational(1, 6) }
        }
        let q = f[0]
        // Ann first: q + (1 − q)² · P, so P = 1 / (2 − q).
        let ann = Rational.one / (Rational(2) - q)
        let odds = try Odds.analyse(rulesFile: "examples/rules/pig.lua", options: options(["Ann", "Bob"], [("target", "10")]))
        #expect(odds.wins[0].exact == ann)
        #expect(odds.wins[1].exact == .one - ann)
        #expect(odds.largestComponent > 1)  // busts bring both players back: a cycle solved exactly
    }

    @Test func doublesAgreeWithExactWithinTheirBound() throws {
        let exact = try Odds.analyse(rulesFile: "examples/rules/pig.lua", options: options(["Ann", "Bob"], [("target", "15")]))
        let double = try Odds.analyse(rulesFile: "examples/rules/pig.lua", options: options(["Ann", "Bob"], [("target", "15")], precision: .double))
        #expect(!double.exact && double.errorBound > 0 && double.errorBound < 1e-9)
        let truth = try #require(exact.wins[0].exact).doubleValue
        #expect(abs(double.wins[0].double - truth) <= double.errorBound)
        #expect(abs(try #require(double.rolls).double - (try #require(exact.rolls?.exact)).doubleValue) < 1e-9)
    }

    @Test func randomNumbersInAHookMakeAGameNotAnalysable() throws {
        let path = try temporaryRules("""
            local r = rules { name = "Lucky", players = 1 }
            function r.setup(g) g.state.n = 0 end
            function r.roll(g, p, r)
              if math.random(2) == 1 then g:win(p) end
            end
            return r
            """)
        do {
            _ = try Odds.analyse(rulesFile: path, options: options(["Ann"]))
            Issue.record("a game with math.random in its roll hook was analysed")
        } catch let error as OddsError {
            #expect("\(error)".contains("not analysable: the roll hook (or a turn hook after it) for Ann drew random numbers"))
        }
    }

    @Test func aShuffledStartIsNotAnalysable() throws {
        do {
            _ = try Odds.analyse(rulesFile: "rules/snap.lua", options: options(["Ann", "Bob"]))
            Issue.record("snap was analysed")
        } catch let error as OddsError {
            #expect("\(error)".contains("setup drew random numbers"))
        }
    }

    @Test func aBotThatChangesTheGameIsNotAnalysable() throws {
        let path = try temporaryRules("""
            local r = rules { name = "Meddler", players = 1 }
            function r.setup(g) g.state.asked = 0 end
            function r.roll(g, p, r) if r.value == 6 then g:win(p) end end
            function r.bot(g, p) g.state.asked = g.state.asked + 1; return "roll" end
            return r
            """)
        #expect(throws: OddsError.self) { try Odds.analyse(rulesFile: path, options: options(["Ann"])) }
    }

    @Test func tooManyPositionsPointsToSim() throws {
        var o = options(["Ann", "Bob"], [("target", "30")])
        o.maxStates = 100
        do {
            _ = try Odds.analyse(rulesFile: "rules/race.lua", options: o)
            Issue.record("the state limit was not applied")
        } catch let error as OddsError {
            #expect("\(error)".contains("more than 100 positions") && "\(error)".contains("dicehost sim"))
        }
    }

    @Test func aGameTheBotsNeverEndIsReportedAsSuch() throws {
        // Rolling a 6 wins; the bot passes (an action that changes nothing) on a 1 forever.
        let path = try temporaryRules("""
            local r = rules { name = "Stuck", players = 1 }
            function r.setup(g) g.state.stuck = false end
            function r.roll(g, p, r)
              if r.value == 6 then g:win(p) elseif r.value == 1 then g.state.stuck = true end
            end
            r.actions = { wait = function(g, p) end }
            function r.bot(g, p) if g.state.stuck then return "wait" end return "roll" end
            return r
            """)
        let odds = try Odds.analyse(rulesFile: path, options: options(["Ann"]))
        #expect(odds.wins[0].exact == Rational(1, 2))
        #expect(odds.neverEnds.exact == Rational(1, 2))
        #expect(odds.rolls == nil)
    }

    @Test func positionsWithTimersMergeWhateverTheTimerIDs() throws {
        // race.lua sets two timers every turn; the ids grow, the positions must not.
        let odds = try Odds.analyse(rulesFile: "rules/race.lua", options: options(["Ann", "Bob"], [("target", "8")]))
        #expect(odds.states < 200)
    }
}

/// Exact odds against a simulation of the same rules: every exact win rate must lie in
/// the simulation's 99.9% interval (the seeds are fixed, so this is a fixed check, and
/// small enough for `make test`; bench/odds-vs-sim.sh runs the shipped defaults at 10^6 games).
@Suite struct OddsAgreeWithSimulationTests {
    // Race games are slow to simulate (their timers keep them off the fast path): fewer.
    @Test(arguments: [
        ("rules/craps.lua", ["Ann"], [("rounds", "1")], 20_000),
        ("rules/race.lua", ["Ann", "Bob"], [("target", "12")], 2_000),
        ("rules/race-doubles.lua", ["Ann", "Bob"], [("target", "10")], 2_000),
        ("examples/rules/pig.lua", ["Ann", "Bob"], [("target", "20")], 10_000),
    ] as [(String, [String], [(String, String)], Int)])
    func exactOddsLieInsideTheSimulationsInterval(_ file: String, _ players: [String], _ params: [(String, String)], _ games: Int) throws {
        let odds = try Odds.analyse(rulesFile: file, options: options(players, params))
        var plan = Simulation.Plan(rulesFile: file, players: players, games: games, seed: 16)
        plan.params = params
        plan.threads = 2
        let sim = try Simulation.run(plan)
        #expect(sim.errors == 0 && sim.unfinished == 0)
        let n = Double(sim.games)
        for seat in players.indices {
            let p = odds.wins[seat].double
            let halfWidth = 3.29 * (p * (1 - p) / n).squareRoot()  // 99.9%
            let rate = Double(sim.wins[seat]) / n
            #expect(abs(rate - p) <= halfWidth + 1 / n, "\(file) seat \(seat + 1): exact \(p), simulated \(rate)")
        }
        let rolls = try #require(odds.rolls).double
        let mean = sim.meanRolls  // a 95% interval; widened to 99.9%
        let halfWidth = (mean.upper - mean.value) * 3.29 / Estimate.z95
        #expect(abs(mean.value - rolls) <= halfWidth, "\(file): expected rolls \(rolls), simulated \(mean.value)")
    }
}
