import Foundation

/// Best play in a game where players hide things (a `view` hook): an equilibrium over
/// what each seat has been shown, by counterfactual regret minimisation (CFR+) on the
/// game tree taken once from the rule script (`InformationSetTree`).
///
///     if case .secrets(let e) = try BestPlay.analyse(rulesFile: "examples/rules/liars-dice-openspiel.lua") {
///         e.wins[0]            // Ann's chance under the strategy found
///         e.exploitability     // how much a best reply could still gain, per seat
///     }
///
/// A seat's information set is its view at every position on the way and every event
/// it received (perfect recall), or its current view alone when the rules declare
/// `view_is_complete = true`. Play stops at `Options.exploitability` or
/// `Options.iterations`.
public enum Equilibrium {
    public struct Options: Sendable {
        /// Stop once the exploitability (NashConv / seats, in chances of winning) is at most this.
        public var exploitability = 1e-4
        /// The most iterations.
        public var iterations = 100_000
        /// Asked between iterations: true stops with the strategy so far (Ctrl-C).
        public var shouldStop: (@Sendable () -> Bool)? = nil
        public init() {}
    }

    public struct Result: Sendable {
        public var rules: String
        public var rulesFile: String
        public var players: [String]
        public var params: [String]
        /// Each seat's chance of winning when every seat plays the average strategy.
        public var wins: [Double]
        public var draw: Double
        public var loss: Double
        /// What each seat's best reply to the others' average strategy gets (its
        /// utility: the chance of winning, a draw counting half with two seats).
        public var bestReplies: [Double]
        /// Σ over seats of what a best reply gains; exploitability is that / seats.
        public var nashConv: Double
        public var exploitability: Double
        /// Two seats: the bracket that holds the first seat's value of the game.
        public var valueBracket: ClosedRange<Double>?
        public var perfectRecall: Bool
        public var iterations: Int
        public var stoppedBy: StopReason
        /// The strategy reported: CFR+'s average, or its last iterate where that was less
        /// exploitable at a check.
        public var strategy: StrategyKind = .average
        public var positions: Int
        public var nodes: Int
        public var informationSets: [Int]
        public var exploreSeconds: Double
        public var solveSeconds: Double
        public var processMemoryPeak: Int
        /// The equilibrium as a Lua module a bot can `require` (with `writesPolicy`).
        public var policyModule: String?
        /// The `rules.statistics` fields left out of positions (see `BestPlay.Result`).
        public var forgotStatistics: [String] = []
    }

    struct Run {
        var strategy: [Double]
        var replies: [Double]
        var nashConv: Double
        var iterations: Int
        var stoppedBy: StopReason
        var strategyKind: StrategyKind
    }

