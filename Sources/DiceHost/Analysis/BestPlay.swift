import Foundation
import Lua

/// Best play: every position any sequence of legal moves can reach, and in each the
/// move that maximises the deciding player's own probability of winning.
///
///     let best = try BestPlay.solve(rulesFile: "examples/rules/pig.lua", options: options)
///     best.wins[0]        // the first seat's chance when every seat plays its best
///
/// Legal moves where a player decides: roll, and every declared action with each of its
/// declared `choices` (an action without choices: no arguments). A move the rules refuse
/// from that position (`error(msg, 0)`, or an input the host refuses) is not legal. Each
/// player maximises their own probability of winning: for two players that is optimal
/// play of the zero-sum game; with more, every seat plays for itself alone (no
/// coalitions), and the answer is one equilibrium of that game, found by value iteration.
///
/// Cycles (Pig: two busts bring both players back) are solved by value iteration,
/// Gauss–Seidel sweeps from the last positions found, until no value moves by more than
/// `Options.tolerance`; the result says how far it got.
public enum BestPlay {
    public struct Options: Sendable {
        public var players: [String] = []
        public var params: [(String, String)] = []
        public var maxStates = 4_000_000
        /// Stop iterating once a sweep changes no value by more than this.
        public var tolerance = 1e-12
        public var maxSweeps = 100_000
        /// The analysed game's memory cap, as in play (not counting the positions kept).
        public var memoryBytes = LuaLimits.default.memoryBytes
        /// The whole process's resident memory at which exploring stops, with a message.
        public var maxMemory = Odds.defaultMaxMemory
        /// The most outcomes one roll may have (`--max-roll-outcomes`).
        public var maxRollOutcomes = Odds.defaultMaxRollOutcomes
        /// Write the best-play policy as a Lua module (`Result.policyModule`).
        public var writesPolicy = false
        /// Tell the policy compactly (`Result.explanation`).
        public var explains = false
        /// A game with a view solved as if every seat saw everything (`--open`); without
        /// it such a game is solved as a game with secrets (`Equilibrium`).
        public var open = false
        /// When and how an equilibrium with secrets stops.
        public var equilibrium = Equilibrium.Options()
        /// Keeps of a position that end with the same values share one play under
        /// `unordered_dice` (`KeptRollTargets`); off (`solve --every-keep`): every keep played.
        public var sharesKeptRolls = true
        public init() {}
    }

    /// One legal move from a position: its name as a bot returns it, and where it leads.
    public struct Move: Sendable, Equatable {
        /// "roll", an action name, or an action with its arguments ("bet 5").
        public var label: String
        /// The action and its arguments as a bot answers them (empty for roll).
        public var action: String?
        public var arguments: [String]
        /// The move as a bot returns it, in Lua: "roll", "hold", {"bet", 3}.
        public var botAnswer: String = "\"roll\""
    }

    public struct Result: Sendable {
        public var rules: String
        public var rulesFile: String
        public var players: [String]
        public var params: [String]
        /// Each seat's probability of winning under best play by every seat.
        public var wins: [Double]
        public var draw: Double
        /// A lone player's chance of losing (nobody wins).
        public var loss: Double = 0
        /// The game has a view, solved as if every seat saw everything (`--open`).
        public var everyoneSeesEverything = false
        /// Positions where the best play of every seat never ends the game.
        public var neverEnds: Double
        public var states: Int
        public var decisions: Int
        public var moves: Int
        /// The largest change of any value in the last sweep, and how many sweeps.
        public var residual: Double
        public var sweeps: Int
        public var tolerance: Double
        public var converged: Bool
        /// The best move at the start, and how many positions choose each move name.
        public var firstMove: String?
        public var moveCounts: [(String, Int)]
        public var droppedLastRoll: Bool
        public var exploreSeconds: Double
        public var solveSeconds: Double
        public var luaMemoryPeak: Int
        public var processMemoryPeak: Int
        /// The policy as a Lua module a bot can `require` (with `Options.writesPolicy`).
        public var policyModule: String?
        /// The policy told compactly (with `Options.explains`).
        public var explanation: PolicyExplanation? = nil
        /// The `rules.statistics` fields left out of positions (each holds its starting
        /// value there; the promise was checked on sampled games).
        public var forgotStatistics: [String] = []
        /// Keep outcomes (under `unordered_dice`) that took the position another keep of
        /// theirs reached with the same values instead of being played.
        public var sharedKeptRolls = 0
        /// Why every keep was played after all: two keeps ending alike led apart.
        public var everyKeepPlayedBecause: String?
    }

