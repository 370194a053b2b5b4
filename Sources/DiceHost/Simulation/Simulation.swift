import Foundation
import Lua

/// Plays many games with the rules' `bot` policies. Game `i` of a study is seeded
/// with `Simulation.gameSeed(seed, index: i)` and played in a fresh game (in a Lua state
/// reused by one worker), so every game - and therefore the result - is the same
/// whatever the number of threads or shards.
///
///     var plan = Simulation.Plan(rulesFile: "rules/craps.lua", games: 100_000, seed: 1)
///     plan.params = [("rounds", "1")]
///     let result = try Simulation.run(plan)
///     print(Double(result.wins[0]) / Double(result.games))
public enum Simulation {
    public struct Plan: Sendable {
        public var rulesFile: String
        /// Empty: the smallest table the rules allow, named as `dicehost play` names them.
        public var players: [String] = []
        public var params: [(String, String)] = []
        public var games: Int
        public var seed: UInt64
        public var threads = ProcessInfo.processInfo.activeProcessorCount
        /// Shard `index` (1-based) of `count` plays its contiguous share of the games.
        public var shard = (index: 1, count: 1)
        /// Moves after which a game that has not ended is counted as unfinished.
        public var moveLimit = 10_000
        public var limits = LuaLimits.default
        /// Plays whole games inside Lua (`FastSimulation`: a block of games per call, no
        /// count hook, under a watchdog, each game held to the budget by its charges and
        /// its time); a game that fails, stalls or may have passed the budget that way is
        /// played again move by move, so the result is the same as with `false` (the
        /// move-by-move reference), only faster.
        public var playsInLua = true
        /// Called with each game as it ends, on the worker thread that played it (for
        /// `sim --csv`); nil costs nothing.
        public var gameFinished: (@Sendable (SimulatedGame) -> Void)?
        /// Called with the index of each game the fast path (`playsInLua`) left to the
        /// move-by-move reference, on the worker thread (tests and benchmarks watch how
        /// rarely that happens); it changes no result.
        public var playedMoveByMove: (@Sendable (Int) -> Void)?
        /// When requested, the workers stop after their current block; the result then
        /// covers the games from the start of the range that were all played (`ranges`).
        public var stop: SimulationStop?

        public init(rulesFile: String, players: [String] = [], games: Int, seed: UInt64) {
            self.rulesFile = rulesFile
            self.players = players
            self.games = games
            self.seed = seed
        }

        /// The game indices of this plan's shard.
        public var range: Range<Int> {
            // Empty for a plan out of range (`Simulation.problem` says why), never a trap.
            guard games > 0, shard.count > 0, (1...shard.count).contains(shard.index) else { return 0..<0 }
            func share(_ k: Int) -> Int {  // games * k / count, exact in double width (k <= count: it fits)
                shard.count.dividingFullWidth(games.multipliedFullWidth(by: k)).quotient
            }
            return share(shard.index - 1)..<share(shard.index)
        }
    }

    public enum PlanError: Error, CustomStringConvertible {
        case invalid(String)
        public var description: String { if case .invalid(let text) = self { return text }; return "" }
    }

    /// Games per unit of work a worker takes at a time.
    static let blockSize = 256

    /// The most games a study plays (2^40: beyond any run, and `games * shard` fits an Int).
    public static let maxGames = 1 << 40
    /// The most worker threads (each has its own Lua state).
    public static let maxThreads = 256
    /// The most shards a study is split into (2^20).
    public static let maxShards = 1 << 20
    /// The largest move limit of one game.
    public static let maxMoveLimit = 100_000_000

    /// Why the plan's numbers are out of range, or nil: the bounds above.
    public static func problem(with plan: Plan) -> String? {
        if !(1...maxGames).contains(plan.games) { return "--games must be from 1 to \(maxGames), got \(plan.games)" }
        if !(1...maxThreads).contains(plan.threads) { return "--threads must be from 1 to \(maxThreads), got \(plan.threads)" }
        if !(1...maxMoveLimit).contains(plan.moveLimit) { return "--move-limit must be from 1 to \(maxMoveLimit), got \(plan.moveLimit)" }
        if !(1...maxShards).contains(plan.shard.count) || !(1...max(1, plan.shard.count)).contains(plan.shard.index) {
            return "--shard must be i/n with 1 <= i <= n <= \(maxShards), got \(plan.shard.index)/\(plan.shard.count)"
        }
        return nil
    }

