import Foundation
import Lua

/// `dicehost fuzz`: random legal play of a rule script, every input checked (see
/// `FuzzCheck`), and the first failure shrunk to a short case.
///
///     let plan = Fuzzer.Plan(game: FuzzGame(rulesFile: "rules/race.lua", players: ["Ann", "Bob"]), seed: 1, inputs: 5_000)
///     let report = try Fuzzer.run(plan)
///     if let found = report.found { print(found.shrunk.inputs) }
///
/// Cases are numbered; case n's game seed and choices come from the plan's seed and n,
/// so a case reads the same whatever the thread count (with one thread and `inputs`,
/// the whole run is the same every time).
public enum Fuzzer {
    public struct Plan: Sendable {
        public var game: FuzzGame
        public var seed: UInt64
        /// Stop after this many inputs (whole cases), or
        public var inputs: Int?
        /// after this long (seconds); with neither, 10 seconds.
        public var seconds: Double?
        public var threads: Int
        /// How long shrinking may take.
        public var shrinkSeconds: Double
        /// Asked between cases: Ctrl-C.
        public var stop: (@Sendable () -> Bool)?
        /// Called now and then with the inputs and cases played so far.
        public var progress: (@Sendable (Int, Int) -> Void)?

        public init(game: FuzzGame, seed: UInt64 = 0, inputs: Int? = nil, seconds: Double? = nil, threads: Int = 1, shrinkSeconds: Double = 60) {
            self.game = game
            self.seed = seed
            self.inputs = inputs
            self.seconds = seconds
            self.threads = threads
            self.shrinkSeconds = shrinkSeconds
        }
    }

    public static let maxThreads = 256

    /// The game seed of case `number` (its choices are drawn from the next seed).
    static func caseSeed(_ seed: UInt64, _ number: Int) -> UInt64 {
        var mixer = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: number) &* 0xD6E8_FEB8_6659_FD93))
        return mixer.next() >> 1
    }

    /// Plays cases until a check fails, the inputs or seconds are used up, or `stop`;
    /// throws when the game does not start (a script that does not load).
    public static func run(_ plan: Plan) throws -> FuzzReport {
        guard (1...maxThreads).contains(plan.threads) else {
            throw GameError.refused("--threads must be from 1 to \(maxThreads), got \(plan.threads)")
        }
        let probe = try plan.game.makeGame(seed: plan.seed)
        let started = DispatchTime.now().uptimeNanoseconds
        let seconds = plan.inputs == nil ? (plan.seconds ?? 10) : plan.seconds
        let shared = SharedFuzzProgress()
        let done = DispatchGroup()
        // A task-local value does not follow a Thread: each worker binds it again.
        let coverage = LuaCoverage.current
        for worker in 0..<plan.threads {
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                LuaCoverage.$current.withValue(coverage) {
                    while let number = shared.nextCase(plan: plan, seconds: seconds, started: started) {
                        let seed = caseSeed(plan.seed, number)
                        do {
                            let played = try plan.game.play(seed: seed, choices: FuzzChoices(seed: seed ^ 0x5DEE_CE66_D1CE_D1CE))
                            shared.played(number: number, played, progress: plan.progress)
                        } catch {
                            shared.fail(error)
                            return
                        }
                    }
                }
            }
            thread.stackSize = 16 << 20
            thread.name = "fuzz \(worker)"
            thread.start()
        }
        done.wait()
        if let error = shared.error { throw error }
        let fuzzed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        var report = FuzzReport(rules: probe.rules.name, rulesFile: plan.game.rulesFile, players: probe.playerNames,
                                params: plan.game.params.map { "\($0.0)=\($0.1)" }, seed: plan.seed,
                                checks: plan.game.checks.sorted(), inputs: shared.inputs, cases: shared.cases, seconds: fuzzed,
                                stopped: plan.stop?() == true, found: nil)
        if let (number, failing) = shared.firstFailure {
            let shrinkStart = DispatchTime.now().uptimeNanoseconds
            var shrinker = FuzzShrinker(game: plan.game, seconds: plan.shrinkSeconds, stop: plan.stop)
            let shrunk = shrinker.shrink(failing)
            report.found = FuzzReport.Found(caseNumber: number, original: failing, shrunk: shrunk, shrinkRuns: shrinker.runs,
                                            shrinkSeconds: Double(DispatchTime.now().uptimeNanoseconds - shrinkStart) / 1e9)
        }
        return report
    }
}

/// The workers' shared count of cases and inputs, and the first failure (the lowest
/// case number among those that failed).
private final class SharedFuzzProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private(set) var inputs = 0
    private(set) var cases = 0
    private(set) var firstFailure: (Int, FuzzCase)?
    private(set) var error: Error?
    private var lastReport = DispatchTime.now().uptimeNanoseconds

    func nextCase(plan: Fuzzer.Plan, seconds: Double?, started: UInt64) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard firstFailure == nil, error == nil, plan.stop?() != true else { return nil }
        if let limit = plan.inputs, inputs + (next - cases) * plan.game.inputsPerCase >= limit { return nil }
        if let seconds, Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 >= seconds { return nil }
        next += 1
        return next - 1
    }

    func played(number: Int, _ played: FuzzCase, progress: (@Sendable (Int, Int) -> Void)?) {
        lock.lock()
        inputs += played.inputs.count
        cases += 1
        if played.failure != nil, firstFailure.map({ number < $0.0 }) ?? true { firstFailure = (number, played) }
        let now = DispatchTime.now().uptimeNanoseconds
        let report = now - lastReport > 200_000_000
        if report { lastReport = now }
        let (i, c) = (inputs, cases)
        lock.unlock()
        if report { progress?(i, c) }
    }

    func fail(_ error: Error) {
        lock.lock()
        if self.error == nil { self.error = error }
        lock.unlock()
    }
}