    /// How many games from the start check a `rules.statistics` declaration (each up to
    /// 200 moves, a few moves per step made with and without the fields' values).
    public static var statisticsSampleGames: Int { MoveExplorer.statisticsWalks }

    /// One position in this many plays every outcome of every keep, checking the keeps
    /// shared under `unordered_dice` (`KeptRollTargets`).
    public static var keptRollCheckEvery: Int { KeptRollTargets.checkEvery }

    /// What `solve` gives: best play where everyone sees everything, or an equilibrium
    /// over what each seat is shown in a game with a view.
    public enum Outcome: Sendable {
        case open(Result)
        case secrets(Equilibrium.Result)
    }

    /// Best play of any game: a game with a view (players hide things) as an equilibrium
    /// of the game with secrets unless `Options.open`, every other game by value iteration.
    public static func analyse(rulesFile: String, options: Options = Options(),
                               progress: ((String) -> Void)? = nil) throws -> Outcome {
        let started = DispatchTime.now().uptimeNanoseconds
        let (explorer, keptLastRoll) = try explore(rulesFile: rulesFile, options: options, askBot: false,
                                                   observes: { $0.hasView && !options.open }, progress: progress)
        if explorer.observations != nil {
            return .secrets(try Equilibrium.solve(explorer: explorer, rulesFile: rulesFile, options: options, started: started, progress: progress))
        }
        return .open(try solve(explorer: explorer, keptLastRoll: keptLastRoll, rulesFile: rulesFile, options: options,
                               started: started, progress: progress))
    }

    static func explore(rulesFile: String, options: Options, askBot: Bool, toleratesDrawingBot: Bool = false,
                        observes: (Game) -> Bool = { _ in false }, progress: ((String) -> Void)?) throws -> (MoveExplorer, Bool) {
        let limits = LuaLimits(memoryBytes: options.memoryBytes, instructionBudget: LuaLimits.default.instructionBudget)
        var found: (MoveExplorer, Bool)?
        // Started again with last rolls kept when a hook reads one, and with every keep
        // played when two keeps ending with the same values led apart (`KeptRollTargets`):
        // each at most once, so three tries at most.
        var keepLastRoll = false, sharesKeptRolls = options.sharesKeptRolls, unshared: String?
        for _ in 0..<3 {
            let watch = OddsWatch()
            let game = try Game(rulesFile: rulesFile, players: options.players, seed: 0, params: options.params, limits: limits,
                                beforeRules: { try watch.install(into: $0) })
            let states = try StateExplorer(game: game, watch: watch, keepLastRoll: keepLastRoll, maxStates: options.maxStates,
                                           maxRollOutcomes: options.maxRollOutcomes, progress: nil)
            states.budget.maxMemory = options.maxMemory
            let explorer = try MoveExplorer(states: states, game: game)
            explorer.askBot = askBot
            explorer.toleratesDrawingBot = toleratesDrawingBot
            explorer.sharesKeptRolls = sharesKeptRolls
            explorer.everyKeepPlayedBecause = unshared
            if observes(game) { explorer.observations = Observations(seats: game.playerNames.count) }
            do {
                _ = try explorer.explore(progress: progress)
                found = (explorer, keepLastRoll)
                break
            } catch is LastRollObserved where !keepLastRoll {
                keepLastRoll = true
            } catch let differ as KeptRollsDiffer where sharesKeptRolls {
                progress?("started again: \(differ)")
                sharesKeptRolls = false
                unshared = differ.description
            }
        }
        guard let found else { throw OddsError.internal("a hook looked into a last roll that positions hold") }
        return found
    }

    /// Best play with every seat seeing everything (a game with a view: as `--open`).
    public static func solve(rulesFile: String, options: Options = Options(),
                             progress: ((String) -> Void)? = nil) throws -> Result {
        let started = DispatchTime.now().uptimeNanoseconds
        let (explorer, keptLastRoll) = try explore(rulesFile: rulesFile, options: options, askBot: false, progress: progress)
        return try solve(explorer: explorer, keptLastRoll: keptLastRoll, rulesFile: rulesFile, options: options, started: started, progress: progress)
    }

