@testable import DiceHostServer
import Foundation
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing

/// Where a served input's work runs (issue 32): a connection's reader on its own event
/// loop, before and after its room answers; the group commit's drain on the SQLite store's
/// own thread, between the store's statements.
struct ThreadHopsTests {
    /// An actor on a room executor (the room thread pool), as a `Room` is.
    actor RoomLike {
        nonisolated let executor = RoomExecutor(limits: ServerLimits())
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        func answer(_ loop: any EventLoop) -> Bool { loop.inEventLoop }
    }

    @Test func aConnectionsReaderRunsOnItsEventLoopAndComesBackToItAfterItsRoomAnswers() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loop = group.next()
        let room = RoomLike()
        let seen = try await ClientSocket.onEventLoop(loop) { () -> [Bool] in
            let first = loop.inEventLoop
            let inRoom = await room.answer(loop)
            let afterRoom = loop.inEventLoop
            // A child task (the socket's reader and writer are two) prefers the loop too.
            let child = await withTaskGroup(of: Bool.self) { tasks in
                tasks.addTask { _ = await room.answer(loop); return loop.inEventLoop }
                return await tasks.next() ?? false
            }
            return [first, inRoom, afterRoom, child]
        }
        #expect(seen == [true, false, true, true], "on the loop, the room on its own thread, back on the loop, a child task on the loop")
        try await group.shutdownGracefully()
    }

    /// A store whose commits note the thread they ran on.
    final class ThreadNotingStore: RoomStore, StoreWithWriterThread, @unchecked Sendable {
        // @unchecked Sendable: `threads` is read and written only with `lock` held.
        let location = "noting"
        let pool: NIOThreadPool
        private let lock = NSLock()
        private var threads: [pthread_t] = []
        init(pool: NIOThreadPool) { self.pool = pool }
        @available(macOS 15.0, *)
        var writer: any TaskExecutor { ThreadPoolTaskExecutor(pool) }
        func commit(_ batch: [[StoreWrite]]) async throws -> [Int: StoreRefusal] {
            let thread = pthread_self()
            lock.withLock { threads.append(thread) }
            // As SQLiteNIO's statements do: work on the pool, the drain resumed after it.
            let statement = try await pool.runIfActive { pthread_self() }
            let after = pthread_self()
            lock.withLock { threads += [statement, after] }
            return [:]
        }
        var noted: [pthread_t] { lock.withLock { threads } }
        func unfinishedRooms() async throws -> [StoredRoom] { [] }
        func closedReason(room: String) async throws -> String? { nil }
        func close() async {}
    }

    @Test func theGroupCommitDrainsOnTheStoresOwnThreadBetweenItsStatements() async throws {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let poolThread = try await pool.runIfActive { pthread_self() }
        let store = ThreadNotingStore(pool: pool)
        let commits = GroupCommit(store: store)
        for room in 1...3 {
            try await commits.wait(for: commits.enqueue([.input(room: "r\(room)", StoredInput(n: 1, line: "as Ann roll", time: 0, events: "[]"))]))
        }
        #expect(!store.noted.isEmpty)
        #expect(store.noted.allSatisfy { $0 == poolThread }, "the drain, each statement and the drain after it: all on the store's thread")
        try await pool.shutdownGracefully()
    }

    @available(macOS 15.0, *)
    @Test func aTaskPreferringAStoppedStoresThreadStillRunsToItsEnd() async throws {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        try await pool.shutdownGracefully()
        let ran = await Task.detached(executorPreference: ThreadPoolTaskExecutor(pool)) { () -> Bool in
            await Task.yield()
            return true
        }.value
        #expect(ran)
    }

    /// Names noted from any thread.
    final class Notes: @unchecked Sendable {
        // @unchecked Sendable: `names` is read and written only with `lock` held.
        private let lock = NSLock()
        private var names: [String] = []
        func add(_ name: String) { lock.withLock { names.append(name) } }
        var all: [String] { lock.withLock { names } }
    }

    @Test func aRoomTimerFiresOnceDueOnItsLoopAndACancelledOneNever() {
        let loop = EmbeddedEventLoop()
        let fired = Notes()
        let now = ContinuousClock.now
        let moved = RoomTimer(at: now + .seconds(1), on: loop) { fired.add("moved") }
        let due = RoomTimer(at: now + .seconds(2), on: loop) { fired.add(loop.inEventLoop ? "due, on its loop" : "due, elsewhere") }
        moved.cancel()
        loop.advanceTime(by: .milliseconds(1500))
        loop.run()
        #expect(fired.all.isEmpty, "the moved timer was cancelled; the other is not due yet")
        loop.advanceTime(by: .seconds(1))
        loop.run()
        #expect(fired.all == ["due, on its loop"])
        _ = due
    }

    /// A task executor that counts the jobs it runs (on Dispatch's threads).
    @available(macOS 15.0, *)
    final class CountingTaskExecutor: TaskExecutor, @unchecked Sendable {
        // @unchecked Sendable: `count` is read and written only with `lock` held.
        private let lock = NSLock()
        private var count = 0
        var jobs: Int { lock.withLock { count } }
        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            DispatchQueue.global().async {
                self.lock.withLock { self.count += 1 }
                job.runSynchronously(on: self.asUnownedTaskExecutor())
            }
        }
    }

    /// A room-like actor that waits for its ticket and says how many jobs the task's
    /// preferred executor ran meanwhile.
    actor TicketWaiter {
        nonisolated let executor = RoomExecutor(limits: ServerLimits())
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        @available(macOS 15.0, *)
        func wait(for ticket: UInt64, in commits: GroupCommit, counting: CountingTaskExecutor) async throws -> Int {
            let before = counting.jobs
            try await commits.wait(for: ticket)
            return counting.jobs - before
        }
    }

    @available(macOS 15.0, *)
    @Test func aRoomAskingForAStoredTicketStaysOnItsOwnExecutor() async throws {
        let store = GroupCommitTests.GatedStore()
        await store.open()
        let commits = GroupCommit(store: store)
        let ticket = commits.enqueue([.input(room: "r", StoredInput(n: 1, line: "as Ann roll", time: 0, events: "[]"))])
        try await commits.wait(for: ticket)
        let counting = CountingTaskExecutor()
        let waiter = TicketWaiter()
        let elsewhere = try await withTaskExecutorPreference(counting) { try await waiter.wait(for: ticket, in: commits, counting: counting) }
        // A nonisolated async `wait` hopped off the room to the task's preferred executor
        // (a connection's event loop in the server) and back, a wake-up each way. (One it
        // cannot save: a continuation resumed by the drain goes by the preferred executor.)
        #expect(elsewhere == 0, "no job of the task's preferred executor ran while the room asked")
    }

    /// An actor on a room executor of a pool of its own, noting the thread of each job.
    actor PooledRoom {
        nonisolated let executor: RoomExecutor
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        private(set) var threads: [pthread_t] = []
        init(pool: RoomThreadPool) { executor = RoomExecutor(pool: pool, limits: ServerLimits()) }
        func hold(entered: DispatchSemaphore, release: DispatchSemaphore) {
            threads.append(pthread_self())
            entered.signal()
            release.wait()
        }
        func note() { threads.append(pthread_self()) }
    }

    @Test func aRoomsJobsQueuedBehindOneAnotherRunOnTheThreadThatRanTheFirstAndWakeNoOther() async throws {
        let pool = RoomThreadPool(normalThreads: 3, maximumNormalThreads: 3, heavyThreads: 1)
        let room = PooledRoom(pool: pool)
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let first = Task { await room.hold(entered: entered, release: release) }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { entered.wait(); done.resume() }
        }
        let notes = (0..<4).map { _ in Task { await room.note() } }
        while room.executor.queuedJobs < 4 { await Task.yield() }
        let wakeUpsBefore = pool.normal.wakeUps
        release.signal()
        await first.value
        for note in notes { await note.value }
        let wakeUpsAfter = pool.normal.wakeUps
        let threads = await room.threads
        #expect(threads.count == 5)
        #expect(Set(threads.map { UInt($0) }).count == 1, "every job of the room on the thread that ran the first")
        // Each job went to the back of the lane's queue and was taken by the thread that ran
        // the one before: no other thread was woken for it (each was a futex wake-up before).
        #expect(wakeUpsAfter == wakeUpsBefore)
    }

    /// A job a lane runs once.
    final class LaneJob: RoomThreadPool.Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        func runOne(in lane: RoomThreadPool.Lane, cpu: Double) -> Double {
            body()
            return cpu
        }
    }

    @Test func aLaneWhoseOnlyThreadIsHeldStartsAnotherForTheJobWaitingBehindIt() {
        // The stall watch sleeps until a job waits that no idle thread will take; it must
        // still wake for it.
        let pool = RoomThreadPool(normalThreads: 1, maximumNormalThreads: 2, heavyThreads: 1)
        let started = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        pool.normal.schedule(LaneJob { started.signal(); released.wait(); done.signal() })
        started.wait()
        pool.normal.schedule(LaneJob { released.signal() })
        #expect(done.wait(timeout: .now() + 60) == .success, "the job behind the held one ran on a thread started for it")
    }
}
