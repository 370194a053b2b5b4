import Lua

/// What a game holds while nobody plays it, for a host that keeps many (a server's
/// idle rooms).
extension Game {
    /// The memory a game holds, as its own counts see it.
    public struct MemoryUse: Sendable, Equatable {
        /// Bytes the Lua state holds (its allocator's count): the libraries, the rules,
        /// `g`, the rollback copy of `g` when one is kept, and garbage not yet collected.
        public var luaBytes: Int
        /// Whether the copy of `g` the next input rolls back to is held.
        public var holdsRollbackCopy: Bool
        /// Events kept (for reconnects and the log) and their host bytes.
        public var events: Int
        public var eventBytes: Int
    }

    public var memoryUse: MemoryUse {
        MemoryUse(luaBytes: lua.memoryUsed, holdsRollbackCopy: lastSnapshot != nil,
                  events: eventLog.count, eventBytes: hostRecordBytes)
    }

    /// Lets go of what a game nobody is looking at need not hold: the copy of `g` kept as
    /// the next input's rollback point (the next input or look takes it again, at the cost
    /// of one copy) and the Lua garbage (a full collection: the incremental collector
    /// leaves up to as much garbage as live data between cycles). With
    /// `keepsRollbackCopy` off as well, inputs meanwhile (a timer firing in an empty room)
    /// keep no copy either. Nothing a script can see changes.
    public func releaseIdleMemory() {
        guard !inTransaction else { return }
        lastSnapshot = nil
        lua.collectGarbage()
    }
}
