import Foundation

/// The serial executor of one `Room` actor: its jobs run one at a time on the room
/// thread pool (never on a thread that serves connections), in the normal lane or, while
/// the room is heavy, the heavy lane. Every job's CPU time is charged to the room's
/// `RoomCPUAccount`, whatever the job did (an input, a timer, rendering the state).
///
/// `@unchecked Sendable`: enqueued from any thread, run on the pool's; its queue, its
/// `scheduled` flag and its account are read and written only with `lock` held.
final class RoomExecutor: SerialExecutor, RoomThreadPool.Work, @unchecked Sendable {
    private let pool: RoomThreadPool
    private let lock = NSLock()
    /// Jobs in order; `resumed`: a job of a task resumed while it preferred `resumption`.
    private var jobs: [(job: UnownedJob, resumed: Bool)] = []
    private var head = 0
    /// In a lane's queue or running: then a new job only joins `jobs`.
    private var scheduled = false
    private var account: RoomCPUAccount

    init(pool: RoomThreadPool = .shared, limits: ServerLimits) {
        self.pool = pool
        account = RoomCPUAccount(limits: limits, now: RoomCPUAccount.now())
    }

    /// The room's executor as the task executor a room's task prefers while the room waits
    /// for something another thread finishes (`GroupCommit.wait`): a continuation resumed
    /// from that thread goes to the generic executor, i.e. to the task's preferred one,
    /// before the task hops to the room. Preferring the reader's event loop, that was a
    /// wake-up of the loop and a second one of a room thread per stored input; preferring
    /// this, the resumed task is queued as one of the room's jobs and runs on its executor
    /// (issue 32).
    @available(macOS 15.0, *)
    var resumption: Resumption { Resumption(self) }

    @available(macOS 15.0, *)
    final class Resumption: TaskExecutor {
        let room: RoomExecutor
        init(_ room: RoomExecutor) { self.room = room }
        func enqueue(_ job: consuming ExecutorJob) { room.add(UnownedJob(job), resumed: true) }
    }

    func enqueue(_ job: consuming ExecutorJob) { add(UnownedJob(job), resumed: false) }

    private func add(_ job: UnownedJob, resumed: Bool) {
        lock.lock()
        jobs.append((job, resumed))
        let schedule = !scheduled
        scheduled = true
        lock.unlock()
        if schedule { lane().schedule(self) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    func runOne(in current: RoomThreadPool.Lane, cpu start: Double) -> Double {
        lock.lock()
        let (job, resumed) = jobs[head]
        head += 1
        if head == jobs.count { jobs.removeAll(keepingCapacity: true); head = 0 }
        lock.unlock()
        if #available(macOS 15.0, *), resumed {
            // On the room's executor as one of its jobs: the task's next step is its hop to
            // the room, which finds it there (no second job).
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: resumption.asUnownedTaskExecutor())
        } else {
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
        let end = threadCPUSeconds()
        let used = end - start
        lock.lock()
        let now = RoomCPUAccount.now()
        account.charge(used, now: now)
        let more = head < jobs.count
        if !more { scheduled = false }
        let heavy = more && account.isHeavy(now: now)
        lock.unlock()
        // One job, then to the back of the queue: rooms take turns. The thread that ran it
        // takes its lane's next job itself: no other is woken for this one.
        if more { (heavy ? pool.heavy : pool.normal).schedule(self, requeuedBy: current) }
        return end
    }

    private func lane() -> RoomThreadPool.Lane {
        lock.lock()
        let heavy = account.isHeavy(now: RoomCPUAccount.now())
        lock.unlock()
        return heavy ? pool.heavy : pool.normal
    }

    /// May the room run rule code now (see `RoomCPUAccount.admit`)?
    func admit() -> RoomCPUAccount.Verdict {
        lock.lock()
        defer { lock.unlock() }
        return account.admit(now: RoomCPUAccount.now())
    }

    /// Jobs queued and not yet run (for the tests).
    var queuedJobs: Int {
        lock.lock()
        defer { lock.unlock() }
        return jobs.count - head
    }

    /// CPU seconds the room has used.
    var cpuSecondsUsed: Double {
        lock.lock()
        defer { lock.unlock() }
        return account.used
    }
}

/// An actor whose serial executor is a `RoomExecutor` (a `Room`): what waits on its behalf
/// can have it resumed on that executor (`RoomExecutor.resumption`).
protocol OnRoomExecutor: Actor {
    nonisolated var executor: RoomExecutor { get }
}

extension Room: OnRoomExecutor {}