    /// Block `number` of `range` (blocks are computed, never listed: a range may hold 2^40 games).
    static func block(_ number: Int, of range: Range<Int>) -> Range<Int> {
        let lower = range.lowerBound + number * blockSize
        return lower..<min(lower + blockSize, range.upperBound)
    }

    static func blockCount(of range: Range<Int>) -> Int { (range.count + blockSize - 1) / blockSize }

    /// The seed of game `index` of a study seeded with `seed` (splitmix64 of both).
    public static func gameSeed(_ seed: UInt64, index: Int) -> UInt64 {
        var z = seed &+ 0x9E37_79B9_7F4A_7C15 &* (UInt64(bitPattern: Int64(index)) &+ 1)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Runs the plan on `plan.threads` workers. `progress` is called on the calling
    /// thread about ten times a second with the number of games played so far.
    /// Throws if the rules do not load; games that fail are counted, not thrown.
    public static func run(_ plan: Plan, progress: ((Int) -> Void)? = nil) throws -> SimulationResult {
        if let problem = problem(with: plan) { throw PlanError.invalid(problem) }
        // Load once here so a broken script is an error, not a million failed games.
        let probe = try Game(rulesFile: plan.rulesFile, players: plan.players, seed: 0, params: plan.params, limits: plan.limits)
        let study = SimulationResult.Study(rules: probe.rules.name, rulesFile: plan.rulesFile, players: probe.playerNames,
                                           params: plan.params.map { "\($0.0)=\($0.1)" }, seed: plan.seed,
                                           games: plan.games, moveLimit: plan.moveLimit)
        let range = plan.range
        let blockCount = blockCount(of: range)
        let shared = SharedProgress(blockCount: blockCount, study: study, stop: plan.stop)
        let workers = max(1, min(plan.threads, blockCount))
        let started = DispatchTime.now().uptimeNanoseconds
        let done = DispatchGroup()
        let players = probe.playerNames
        let watchdog = plan.playsInLua ? LuaWatchdog() : nil
        defer { watchdog?.stop() }
        for worker in 0..<workers {
            done.enter()
            let reuse = worker == 0 ? probe : nil
            let thread = Thread {
                defer { done.leave() }
                let game: Game
                do {
                    game = try reuse ?? Game(rulesFile: plan.rulesFile, players: players, seed: 0, params: plan.params, limits: plan.limits)
                } catch {
                    shared.fail(with: error)
                    return
                }
                game.recordsEvents = false
                game.transactional = false
                var fast: FastSimulation?
                // The fast path reports blocks, not games: a study that wants each game
                // (`sim --csv`) is played move by move.
                if let watchdog, plan.gameFinished == nil {
                    watchdog.watch(game.lua)
                    game.lua.useGenerationalCollector()
                    do { fast = try FastSimulation.load(into: game, seed: plan.seed, moveLimit: plan.moveLimit) } catch {
                        shared.fail(with: error)
                        return
                    }
                }
                while let number = shared.nextBlock() {
                    let block = block(number, of: range)
                    var result = SimulationResult(study: study, ranges: [[block.lowerBound, block.upperBound]])
                    if let fast {
                        fast.play(block, of: plan, into: &result)
                        shared.finish(number, result, unreported: block.count)
                        continue
                    }
                    var unreported = 0
                    for index in block {
                        let errors = result.errors
                        play(index, of: plan, in: game, into: &result)
                        plan.gameFinished?(SimulatedGame(index: index, seed: gameSeed(plan.seed, index: index), game: game, failed: result.errors > errors))
                        unreported += 1
                        if unreported == 64 { shared.played(unreported); unreported = 0 }
                    }
                    shared.finish(number, result, unreported: unreported)
                }
            }
            thread.stackSize = 16 << 20
            thread.start()
        }
        while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            progress?(min(shared.gamesPlayed, range.count))
        }
        if let error = shared.workerError { throw error }
        var result = shared.merged
        result.ranges = [[range.lowerBound, range.upperBound]]
        if let stop = plan.stop, stop.isRequested {  // only the blocks merged in order count
            let upper = shared.mergedBlockCount == 0 ? range.lowerBound : block(shared.mergedBlockCount - 1, of: range).upperBound
            result.ranges = upper > range.lowerBound ? [[range.lowerBound, upper]] : []
        }
        result.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        progress?(result.games)
        return result
    }

