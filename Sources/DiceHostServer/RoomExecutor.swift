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
    private var jobs: [UnownedJob] = []
    private var head = 0
    /// In a lane's queue or running: then a new job only joins `jobs`.
    private var scheduled = false
    private var account: RoomCPUAccount

    init(pool: RoomThreadPool = .shared, limits: ServerLimits) {
        self.pool = pool
        account = RoomCPUAccount(limits: limits, now: RoomCPUAccount.now())
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.lock()
        jobs.append(job)
        let schedule = !scheduled
        scheduled = true
        lock.unlock()
        if schedule { lane().schedule(self) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    func runOne(in current: RoomThreadPool.Lane, cpu start: Double) -> Double {
        lock.lock()
        let job = jobs[head]
        head += 1
        if head == jobs.count { jobs.removeAll(keepingCapacity: true); head = 0 }
        lock.unlock()
        job.runSynchronously(on: asUnownedSerialExecutor())
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
