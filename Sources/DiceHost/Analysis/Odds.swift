import Foundation
import Lua

/// Exact odds of a game under its bots: every position the bots can reach, every
/// outcome of every roll, solved as an absorbing Markov chain.
///
///     var options = Odds.Options()
///     options.params = [("rounds", "1")]
///     let odds = try Odds.analyse(rulesFile: "rules/craps.lua", options: options)
///     odds.wins[0].text          // "244/495"
///
/// A game is analysable when its positions are data (invariant 3) and nothing but the
/// roll decides what happens: a hook that draws random numbers, a bot that changes
/// the game, exploding dice or a table used as a key make it not analysable, and the
/// error says which and why. Bots roll good rolls only (as in `dicehost sim`), and the
/// clock does not move, so timers never fire (they are part of the position all the same).
public enum Odds {
    public enum Precision: String, Sendable, CaseIterable {
        /// Exact fractions up to `Options.exactStateLimit` positions while large components
        /// stay under `Options.exactWorkLimit`, doubles with an error bound otherwise.
        case auto
        case exact
        case double
    }

    public struct Options: Sendable {
        public var players: [String] = []
        public var params: [(String, String)] = []
        public var maxStates = 4_000_000
        public var precision = Precision.auto
        public var exactStateLimit = 50_000
        /// The analysed game's memory cap, as in play (the positions the analysis keeps in
        /// its Lua state are not counted: `--max-memory` bounds those).
        public var memoryBytes = LuaLimits.default.memoryBytes
        /// Under auto, the entry updates a large component's exact elimination may take
        /// before the whole chain is solved in doubles instead.
        public var exactWorkLimit = 20_000_000
        /// The whole process's resident memory at which exploring stops, with a message.
        public var maxMemory = Odds.defaultMaxMemory
        /// The most outcomes one roll may have (every outcome is played from each position
        /// that rolls).
        public var maxRollOutcomes = Odds.defaultMaxRollOutcomes
        public init() {}
    }

    /// 46,656: 6d6, every tuple (or 462 sets under `unordered_dice`).
    public static let defaultMaxRollOutcomes = 46_656
    /// 2^24: outcome weights and totals are 32-bit, and the table of one roll's outcomes
    /// alone takes gigabytes beyond this.
    public static let maxRollOutcomesCeiling = 1 << 24

    /// 8 GiB: a third of a 24 GiB machine, room for other work beside it.
    public static let defaultMaxMemory = 8 << 30

    /// A probability or an expectation: exact when the chain was solved in fractions.
    public struct Value: Sendable, Equatable {
        public var exact: Rational?
        public var double: Double
        public var text: String { exact.map(\.description) ?? String(format: "%.12g", double) }
    }

    public struct Metric: Sendable {
        public var name: String
        /// Expected sum of the recorded values in one game.
        public var expectedSum: Value
        /// Expected number of records in one game.
        public var expectedCount: Value
    }

    public struct Result: Sendable {
        public var rules: String
        public var rulesFile: String
        public var players: [String]
        public var params: [String]
        public var states: Int
        public var terminalStates: Int
        public var transitions: Int
        public var components: Int
        public var largestComponent: Int
        public var exact: Bool
        /// Bound on the absolute error of every value (0 when exact).
        public var errorBound: Double
        public var wins: [Value]
        /// Another player wins (1 − win − draw − never ends).
        public var losses: [Value] = []
        public var draw: Value
        /// Probability that the bots go round for ever (an unfinished game in `sim`).
        public var neverEnds: Value
        /// Expected rolls and turns per game (nil when a game may never end).
        public var rolls: Value?
        public var turns: Value?
        /// The exact distribution of the number of rolls per game (nil when a step makes
        /// more than one roll).
        public var rollDistribution: LengthDistribution? = nil
        /// The exact distribution of the number of turns per game, the first included (nil
        /// when a step may begin more than one turn).
        public var turnDistribution: LengthDistribution? = nil
        public var metrics: [Metric]
        public var droppedLastRoll: Bool
        /// Rolls played only to reach what another position's rolls had reached.
        public var repeatedRolls = RepeatedRolls()
        public var exploreSeconds: Double
        public var solveSeconds: Double
        /// Peak bytes of the Lua heap that held the positions, and of the whole process.
        public var luaMemoryPeak: Int
        public var processMemoryPeak: Int
    }