    /// Plays the game seeded `seed` one bot move at a time, each input a call of its own
    /// with its own instruction budget: the reference the fast path must agree with.
    static func playMoveByMove(seed: UInt64, in game: Game, moveLimit: Int) throws {
        let allowed = game.allowsLoopsInLua
        game.allowsLoopsInLua = false
        defer { game.allowsLoopsInLua = allowed }
        try game.startNewGame(seed: seed)
        for _ in 0..<moveLimit where !game.isOver { try game.playBotMove() }
    }

    /// How one game ended, played move by move.
    enum ReferenceOutcome {
        /// The seat that won (1-based), or nil for a draw; rolls, turns, metrics in order.
        case finished(seat: Int?, rolls: Int, turns: Int, metrics: [(String, Double)])
        case unfinished
        case failed(SimulationResult.Failure)
    }

    /// Plays game `index` of the plan move by move under the budget, in `game`'s state:
    /// the reference every way of simulating must agree with.
    static func playReference(_ index: Int, of plan: Plan, in game: Game) -> ReferenceOutcome {
        let seed = gameSeed(plan.seed, index: index)
        do {
            try playMoveByMove(seed: seed, in: game, moveLimit: plan.moveLimit)
        } catch {
            return .failed(.init(index: index, seed: seed, message: "\(error)"))
        }
        guard game.isOver else { return .unfinished }
        var seat: Int?
        if case .win(let name)? = game.outcome, let index = game.playerNames.firstIndex(of: name) { seat = index + 1 }
        return .finished(seat: seat, rolls: game.rollCount, turns: game.turnCount, metrics: game.metrics)
    }

    /// Plays game `index` to its end (or the move limit) move by move and counts it.
    static func play(_ index: Int, of plan: Plan, in game: Game, into result: inout SimulationResult) {
        result.games += 1
        switch playReference(index, of: plan, in: game) {
        case .failed(let failure):
            result.errors += 1
            if result.firstError == nil { result.firstError = failure }
        case .unfinished:
            result.unfinished += 1
        case .finished(let seat, let rolls, let turns, let metrics):
            if let seat { result.wins[seat - 1] += 1 } else { result.draws += 1 }
            result.rolls.add(rolls)
            result.turns.add(turns)
            var seen = Set<String>()
            for (name, value) in metrics {
                result.metrics[name, default: MetricTally()].add(value)
                if seen.insert(name).inserted { result.metrics[name]?.games += 1 }
            }
        }
    }
}

/// The little the workers share: which block is next, a counter, and the result so far.
/// Finished blocks merge in block order (so sums add up in the same order whatever the
/// threads) and are dropped: memory stays flat in the number of games.
private final class SharedProgress: @unchecked Sendable {
    private let lock = NSLock()
    private let blockCount: Int
    private var next = 0
    private var played = 0
    private var pending: [Int: SimulationResult] = [:]
    private var mergedBlocks = 0
    private(set) var merged: SimulationResult
    private(set) var workerError: Error?

    private let stop: SimulationStop?

    init(blockCount: Int, study: SimulationResult.Study, stop: SimulationStop? = nil) {
        self.blockCount = blockCount
        self.stop = stop
        merged = SimulationResult(study: study)
    }

    var mergedBlockCount: Int { lock.lock(); defer { lock.unlock() }; return mergedBlocks }

    func nextBlock() -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard workerError == nil, next < blockCount, !(stop?.isRequested ?? false) else { return nil }
        next += 1
        return next - 1
    }
    func finish(_ block: Int, _ result: SimulationResult, unreported: Int) {
        lock.lock(); defer { lock.unlock() }
        pending[block] = result
        played += unreported
        while let ready = pending.removeValue(forKey: mergedBlocks) {
            do { merged = try merged.merging(ready) } catch { workerError = workerError ?? error }
            mergedBlocks += 1
        }
    }
    func played(_ count: Int) { lock.lock(); played += count; lock.unlock() }
    var gamesPlayed: Int { lock.lock(); defer { lock.unlock() }; return played }
    func fail(with error: Error) { lock.lock(); workerError = workerError ?? error; lock.unlock() }
}
