import Foundation
import Lua

/// An input is a transaction: one budget for all the work it causes, and rollback of the
/// Lua data and the host state when it fails.
extension Game {
    /// Runs one input - its hooks, timers and turn passes - under one instruction budget,
    /// with rollback of both the Lua data and the host state when it fails. `check` runs
    /// first and only reads (whose turn it is, the seat, the dice): an input it refuses
    /// changes nothing, so it needs no rollback at all.
    ///
    /// With undo history, the copy of `g` taken when the input ends is the next input's
    /// rollback point and its undo point; an input after which that copy cannot be taken
    /// (the state grew past the memory cap) is refused. Without (a served room), no copy
    /// is taken per input: a failed input goes back to the last copy and replays the
    /// inputs since (Game+RollbackReplay).
    func transaction(allowWhenOver: Bool = false, undoable: Bool = true, check: () throws -> Void = {},
                     _ body: () throws -> Void) throws {
        if isOver && !allowWhenOver {
            throw GameError.refused("the game is over (\(outcomeText)); use restart to play again")
        }
        try check()
        guard transactional, !inTransaction else {
            try withInputBudget {
                try body()
                try drainPendingTurns()
            }
            return
        }
        // The typed input `perform` is running is this transaction's, and no other's.
        let recorded = recordingInput
        recordingInput = nil
        if !keepsUndoHistory { return try replayableTransaction(undoable: undoable, recording: recorded, body) }
        let saved = checkpoint()
        let before = try currentSnapshot()
        inTransaction = true
        defer { inTransaction = false }
        let after: [LuaValue]
        do {
            after = try withInputBudget { () -> [LuaValue] in
                try body()
                try drainPendingTurns()
                // Not kept, not taken: the next input takes its copy when it begins.
                return keepsRollbackCopy ? try takeSnapshot(after: true, reusing: before) : []
            }
        } catch {
            // Compared first, rewritten only if something changed: most failed inputs are
            // refused before any hook wrote (a flip out of turn), and a compare only reads
            // (the restore of every table was most of what a refusal cost).
            putBack(before)
            rollBack(to: saved)
            lastSnapshot = keepsRollbackCopy ? before : nil
            throw error
        }
        lastSnapshot = keepsRollbackCopy ? after : nil
        if undoable { pushUndo(UndoPoint(checkpoint: saved, snapshot: before)) }
    }

    /// Runs one input's work under one budget, with Lua's errors as the game's.
    func withInputBudget<T>(_ body: () throws -> T) throws -> T {
        do { return try lua.withBudget(.none, body) } catch let error as LuaError { throw GameError.script(error) }
    }

    /// The copy the next input rolls back to: with undo history, the one taken when the
    /// last input ended; without, the last one taken (Game+RollbackReplay).
    func currentSnapshot() throws -> [LuaValue] {
        if let lastSnapshot { return lastSnapshot }
        let snapshot = try lua.withoutBudget { try takeSnapshot(after: false) }
        lastSnapshot = snapshot
        return snapshot
    }

    /// Copies every table reachable from `g` (values, keys, metatables). A table that
    /// still holds what its copy in `earlier` (the copy this input began from) holds
    /// shares that copy: copies are only read, and after an input most of `g` is as it
    /// was. When memory is short, the undo history goes first; then the input
    /// that grew the state is refused.
    func takeSnapshot(after input: Bool, reusing earlier: [LuaValue] = []) throws -> [LuaValue] {
        // The copies are the host's, never the script's: they take no identities.
        let serial = lua.creationSerial
        defer { lua.creationSerial = serial }
        do {
            return try lua.call(api.snapshot, [.table(g)] + earlier, budget: .some(nil))
        } catch let error as LuaError where error.kind == .memory && !undoStack.isEmpty {
            undoStack.removeAll()
            lua.collectGarbage()
            return try takeSnapshot(after: input, reusing: earlier)
        } catch let error as LuaError where error.kind == .memory {
            throw GameError.refused(input
                ? "the game state grew too large to keep a copy for rollback and undo (the memory cap is \(lua.limits.memoryBytes) bytes); the input was rolled back"
                : "the game state is too large to keep a copy for rollback (the memory cap is \(lua.limits.memoryBytes) bytes)")
        }
    }

    /// What the host needs to undo an input, besides the Lua tables under `g`.
    struct Checkpoint {
        var host: HostState
        var eventCount: Int
        var metricCount: Int
        var random: [UInt64]
        var g: LuaRef
        var playerTables: [LuaValue]
        var restarts: Int
        /// Identities of tables made from here on (see `LuaState.creationSerial`).
        var creationSerial: UInt64
    }

    func checkpoint() -> Checkpoint {
        Checkpoint(host: host, eventCount: eventLog.count, metricCount: recordedMetrics.count,
                   random: lua.random.state, g: g, playerTables: playerTables, restarts: restarts,
                   creationSerial: lua.creationSerial)
    }

    /// Runs host work that must leave the game exactly as it was - a status line, the
    /// `state` view - and puts back the host state and the identities new tables get.
    /// With `restoringLua`, it is a look (`readOnlyLook`): the hooks it calls get `g`
    /// read-only and a write raises, naming the field, so nothing under `g` needs a copy
    /// to be compared with or put back (that compare, after every seat's look, was half
    /// of what a served input cost).
    func leavingUnchanged<T>(restoringLua: Bool, _ body: () throws -> T) rethrows -> T {
        let saved = checkpoint()
        defer {
            host = saved.host
            eventLog.removeSubrange(saved.eventCount...)
            recordedMetrics.removeSubrange(saved.metricCount...)
            lua.random.state = saved.random
            lua.creationSerial = saved.creationSerial
        }
        guard restoringLua else { return try body() }
        return try readOnlyLook(body)
    }

    /// Puts the tables of `copies` (a `snapshot`) back as they were copied, if anything
    /// wrote to them; true when nothing had (they were only compared, not rewritten). One
    /// walk: `restore` compares each table with its copy and rewrites only those that
    /// differ (a look that caught `g.now` up rewrote every table).
    @discardableResult
    func putBack(_ copies: [LuaValue]) -> Bool {
        lua.withoutBudget { (try? lua.call(api.restore, copies, budget: .some(nil)).first) == .boolean(true) }
    }

    func rollBack(to saved: Checkpoint) {
        host = saved.host
        eventLog.removeSubrange(saved.eventCount...)
        recordedMetrics.removeSubrange(saved.metricCount...)
        lua.random.state = saved.random
        if g != saved.g { g = saved.g; lastSnapshot = nil }
        clockSeenByLua = nil // a restore put g.now back as it was
        playerTables = saved.playerTables
        restarts = saved.restarts
        lua.creationSerial = saved.creationSerial
    }
}