    /// Explores and solves. `progress` gets lines such as "12034 positions explored, 800 to go".
    public static func analyse(rulesFile: String, options: Options = Options(),
                               progress: ((String) -> Void)? = nil) throws -> Result {
        let started = DispatchTime.now().uptimeNanoseconds
        let (game, graph) = try explore(rulesFile: rulesFile, players: options.players, params: options.params,
                                        memoryBytes: options.memoryBytes, maxStates: options.maxStates,
                                        maxMemory: options.maxMemory, maxRollOutcomes: options.maxRollOutcomes, progress: progress)
        let explored = DispatchTime.now().uptimeNanoseconds
        let exact: Bool
        switch options.precision {
        case .exact: exact = true
        case .double: exact = false
        case .auto: exact = graph.count <= options.exactStateLimit
        }
        let seats = game.playerNames.count
        var result = Result(rules: game.rules.name, rulesFile: rulesFile, players: game.playerNames,
                            params: options.params.map { "\($0.0)=\($0.1)" }, states: graph.count,
                            terminalStates: graph.terminal.filter { $0 != nil }.count, transitions: graph.transitions,
                            components: 0, largestComponent: 0, exact: exact, errorBound: 0, wins: [],
                            draw: Value(exact: nil, double: 0), neverEnds: Value(exact: nil, double: 0),
                            rolls: nil, turns: nil, metrics: [], droppedLastRoll: graph.droppedLastRoll,
                            exploreSeconds: 0, solveSeconds: 0, luaMemoryPeak: game.lua.memoryPeak, processMemoryPeak: 0)
        result.repeatedRolls = graph.repeatedRolls.counts
        let report: (Int) -> Void = { progress?("solving: \(graph.count) positions, \($0) components solved") }
        // Each phase names itself when it begins: a large component or a long game can keep
        // one busy for minutes between the solver's own lines.
        report(0)
        var solvedExactly = false
        if exact {
            var solver = ChainSolver<Rational>(graph: graph, seats: seats)
            solver.maxMemory = options.maxMemory
            // Under auto, fractions only while they are fast; doubles with a bound beyond.
            if options.precision == .auto { solver.workLimit = options.exactWorkLimit }
            do {
                let solution = try solver.solve(progress: report)
                fill(&result, solver: solver, solution: solution, graph: graph) { Value(exact: $0, double: $0.doubleValue) }
                result.errorBound = 0
                solvedExactly = true
            } catch let over as SparseElimination<Rational>.OverBudget {
                progress?("exact fractions too slow here (\(over.work) entry updates after \(over.eliminated) positions of one component): solving in doubles")
                result.exact = false
            }
        }
        if !solvedExactly {
            var solver = ChainSolver<Double>(graph: graph, seats: seats)
            solver.maxMemory = options.maxMemory
            let solution = try solver.solve(progress: report)
            fill(&result, solver: solver, solution: solution, graph: graph) { Value(exact: nil, double: $0) }
            result.errorBound = solution.errorBound
        }
        progress?("rolls and turns per game: \(graph.count) positions")
        result.rollDistribution = LengthDistribution.rolls(of: graph)
        result.turnDistribution = LengthDistribution.turns(of: graph)
        let solved = DispatchTime.now().uptimeNanoseconds
        result.exploreSeconds = Double(explored - started) / 1e9
        result.solveSeconds = Double(solved - explored) / 1e9
        result.processMemoryPeak = maxResidentBytes()
        return result
    }

