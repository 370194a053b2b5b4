import Lua

/// Rollback without a copy of `g` per input, for a game without undo history (a served
/// room). The game is deterministic: the same state, generator, clock and creation
/// serials with the same inputs give the same game. So a copy of `g` is kept with the
/// host's state when it was taken (`RollbackBase`) and the typed inputs that succeeded
/// since; an input that fails puts the copy back in place (tables keep their identities,
/// so references captured in closures and timers stay valid), sets the host back to the
/// base and replays the inputs since, then takes a fresh copy there (a run of failures
/// replays once). A copy of all of `g` was most of what a served input cost; replaying
/// is paid only when an input fails after rule code ran. A new copy is taken every
/// `replayLimit` inputs, which bounds what a failure replays.
extension Game {
    /// What a failed input is replayed from: the host's state when `lastSnapshot` was
    /// taken and what happened since.
    struct RollbackBase {
        var checkpoint: Checkpoint
        /// `forgottenEvents` then: dropping events from the front of the log moves the
        /// checkpoint's event count, so the next input takes a new base.
        var forgotten: Int
        var steps: [RollbackStep] = []
        var inputs = 0
    }

    /// One thing that happened since the base.
    enum RollbackStep {
        /// A typed input that succeeded (its events, timers and turns come again).
        case input(GameInput)
        /// The clock moved with no timer due (`advance`'s path that runs no rule code).
        case clock(Int)
    }

    /// Inputs replayed at most when one fails, before a new copy is taken. Snap, release
    /// build: a copy is about 245 k instructions and a bot's move about 180 k, so a copy
    /// every 16 inputs adds about 15 k to each input (the copy after every input added
    /// 245 k) and a failure after rule code ran replays 8 inputs on average.
    static let replayLimit = 16
    /// The share of inputs failing after rule code ran (in 1024ths, `rollbackRate`, a
    /// moving average over about 16 inputs) above which each input takes its copy when it
    /// ends, as with undo history. A failure replays 8 inputs on average (a move costs
    /// about 0.7 copies) and takes a copy: replaying is the cheaper while fewer than about
    /// one input in seven fails (Liar's Dice with a bid refused by the rules every fourth
    /// input cost 32% more replaying than copying).
    static let replayRateLimit = 128

    /// Whether `input`'s kind is one transaction with nothing changed outside it, so
    /// replaying it redoes exactly what it did. A restart makes a new `g` and a reload
    /// new rules: each takes a new base instead.
    static func isReplayable(_ input: GameInput) -> Bool {
        switch input.kind {
        case .roll, .action, .tick, .device, .tilt, .sensor, .bot, .skip: return true
        case .restart, .reload: return false
        }
    }

    /// A transaction without undo history (see `transaction`): no copy of `g` when it
    /// succeeds, only `recording` kept; a copy when it begins only if there is none yet or
    /// the base has `replayLimit` inputs. An input that is not recorded (called directly,
    /// not through `perform`, or a restart) takes a copy when it ends, as every input did.
    func replayableTransaction(undoable: Bool, recording: GameInput?, _ body: () throws -> Void) throws {
        let saved = checkpoint()
        try prepareRollbackBase(at: saved)
        inTransaction = true
        defer { inTransaction = false }
        // While inputs fail often, a copy after each one is cheaper than a replay per failure.
        let recorded = rollbackRate > Self.replayRateLimit ? nil : recording.flatMap { Self.isReplayable($0) ? $0 : nil }
        var copy: [LuaValue]?
        do {
            try withInputBudget {
                try body()
                try drainPendingTurns()
                if recorded == nil, keepsRollbackCopy { copy = try takeSnapshot(after: true, reusing: lastSnapshot ?? []) }
            }
        } catch {
            rollbackRate += (1024 - rollbackRate) / 16
            goBack(before: saved)
            throw error
        }
        rollbackRate -= rollbackRate / 16
        if !keepsRollbackCopy {
            lastSnapshot = nil // an idle room holds no copy between inputs
        } else if let copy {
            lastSnapshot = copy
            rollbackBase = RollbackBase(checkpoint: checkpoint(), forgotten: forgottenEvents)
        } else if let recorded {
            rollbackBase?.steps.append(.input(recorded))
            rollbackBase?.inputs += 1
        }
        if undoable { pushUndo(UndoPoint(checkpoint: saved, snapshot: [])) }
    }

