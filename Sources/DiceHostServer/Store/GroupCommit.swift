import Foundation

/// Group commit: rooms hand their writes in as they happen and get a ticket; one writer
/// takes everything waiting and stores it in one transaction, so one sync to disk covers
/// the inputs of every room that wrote meanwhile. A room awaits its ticket before it
/// acknowledges an input or sends its events. Writes are stored in the order they came,
/// and a list handed in together is stored whole or not at all.
final class GroupCommit: @unchecked Sendable {
    let store: any RoomStore
    // A lock, not an actor: a room hands its writes in without a suspension point, so
    // writes keep the order of the room's inputs however its actor is re-entered.
    private let lock = NSLock()
    private var pending: [[StoreWrite]] = []
    private var issued: UInt64 = 0
    /// Every ticket up to this one has been written, or has failed (`failures`).
    private var settled: UInt64 = 0
    private var failures: [(tickets: ClosedRange<UInt64>, error: String)] = []
    /// Lists a shared store left out of their transaction (the room moved to another
    /// process), by ticket. Rare: only a room whose lease was lost has any.
    private var refusals: [UInt64: StoreRefusal] = [:]
    private var waiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, Error>)] = []
    private var writing = false
    /// Transactions written and lists in them, for the benchmark and the tests.
    private(set) var transactions = 0
    private(set) var lists = 0

    init(store: any RoomStore) { self.store = store }

    /// Queues `writes` (one transaction's worth, never split) and returns their ticket.
    func enqueue(_ writes: [StoreWrite]) -> UInt64 {
        let (ticket, start) = lock.withLock { () -> (UInt64, Bool) in
            issued += 1
            pending.append(writes)
            let start = !writing
            writing = true
            return (issued, start)
        }
        if start {
            if let own = store as? any StoreOnItsOwnThread {
                // The store's thread writes and settles with no task and no hop between
                // statements: one wake-up of that thread for all that waits meanwhile.
                own.submit { self.drainHere(own) }
            } else if #available(macOS 15.0, *), let writer = (store as? any StoreWithWriterThread)?.writer {
                // On the store's own thread when it has one: the drain and the store's
                // statements then take turns there without waking other threads.
                Task.detached(executorPreference: writer) { await self.drain() }
            } else {
                Task.detached { await self.drain() }
            }
        }
        return ticket
    }

    /// Returns once the writes of `ticket` (and every earlier one) are stored; throws when
    /// the transaction that held them failed.
    ///
    /// Isolated to its caller (a room: `isolation`), so the drain resumes the room directly on
    /// its executor. A plain nonisolated async function hops off the room to the generic
    /// executor (the reader's event loop, or Swift's global executor) to suspend, is resumed
    /// there, then hops back: more thread wake-ups per stored input. (The drain's
    /// resumption still goes by the task's preferred executor, the reader's event loop, before
    /// the room. Preferring the room's own executor while waiting saved that wake-up but cost
    /// more than it saved: a task that prefers a task executor re-enqueues itself on the room
    /// at every hop inside it, as a room's jobs run without one; 13.9 room jobs an input
    /// against 9.5, and 3.7 M instructions an input against 3.1 M under callgrind.)
    func wait(for ticket: UInt64, isolation: isolated (any Actor)? = #isolation) async throws {
        try await withCheckedThrowingContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Error>) in
            let outcome = lock.withLock { () -> Result<Void, Error>? in
                guard ticket <= settled else {
                    waiters.append((ticket, continuation))
                    return nil
                }
                return result(of: ticket)
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// The ticket of the writes handed in last (0: none yet).
    var lastTicket: UInt64 { lock.withLock { issued } }

    /// Whether everything up to `ticket` is written (or failed): nothing to wait for.
    func isSettled(_ ticket: UInt64) -> Bool { lock.withLock { ticket <= settled } }

    /// Writes until nothing is waiting. One runs at a time (`writing`).
    private func drain() async {
        while let (batch, last) = take() {
            var failure: String?
            var refused: [Int: StoreRefusal] = [:]
            do { refused = try await store.commit(batch) } catch { failure = "\(error)" }
            settle(batch, last: last, failure: failure, refused: refused)
        }
    }

    /// The same on the store's own thread, its transactions written there synchronously.
    private func drainHere(_ own: any StoreOnItsOwnThread) {
        while let (batch, last) = take() {
            var failure: String?
            var refused: [Int: StoreRefusal] = [:]
            do { refused = try own.commitHere(batch) } catch { failure = "\(error)" }
            settle(batch, last: last, failure: failure, refused: refused)
        }
    }

    /// Everything waiting, and the last ticket in it; nil (and no longer writing) when
    /// nothing is.
    private func take() -> (batch: [[StoreWrite]], last: UInt64)? {
        lock.withLock { () -> (batch: [[StoreWrite]], last: UInt64)? in
            guard !pending.isEmpty else {
                writing = false
                return nil
            }
            defer { pending = [] }
            return (pending, issued)
        }
    }

    /// Marks the tickets up to `last` written (or failed) and resumes who waited for them.
    private func settle(_ batch: [[StoreWrite]], last: UInt64, failure: String?, refused: [Int: StoreRefusal]) {
        let ready = lock.withLock { () -> [(CheckedContinuation<Void, Error>, Result<Void, Error>)] in
            if let failure { failures.append((settled + 1 ... last, failure)) }
            // The batch's lists hold the tickets up to `last`, one each, in order.
            for (index, refusal) in refused where batch.indices.contains(index) { refusals[last - UInt64(batch.count - 1 - index)] = refusal }
            settled = last
            transactions += 1
            lists += batch.count
            let (done, waiting) = waiters.reduce(into: ([(ticket: UInt64, continuation: CheckedContinuation<Void, Error>)](), [(ticket: UInt64, continuation: CheckedContinuation<Void, Error>)]())) {
                if $1.ticket <= last { $0.0.append($1) } else { $0.1.append($1) }
            }
            waiters = waiting
            return done.map { ($0.continuation, result(of: $0.ticket)) }
        }
        for (continuation, outcome) in ready { continuation.resume(with: outcome) }
    }

    /// Called with the lock held.
    private func result(of ticket: UInt64) -> Result<Void, Error> {
        if let refusal = refusals[ticket] { return .failure(refusal) }
        if let failed = failures.last(where: { $0.tickets.contains(ticket) }) {
            return .failure(StoreError("the room store \(store.location) could not write: \(failed.error)"))
        }
        return .success(())
    }
}

/// A store whose asynchronous statements run on a thread of its own: the group commit's
/// drain runs there too, preferring `writer`, between them.
protocol StoreWithWriterThread {
    @available(macOS 15.0, *)
    var writer: any TaskExecutor { get }
}

/// A store that writes synchronously on a thread of its own (SQLite): the group commit's
/// drain runs there as plain calls, no task between them.
protocol StoreOnItsOwnThread: RoomStore {
    /// Runs `work` on the store's thread (once the store is closed, wherever it can).
    func submit(_ work: @escaping @Sendable () -> Void)
    /// Writes the lists in one transaction, as `commit`; called on the store's thread.
    func commitHere(_ batch: [[StoreWrite]]) throws -> [Int: StoreRefusal]
}