    /// Explores a game's positions under its bots: first leaving last rolls out, and again
    /// with them once a hook turns out to look at one (see `StateCodec`).
    static func explore(rulesFile: String, players: [String], params: [(String, String)], memoryBytes: Int, maxStates: Int,
                        maxMemory: Int = Odds.defaultMaxMemory, maxRollOutcomes: Int = Odds.defaultMaxRollOutcomes,
                        progress: ((String) -> Void)?) throws -> (Game, StateGraph) {
        let limits = LuaLimits(memoryBytes: memoryBytes, instructionBudget: LuaLimits.default.instructionBudget)
        for keepLastRoll in [false, true] {
            let watch = OddsWatch()
            let game = try Game(rulesFile: rulesFile, players: players, seed: 0, params: params, limits: limits,
                                beforeRules: { try watch.install(into: $0) })
            let explorer = try StateExplorer(game: game, watch: watch, keepLastRoll: keepLastRoll, maxStates: maxStates,
                                             maxRollOutcomes: maxRollOutcomes, progress: nil)
            explorer.budget.maxMemory = maxMemory
            explorer.progressLine = progress
            do {
                return (game, try explorer.explore())
            } catch is LastRollObserved where !keepLastRoll {
                continue
            }
        }
        throw OddsError.internal("a hook looked into a last roll that positions hold")
    }

    static func fill<N: ChainNumber>(_ result: inout Result, solver: ChainSolver<N>, solution: ChainSolver<N>.Solution,
                                     graph: StateGraph, value: (N) -> Value) {
        let v = solution.start
        result.components = solution.components
        result.largestComponent = solution.largestComponent
        result.wins = (0..<solver.seats).map { value(v[$0]) }
        result.draw = value(v[solver.drawIndex])
        result.neverEnds = value(v[solver.neverIndex])
        result.losses = (0..<solver.seats).map { value(N.one - v[$0] - v[solver.drawIndex] - v[solver.neverIndex]) }
        if !solution.neverEnds {
            result.rolls = value(v[solver.rollsIndex])
            result.turns = value(v[solver.turnsIndex] + N(weight: Int32(graph.initialTurns), over: 1))
        }
        for (m, name) in graph.metricNames.enumerated() {
            var sum = v[solver.metricSumIndex(m)], count = v[solver.metricCountIndex(m)]
            for entry in graph.initialMetrics where Int(entry.metric) == m {
                sum = sum + N(metric: entry.value)
                count = count + N.one
            }
            result.metrics.append(Metric(name: name, expectedSum: value(sum), expectedCount: value(count)))
        }
    }

    /// The process's peak resident memory in bytes (Linux reports kilobytes).
    static func maxResidentBytes() -> Int {
        var usage = rusage()
        #if os(Linux)
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        return Int(usage.ru_maxrss) * 1024
        #else
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return 0 }
        return Int(usage.ru_maxrss)  // bytes on Darwin
        #endif
    }
}

extension Odds {
    /// Whether `dicehost odds` can analyse a script: what `dicehost check` says.
    public enum Analysability: Sendable, Equatable {
        /// Every position found: `states` of them.
        case analysable(states: Int)
        /// Why not (which hook, what it did).
        case notAnalysable(String)
        /// Nothing wrong in the first `explored` positions, but there are more (and what
        /// kept growing in them).
        case undecided(explored: Int, growth: GrowingFields? = nil)

        public var description: String {
            switch self {
            case .analysable(let states): return "analysable by `dicehost odds` (\(states) positions under the bots)"
            case .notAnalysable(let why): return "not analysable by `dicehost odds`: \(why)"
            case .undecided(let explored, let growth):
                let text = "analysable as far as checked (\(explored) positions; there are more): try `dicehost odds`, or `dicehost sim`"
                // Only a field play never reads is worth a warning this early: in the first
                // positions found every count still grows.
                guard let growth, !growth.unread.isEmpty else { return text }
                return text + "\nwarning: " + growth.text
            }
        }
    }

    /// Explores up to `maxStates` positions at the smallest table the rules allow.
    public static func analysability(rulesFile: String, params: [(String, String)] = [], maxStates: Int = 200) -> Analysability {
        do {
            let (_, graph) = try explore(rulesFile: rulesFile, players: [], params: params, memoryBytes: LuaLimits.default.memoryBytes,
                                         maxStates: maxStates, progress: nil)
            return .analysable(states: graph.count)
        } catch OddsError.tooManyStates(_, _, let growth) {
            return .undecided(explored: maxStates, growth: growth)
        } catch OddsError.notAnalysable(let why) {
            return .notAnalysable(why)
        } catch {
            return .notAnalysable("\(error)")
        }
    }
}
