import DiceHost
import Lua
import Foundation
import Testing

/// Simulations agree with answers derived by hand, and the result does not depend on
/// how the work is split (threads, shards).
@Suite struct SimulationTests {
    /// One pass-line decision per game: the shooter wins with probability 244/495 and the
    /// decision takes 557/165 rolls on average (the textbook Craps results).
    @Test func crapsPassLineMatchesTheExactAnswers() throws {
        var plan = Simulation.Plan(rulesFile: "rules/craps.lua", players: ["Ann"], games: 60_000, seed: 2026)
        plan.params = [("rounds", "1")]
        let result = try Simulation.run(plan)
        #expect(result.games == 60_000)
        #expect(result.errors == 0 && result.unfinished == 0)
        #expect(result.wins[0] + result.draws == result.games)
        let win = result.winRates[0]
        #expect(win.contains(244.0 / 495.0), "win rate \(win)")
        #expect(win.upper - win.lower < 0.01)
        #expect(result.meanRolls.contains(557.0 / 165.0), "rolls \(result.meanRolls)")
        // The script records each decision's stake: $5 won or lost, once per game.
        #expect(result.metrics["won"]?.count == result.wins[0])
        #expect(result.metrics["won"]?.sum == Double(5 * result.wins[0]))
        #expect(result.metrics["lost"]?.games == result.draws)
        #expect(result.turns.counts == [1: result.games])
    }