    /// CFR+ until the exploitability target, the iteration limit or a stop request.
    static func run(_ tree: InformationSetTree, options: Options, progress: ((String) -> Void)?) -> Run {
        let cfr = RegretMinimiser(tree: tree)
        let seats = tree.seats
        var nextCheck = 1
        var measured: (conv: Double, replies: [Double], strategy: [Double]) = (.infinity, [], [])
        var stoppedBy = StopReason.iterations
        var lastReport = DispatchTime.now().uptimeNanoseconds
        // The average strategy is what CFR+ guarantees with perfect recall; where a view is the
        // information set (a seat forgets its own earlier moves) averaging behaviour can fail
        // to converge while the current strategy does (Mia). Each check measures both and
        // keeps the least exploitable strategy seen: the report stands for what it prints.
        var kept = StrategyKind.average
        func exploitability(_ strategy: [Double]) -> (Double, [Double]) {
            let replies = (0..<seats).map { InformationSetBestReply.reply(tree, strategy: strategy, seat: $0).value }
            let own = InformationSetBestReply.utilities(tree, strategy: strategy)
            return (zip(replies, own).map { max(0, $0 - $1) }.reduce(0, +), replies)
        }
        func measure() {
            for (name, strategy) in [(StrategyKind.average, cfr.averageStrategy()), (.current, cfr.current)] {
                let (conv, replies) = exploitability(strategy)
                if conv < measured.conv || measured.replies.isEmpty { measured = (conv, replies, strategy); kept = name }
            }
        }
        while cfr.iterations < options.iterations {
            if options.shouldStop?() == true { stoppedBy = .interrupted; break }
            cfr.iterate()
            if cfr.iterations >= nextCheck || cfr.iterations == options.iterations {
                measure()
                nextCheck = cfr.iterations + max(4, cfr.iterations / 8)
                if measured.conv / Double(seats) <= options.exploitability { stoppedBy = .exploitability; break }
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if now - lastReport > 200_000_000 {
                progress?(String(format: "%d nodes, %d information sets, iteration %d, exploitability %.2e",
                                 tree.count, tree.infosetCount, cfr.iterations, measured.conv / Double(seats)))
                lastReport = now
            }
        }
        if measured.replies.isEmpty || !stoppedBy.reachedTarget { measure() }
        return Run(strategy: measured.strategy, replies: measured.replies, nashConv: measured.conv,
                   iterations: cfr.iterations, stoppedBy: stoppedBy, strategyKind: kept)
    }

    static func tree(of explorer: MoveExplorer, options: BestPlay.Options) throws -> InformationSetTree {
        guard let observations = explorer.observations else { throw OddsError.internal("no observations kept") }
        let game = explorer.game
        return try InformationSetTree(graph: explorer.graph, observations: observations, perfectRecall: !game.rules.viewIsComplete,
                                      playerNames: game.playerNames, maxNodes: options.maxStates)
    }

    /// What `solve` does with a game that has a view: explore it keeping what each seat is
    /// shown, unroll, iterate, and report.
    static func solve(explorer: MoveExplorer, rulesFile: String, options: BestPlay.Options, started: UInt64,
                      progress: ((String) -> Void)?) throws -> Result {
        let game = explorer.game
        let tree = try tree(of: explorer, options: options)
        let explored = DispatchTime.now().uptimeNanoseconds
        let run = run(tree, options: options.equilibrium, progress: progress)
        let seats = game.playerNames.count
        let outcome = InformationSetBestReply.outcomes(tree, strategy: run.strategy)
        let wins = Array(outcome[0..<seats])
        // Whatever the strategies, Ann's value is at most her best reply to Bob's, and at
        // least what remains after Bob's best reply to hers.
        let bracket = seats == 2 ? (1 - run.replies[1])...max(1 - run.replies[1], run.replies[0]) : nil
        let solved = DispatchTime.now().uptimeNanoseconds
        let module = options.writesPolicy ? try explorer.equilibriumPolicyModule(tree: tree, strategy: run.strategy, rulesFile: rulesFile,
                                                                                 params: options.params, wins: wins) : nil
        return Result(rules: game.rules.name, rulesFile: rulesFile, players: game.playerNames,
                      params: options.params.map { "\($0.0)=\($0.1)" },
                      wins: wins, draw: outcome[seats], loss: outcome[seats + 1],
                      bestReplies: run.replies, nashConv: run.nashConv, exploitability: run.nashConv / Double(seats),
                      valueBracket: bracket, perfectRecall: tree.perfectRecall,
                      iterations: run.iterations, stoppedBy: run.stoppedBy, strategy: run.strategyKind,
                      positions: explorer.graph.count, nodes: tree.count,
                      informationSets: (0..<seats).map { s in tree.infosetPlayer.filter { Int($0) == s }.count },
                      exploreSeconds: Double(explored - started) / 1e9, solveSeconds: Double(solved - explored) / 1e9,
                      processMemoryPeak: Odds.maxResidentBytes(), policyModule: module,
                      forgotStatistics: explorer.states.graph.forgotStatistics)
    }
}