    static func solve(explorer: MoveExplorer, keptLastRoll: Bool, rulesFile: String, options: Options, started: UInt64,
                      progress: ((String) -> Void)?) throws -> Result {
        let game = explorer.game, graph = explorer.graph
        let explored = DispatchTime.now().uptimeNanoseconds
        let seats = game.playerNames.count
        let solution = graph.iterate(seats: seats, tolerance: options.tolerance, maxSweeps: options.maxSweeps) { sweep, residual in
            progress?(String(format: "%d positions, sweep %d, largest change %.1e", graph.count, sweep, residual))
        }
        let solved = DispatchTime.now().uptimeNanoseconds
        let start = Array(solution.values[0..<seats + 2])
        var counts: [String: Int] = [:]
        for choice in solution.choice where choice >= 0 { counts[graph.moves[Int(choice)].label, default: 0] += 1 }
        let wins = Array(start[0..<seats])
        var module: String?
        if options.writesPolicy {
            var heading = "\(game.rules.name) (\(rulesFile))"
            if !options.params.isEmpty { heading += ", " + options.params.map { "\($0.0)=\($0.1)" }.joined(separator: " ") }
            let chances = zip(game.playerNames, wins).map { String(format: "%@ %.6f", $0.0, $0.1) }.joined(separator: ", ")
            module = try explorer.policyModule(choice: solution.choice, heading: heading, chances: chances)
        }
        let explanation = options.explains ? try explorer.explanation(choice: solution.choice) : nil
        return Result(rules: game.rules.name, rulesFile: rulesFile, players: game.playerNames,
                      params: options.params.map { "\($0.0)=\($0.1)" },
                      wins: wins, draw: start[seats], loss: start[seats + 1], everyoneSeesEverything: game.hasView,
                      neverEnds: max(0, 1 - start.reduce(0, +)),
                      states: graph.count, decisions: graph.decisions, moves: graph.moves.count,
                      residual: solution.residual, sweeps: solution.sweeps, tolerance: options.tolerance,
                      converged: solution.residual <= options.tolerance,
                      firstMove: solution.choice[0] >= 0 ? graph.moves[Int(solution.choice[0])].label : nil,
                      moveCounts: counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { ($0.key, $0.value) },
                      droppedLastRoll: !keptLastRoll,
                      exploreSeconds: Double(explored - started) / 1e9, solveSeconds: Double(solved - explored) / 1e9,
                      luaMemoryPeak: game.lua.memoryPeak, processMemoryPeak: Odds.maxResidentBytes(), policyModule: module,
                      explanation: explanation, forgotStatistics: explorer.states.graph.forgotStatistics,
                      sharedKeptRolls: explorer.sharedKeptRolls, everyKeepPlayedBecause: explorer.everyKeepPlayedBecause)
    }
}

extension BestPlay {
    /// The rules' bot against best play: for each seat, that seat's chances when its bot
    /// plays it and every other seat plays its best reply (exact up to the tolerance).
    public struct Versus: Sendable {
        public var players: [String]
        /// wins[s][k]: seat k's chance when seat s is the bot and the others play best.
        public var botInSeat: [[Double]]
        /// Every seat best (as `solve`).
        public var best: [Double]
        public var states: Int
        public var residual: Double
        public var tolerance: Double
        public var seconds: Double
        /// A game with secrets: the best replies knew only what their seat sees, and
        /// "best vs best" is the equilibrium (within `exploitability`).
        public var withSecrets = false
        public var exploitability: Double?
        /// Per seat, with secrets: the bot's costliest information sets (`Options.explains`).
        public var costliest: [[Equilibrium.Costly]] = []
    }

    public static func versus(rulesFile: String, options: Options = Options(),
                              progress: ((String) -> Void)? = nil) throws -> Versus {
        let started = DispatchTime.now().uptimeNanoseconds
        let (explorer, _) = try explore(rulesFile: rulesFile, options: options, askBot: true,
                                        observes: { $0.hasView && !options.open }, progress: progress)
        if explorer.observations != nil {
            return try Equilibrium.versus(explorer: explorer, options: options, started: started, progress: progress)
        }
        let game = explorer.game, graph = explorer.graph
        let seats = game.playerNames.count
        var residual = 0.0
        func start(_ bots: Set<Int>) -> [Double] {
            let solution = graph.iterate(seats: seats, tolerance: options.tolerance, maxSweeps: options.maxSweeps, botSeats: bots, progress: nil)
            residual = max(residual, solution.residual)
            return Array(solution.values[0..<seats])
        }
        let rows = (0..<seats).map { start([$0]) }
        let best = start([])
        return Versus(players: game.playerNames, botInSeat: rows, best: best, states: graph.count, residual: residual,
                      tolerance: options.tolerance, seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
    }
}