    /// Race to 25 on one die, two players: exact by dynamic programming over the
    /// number of rolls a player needs.
    @Test func raceFirstPlayerAdvantageMatchesTheExactAnswer() throws {
        let target = 25
        // reach[s] = distribution of rolls needed from score s; computed backwards.
        var need = Array(repeating: [Double](), count: target + 6)
        for s in stride(from: target + 5, through: 0, by: -1) {
            if s >= target { need[s] = [1]; continue }
            var dist = [Double](repeating: 0, count: 1)
            for face in 1...6 {
                let rest = need[s + face]
                if dist.count < rest.count + 1 { dist += [Double](repeating: 0, count: rest.count + 1 - dist.count) }
                for (n, p) in rest.enumerated() { dist[n + 1] += p / 6 }
            }
            need[s] = dist
        }
        let n = need[0]  // n[k] = P(exactly k rolls to reach the target)
        var atLeast = [Double](repeating: 0, count: n.count + 1)
        for k in stride(from: n.count - 1, through: 0, by: -1) { atLeast[k] = atLeast[k + 1] + n[k] }
        var firstWins = 0.0, meanRolls = 0.0
        for k in n.indices where n[k] > 0 {
            // The first player wins on their k-th roll when the second needs k or more.
            firstWins += n[k] * atLeast[k]
            meanRolls += n[k] * atLeast[k] * Double(2 * k - 1)
            // The second wins on their k-th roll when the first needs more than k.
            meanRolls += n[k] * atLeast[k + 1] * Double(2 * k)
        }

        let plan = Simulation.Plan(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], games: 40_000, seed: 7)
        let result = try Simulation.run(plan)
        #expect(result.errors == 0 && result.draws == 0)
        #expect(result.winRates[0].contains(firstWins), "Ann \(result.winRates[0]) vs exact \(firstWins)")
        #expect(result.meanRolls.contains(meanRolls), "rolls \(result.meanRolls) vs exact \(meanRolls)")
        #expect(abs(firstWins - 0.606679) < 1e-6)  // (also by exact fractions: the first player's edge is large)
        #expect(abs(meanRolls - 13.156688) < 1e-6)
    }

    @Test func theResultIsTheSameForAnyNumberOfThreads() throws {
        var plan = Simulation.Plan(rulesFile: "examples/rules/pig.lua", players: ["Ann", "Bob", "Cy"], games: 1_500, seed: 99)
        plan.threads = 1
        let one = try Simulation.run(plan)
        plan.threads = 3
        let three = try Simulation.run(plan)
        #expect(withoutTime(one) == withoutTime(three))
        #expect(one.wins.reduce(0, +) == 1_500)
    }

    @Test func shardsMergeExactlyIntoTheWholeRun() throws {
        var plan = Simulation.Plan(rulesFile: "rules/craps.lua", players: ["Ann", "Bob"], games: 1_000, seed: 5)
        plan.params = [("rounds", "3")]
        let whole = try Simulation.run(plan)
        var parts: [SimulationResult] = []
        for i in 1...3 {
            plan.shard = (i, 3)
            parts.append(try Simulation.run(plan))
        }
        #expect(parts.map(\.games) == [333, 333, 334])
        #expect(parts[0].missingRanges == [[333, 1_000]])
        // In any order, and through JSON.
        let decoded = try parts.map { try JSONDecoder().decode(SimulationResult.self, from: JSONEncoder().encode($0)) }
        let merged = try decoded[2].merging(decoded[0]).merging(decoded[1])
        #expect(withoutTime(merged) == withoutTime(whole))
        #expect(merged.missingRanges.isEmpty)
        #expect(throws: SimulationResult.MergeError.self) { try merged.merging(parts[1]) }
        var other = plan
        other.seed = 6
        other.shard = (1, 1)
        let different = try Simulation.run(other)
        #expect(throws: SimulationResult.MergeError.self) { try parts[0].merging(different) }
    }

    @Test func aFailingGameIsCountedAndItsSeedReplaysTheError() throws {
        let path = try temporaryRules("""
            local r = rules { name = "Flaky", players = {1, 1}, dice = "1d6" }
            function r.roll(g, p, roll)
              if roll.total == 6 and math.random(4) == 1 then error("unlucky six") end
              if roll.total >= 5 then g:win(p) else g:next_turn() end
            end
            return r
            """)
        let result = try Simulation.run(Simulation.Plan(rulesFile: path, games: 2_000, seed: 3))
        #expect(result.errors > 0 && result.errors < 2_000)
        #expect(result.errors + result.wins[0] == 2_000)
        let failure = try #require(result.firstError)
        #expect(failure.message.contains("unlucky six"))
        #expect(failure.seed == Simulation.gameSeed(3, index: failure.index))
        let replay = try Game(rulesFile: path, players: ["P1"], seed: failure.seed)
        var thrown: Error?
        while !replay.isOver && thrown == nil {
            do { try replay.playBotMove() } catch { thrown = error }
        }
        #expect("\(thrown.map { "\($0)" } ?? "no error")" == failure.message)
    }

    /// Playing the bots' rolls inside Lua is only a faster way to the same games: for
    /// every shipped game, and a script that takes every other way through a move (kept
    /// dice, given values, actions with arguments, no bot answer), the result equals the
    /// move-by-move reference exactly.
    @Test(arguments: [
        ("rules/craps.lua", ["Ann", "Bob"], [("rounds", "3")]),
        ("rules/race.lua", ["Ann", "Bob", "Cy"], []),
        ("rules/race-doubles.lua", ["Ann", "Bob"], [("dice", "2d6")]),
        ("rules/snap.lua", ["Ann", "Bob"], []),
        ("examples/rules/pig.lua", ["Ann", "Bob"], []),
    ] as [(String, [String], [(String, String)])])
    func playingInLuaGivesTheMoveByMoveResult(rules: String, players: [String], params: [(String, String)]) throws {
        try expectSameResultBothWays(rulesFile: rules, players: players, params: params, games: 300)
    }

    @Test func everyKindOfBotMoveGivesTheMoveByMoveResult() throws {
        let path = try temporaryRules("""
            local r = rules { name = "Mixed", players = {2, 3}, dice = "3d6kh2", params = { target = 40 } }
            function r.setup(g) for _, p in ipairs(g.players) do p.score = 0 end end
            function r.turn(g, p) g.state.turn_rolls = 0 end
            function r.roll(g, p, roll)
              p.score = p.score + roll.total
              g.state.turn_rolls = g.state.turn_rolls + 1
              g:record("roll", roll.total)
              if p.score >= g.params.target then g:win(p) elseif roll.doubles then g:next_turn(p) else g:next_turn() end
            end
            r.actions = {
              bank = function(g, p, amount) p.score = p.score + (amount or 1); g:next_turn() end,
              knock = function(g, p) g:eliminate(p) end,
            }
            function r.bot(g, p)
              local pick = math.random(10)
              if pick == 1 then return {"roll", 6, 6, 1} end
              if pick == 2 then return {"bank", 3} end
              if pick == 3 then return "bank" end
              if pick == 4 and #g.players == 3 and p.seat == 3 then return "knock" end
              if pick == 5 then return nil end
              return "roll"
            end
            return r
            """)
        try expectSameResultBothWays(rulesFile: path, players: ["Ann", "Bob", "Cy"], params: [], games: 400)
    }

    func expectSameResultBothWays(rulesFile: String, players: [String], params: [(String, String)], games: Int,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        var plan = Simulation.Plan(rulesFile: rulesFile, players: players, games: games, seed: 11)
        plan.params = params
        plan.threads = 2
        let inLua = try Simulation.run(plan)
        plan.playsInLua = false
        let moveByMove = try Simulation.run(plan)
        #expect(withoutTime(inLua) == withoutTime(moveByMove), sourceLocation: sourceLocation)
        #expect(inLua.errors == 0 && inLua.unfinished == 0, "\(inLua.firstError?.message ?? "")", sourceLocation: sourceLocation)
        #expect(inLua.rolls.count == games, sourceLocation: sourceLocation)
    }

    /// A hook on a six that never returns, or returns only after more instructions than
    /// its budget allows, fails under the budget. Played in Lua with no budget, the first
    /// is stopped by the watchdog and the second gives itself away by the time its step
    /// took; either way the game is decided move by move under the budget, so it counts
    /// as a rule error with the budget's message, as `dicehost play --seed --auto` shows it.
    @Test(arguments: ["while true do n = n + 1 end", "for i = 1, 3000000 do n = n + i % 3 end"])
    func aHookThatRunsPastItsBudgetFailsAsWithTheBudget(loop: String) throws {
        let path = try temporaryRules("""
            local r = rules { name = "Slow sixes", players = {1, 1}, dice = "1d6" }
            function r.roll(g, p, roll)
              if roll.total == 6 then
                local n = 0
                \(loop)
              end
              if roll.total == 1 then g:win(p) end
            end
            return r
            """)
        var plan = Simulation.Plan(rulesFile: path, games: 12, seed: 4)
        plan.limits = LuaLimits(instructionBudget: 2_000_000)
        let result = try Simulation.run(plan)
        #expect(result.errors > 0 && result.errors + result.wins[0] == 12)
        let failure = try #require(result.firstError)
        #expect(failure.message.hasPrefix("\(path):5: instruction budget exceeded"), "\(failure.message)")
        plan.playsInLua = false
        #expect(withoutTime(try Simulation.run(plan)) == withoutTime(result))
    }

    /// A turn hook that always passes the turn on is stopped after the limit, with the
    /// same message whether the game is played in Lua or move by move.
    @Test func aTurnHookThatNeverStopsPassingIsARuleError() throws {
        let path = try temporaryRules("""
            local r = rules { name = "Spin", players = {2, 2}, dice = "1d6" }
            function r.turn(g, p) if g.state.spin then g:next_turn() end end
            function r.roll(g, p, roll)
              if roll.total == 6 then g.state.spin = true end
              if roll.total == 1 then g:win(p) else g:next_turn() end
            end
            return r
            """)
        var plan = Simulation.Plan(rulesFile: path, games: 30, seed: 2)
        let result = try Simulation.run(plan)
        #expect(result.errors > 0 && result.errors + result.wins.reduce(0, +) == 30)
        #expect(result.firstError?.message == "the turn hook passed the turn 1000 times without waiting for input")
        plan.playsInLua = false
        #expect(withoutTime(try Simulation.run(plan)) == withoutTime(result))
    }

    @Test func aGameThatNeverEndsIsCountedAsUnfinished() throws {
        let path = try temporaryRules("""
            local r = rules { name = "Forever", players = {2, 2}, dice = "1d6" }
            function r.roll(g, p, roll) g:next_turn() end
            return r
            """)
        var plan = Simulation.Plan(rulesFile: path, games: 10, seed: 1)
        plan.moveLimit = 50
        let result = try Simulation.run(plan)
        #expect(result.unfinished == 10)
        #expect(result.rolls.count == 0)
    }

    @Test func aNewGameInTheSameStateEqualsAFreshGameWithThatSeed() throws {
        let reused = try Game(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: 1)
        for _ in 0..<5 { try reused.roll() }
        try reused.startNewGame(seed: 424_242)
        let fresh = try Game(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: 424_242)
        for _ in 0..<12 {
            try reused.playBotMove()
            try fresh.playBotMove()
        }
        #expect(reused.events.map(\.description) == fresh.events.map(\.description))
        #expect(reused.rollCount == 12)
    }

    @Test func badPlansAreRefusedBeforeAnyGame() throws {
        #expect(throws: Simulation.PlanError.self) { try Simulation.run(Simulation.Plan(rulesFile: "rules/craps.lua", games: 0, seed: 1)) }
        var plan = Simulation.Plan(rulesFile: "rules/craps.lua", games: 10, seed: 1)
        plan.shard = (4, 3)
        #expect(throws: Simulation.PlanError.self) { try Simulation.run(plan) }
        #expect(throws: GameError.self) { try Simulation.run(Simulation.Plan(rulesFile: "rules/nope.lua", games: 10, seed: 1)) }
    }

    @Test func confidenceIntervals() {
        let half = Estimate.proportion(500, of: 1_000)
        #expect(abs(half.lower - 0.4691) < 1e-3 && abs(half.upper - 0.5309) < 1e-3)
        let none = Estimate.proportion(0, of: 100)
        #expect(none.lower < 1e-12 && none.upper > 0.03 && none.upper < 0.04)
        #expect(Estimate.difference((500, 1_000), (560, 1_000)).isSignificant)
        #expect(!Estimate.difference((500, 1_000), (510, 1_000)).isSignificant)
    }
}

func withoutTime(_ result: SimulationResult) -> SimulationResult {
    var copy = result
    copy.seconds = 0
    return copy
}

func temporaryRules(_ source: String) throws -> String {
    let dir = NSTemporaryDirectory() + "dicehost-sim-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let path = dir + "/rules.lua"
    try source.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}