    /// Makes sure the input about to run has a copy and a base to go back to. With no
    /// steps since the base, the copy is `g` as it is now (a failed input put it back, a
    /// look reads only) and the base moves up to `saved` at no cost. An input that finds
    /// no copy and cannot take one (the state grew past the memory cap) is refused.
    func prepareRollbackBase(at saved: Checkpoint) throws {
        guard let copy = lastSnapshot else {
            lastSnapshot = try lua.withoutBudget { try takeSnapshot(after: false) }
            rollbackBase = RollbackBase(checkpoint: saved, forgotten: forgottenEvents)
            return
        }
        guard let base = rollbackBase, !base.steps.isEmpty else {
            rollbackBase = RollbackBase(checkpoint: saved, forgotten: forgottenEvents)
            return
        }
        let usable = base.forgotten == forgottenEvents
        guard base.inputs >= Self.replayLimit || !usable else { return }
        do {
            let fresh = try lua.withoutBudget { try takeSnapshot(after: false, reusing: copy) }
            lastSnapshot = fresh
            rollbackBase = RollbackBase(checkpoint: saved, forgotten: forgottenEvents)
        } catch where usable {
            // Past the memory cap a new copy does not fit, but the old base still serves
            // (a failure replays more inputs).
        }
    }

    /// The clock moved with no rule code run: a step to replay, or with none yet the
    /// base's own clock.
    func recordClockMove() {
        guard var base = rollbackBase else { return }
        rollbackBase = nil // not copied on write below
        if base.steps.isEmpty {
            base.checkpoint.host.now = host.now
        } else if case .clock? = base.steps.last {
            base.steps[base.steps.count - 1] = .clock(host.now) // a catch-up before each refused input adds none
        } else {
            base.steps.append(.clock(host.now))
        }
        rollbackBase = base
    }

    /// Puts the game back as it was before the failed input that began at `saved`.
    private func goBack(before saved: Checkpoint) {
        guard let base = rollbackBase, let copy = lastSnapshot, !base.steps.isEmpty else {
            if let copy = lastSnapshot { putBack(copy) }
            rollBack(to: saved)
            return
        }
        // A replay runs as the inputs first ran (each under its own budget); one that
        // fails all the same can only have met the memory cap with more garbage about
        // than the first time, so it is tried again after a full collection.
        var replayed = replay(base, from: copy)
        if !replayed {
            lua.collectGarbage()
            replayed = replay(base, from: copy)
        }
        // The log and metrics as they were before the failed input: the replay made the
        // same events again.
        if eventLog.count > saved.eventCount { eventLog.removeSubrange(saved.eventCount...) }
        if recordedMetrics.count > saved.metricCount { recordedMetrics.removeSubrange(saved.metricCount...) }
        // A fresh base here, so the next failure replays nothing. The host state is the
        // replay's (its timers hold the closures the replay made, which `g` holds too).
        if let fresh = try? lua.withoutBudget({ try takeSnapshot(after: false, reusing: copy) }) {
            lastSnapshot = fresh
            rollbackBase = RollbackBase(checkpoint: checkpoint(), forgotten: forgottenEvents)
        } else if !replayed {
            lastSnapshot = nil // the next input takes its copy when it begins, or is refused
        } // else the old base and its steps still lead here
    }

    /// Sets the game to `base` and replays its steps; false if one failed.
    private func replay(_ base: RollbackBase, from copy: [LuaValue]) -> Bool {
        putBack(copy)
        rollBack(to: base.checkpoint)
        for step in base.steps {
            switch step {
            case .clock(let now): host.now = now
            case .input(let input):
                do { try perform(input) } catch { return false }
            }
        }
        return true
    }
}
