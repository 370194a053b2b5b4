import CLua
import CLuaSupport
import Foundation

/// Lets a hot loop run Lua with no instruction budget - no count hook, so scripts run
/// two to three times faster - and still stops one that hangs. A thread looks at the
/// watched states every `period`; a watched call whose step counter (`beginStep`) has
/// not moved for two looks in a row is stopped, and `callWatched` throws a `.stalled`
/// error. It throws the same when any step took longer than what was left of its
/// budget could run at 4 instructions a nanosecond (CLUA_FASTEST_INSTRUCTIONS_PER_NS,
/// faster than any machine): such a step may have run past its budget, so a caller that
/// needs the budget's verdict (a simulation) replays the work budgeted; a step that
/// returned sooner cannot have.
///
///     let watchdog = LuaWatchdog()
///     // on the thread that runs `lua`:
///     watchdog.watch(lua)
///     let results = try lua.callWatched(loop, arguments)
///     // when all watched work is done:
///     watchdog.stop()
public final class LuaWatchdog: @unchecked Sendable {
    public let period: TimeInterval

    private struct Watched {
        let lua: LuaState          // kept alive while watched: the thread reads its context
        let thread: pthread_t
        var lastProgress: UInt64
        var idleLooks: Int
    }

    private let condition = NSCondition()
    private var watched: [Watched] = []
    private var stopped = false
    private var started = false

    public init(period: TimeInterval = 0.025) {
        self.period = period
    }

    deinit { stop() }

    /// Watches `lua` in the calling thread's calls to `callWatched` until `stop()`.
    public func watch(_ lua: LuaState) {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return }
        if !started {
            started = true
            clua_watchdog_install()
            let thread = Thread { [weak self] in self?.run() }
            thread.name = "dicehost-watchdog"
            thread.start()
        }
        clua_watchdog_unblock()
        let me = pthread_self()
        lua.watchingThread = me
        watched.append(Watched(lua: lua, thread: me, lastProgress: clua_progress_read(lua.context), idleLooks: 0))
    }

    /// Stops watching: the states' watched calls run budgeted from now on.
    public func stop() {
        condition.lock()
        stopped = true
        for entry in watched { entry.lua.watchingThread = nil }
        watched.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            _ = condition.wait(until: Date(timeIntervalSinceNow: period))
            if stopped { break }
            for i in watched.indices {
                let context = watched[i].lua.context
                let progress = clua_progress_read(context)
                if clua_watched_now(context) != 0 && progress == watched[i].lastProgress {
                    watched[i].idleLooks += 1
                    if watched[i].idleLooks >= 2 {
                        _ = clua_watchdog_stop(watched[i].thread, context)
                        watched[i].idleLooks = 0
                    }
                } else {
                    watched[i].idleLooks = 0
                }
                watched[i].lastProgress = progress
            }
        }
    }
}

extension LuaState {
    /// Starts a step of a long call from the host (a move of a simulation's loop): the
    /// step gets the whole budget again (a budget already spent stays spent); under a
    /// watchdog, it shows the call is making progress.
    public func beginStep() {
        clua_begin_step(L)
    }

    /// Whether `callWatched` from this thread runs without a count hook.
    public var isWatched: Bool {
        guard let thread = watchingThread else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    /// Whether a watchdog watches this state (from whichever thread runs it).
    public var isWatchedFromAnyThread: Bool { watchingThread != nil }

    /// Calls `function` with no count hook while a `LuaWatchdog` watches this state
    /// from this thread (work charged inside C still counts against the budget of
    /// each step); otherwise an ordinary budgeted `call`. A call the watchdog stops,
    /// whose charges trip a step's budget, or one of whose steps ran long enough to
    /// have passed its budget throws a `.stalled` error.
    public func callWatched(_ function: LuaValue, _ arguments: [LuaValue] = []) throws -> [LuaValue] {
        guard isWatched else { return try call(function, arguments) }
        clua_watch_begin(L, limits.instructionBudget.map { Int64(clamping: $0) } ?? Int64.max / 2)
        let results: [LuaValue]
        do {
            results = try call(function, arguments, budget: .some(nil))
        } catch var error as LuaError {
            if clua_watch_end(L) != 0 { error.kind = .stalled; error.message = stalledMessage }
            throw error
        }
        if clua_watch_end(L) != 0 { throw LuaError(kind: .stalled, message: stalledMessage) }
        return results
    }

    /// After `callWatched`: the budget its last step left for host work that finishes
    /// that step (its elapsed time counted as instructions at the fastest rate any
    /// machine runs), so the step costs what it would have cost under the count hook.
    public var watchedStepAllowance: Int { Int(clamping: clua_watch_allowance(L)) }

    private var stalledMessage: String {
        "stopped by the watchdog: a step made no progress for too long, used up its budget,"
            + " or ran long enough to have passed its instruction budget"
    }
}
