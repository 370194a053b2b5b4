import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The threads rule code runs on, apart from the threads that serve connections
/// (NIO's event loops and Swift's cooperative pool), so a room busy in Lua never delays
/// a `ping`, a `hello` or another room's input (DESIGN.md, invariant 7).
///
/// Two lanes of threads: the normal lane (a thread a core, more while long jobs hold them
/// all, bounded) and the heavy lane (one thread at a lower scheduling priority) for rooms
/// that have used more than their share of CPU lately (`RoomCPUAccount`). A room's work
/// waits its turn in its lane's queue, one job at a time, round robin, so a room with
/// many jobs cannot hold a thread while another room waits.
final class RoomThreadPool: Sendable {
    /// Work a lane runs: one job each time it is picked; it asks to be queued again itself
    /// (`schedule(_:requeuedBy:)` with the lane it ran in). `cpu` is the thread's CPU clock
    /// (`threadCPUSeconds`) read when its last job ended; it returns the clock read when this
    /// one ended: one read of that clock per job, not two (it is a system call, and a room
    /// runs several jobs an input; the pool's few microseconds between two jobs are charged
    /// to the second).
    protocol Work: AnyObject, Sendable {
        func runOne(in lane: Lane, cpu: Double) -> Double
    }

    /// `@unchecked Sendable`: its queue, counts and busy times are read and written only
    /// with `condition` held, `rung` only with `alarm` held; the rest is constant.
    final class Lane: @unchecked Sendable {
        let name: String
        private let condition = NSCondition()
        /// Rung when a job is queued that no idle thread will take: only then does the stall
        /// watch look (it looked every 10 ms, a wake-up each time, even on an idle server).
        private let alarm = NSCondition()
        private var rung = false
        private let watched: Bool
        private var ready: [Work] = []
        private var head = 0
        private let niceness: Int32
        private let base: Int
        private let maximum: Int
        private var threads = 0
        /// Threads waiting for a job, and those of them signalled and not yet awake.
        private var idle = 0
        private var wakesInFlight = 0
        /// Threads woken for a job so far (for the tests).
        private var wakeUpsSent = 0
        /// When each running job started (by worker number), for the stall check.
        private var busySince: [Int: Double] = [:]
        private var nextWorker = 0

        /// `base` threads always; up to `maximum` while every thread has been busy with one
        /// job for longer than `stall` seconds and work waits (a room whose first input runs
        /// to its budget holds its thread until then: nothing can take a job off a thread).
        init(name: String, threads base: Int, maximum: Int, niceness: Int32, stall: Double?) {
            self.name = name
            self.niceness = niceness
            self.base = max(1, base)
            self.maximum = max(self.base, maximum)
            watched = stall != nil
            condition.lock()
            for _ in 0..<self.base { startWorker() }
            condition.unlock()
            if let stall {
                let watcher = Thread { [self] in
                    Thread.current.name = "\(name)-watch"
                    watch(stall: stall)
                }
                watcher.start()
            }
        }

        /// Called with the lock held.
        private func startWorker() {
            threads += 1
            nextWorker += 1
            let number = nextWorker
            let threadName = "\(name)-\(number)"
            let thread = Thread { [self] in
                #if canImport(Glibc)
                // On Linux a nice value is a thread's own (who = 0: the calling thread), so
                // a heavy room gives way to every other thread of the process.
                if niceness != 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
                #endif
                // Named from the thread itself (Foundation on Linux does not pass a name set
                // before `start` on), in at most 15 characters (Linux refuses longer ones):
                // else it keeps the name of the thread that started it (a Dispatch or NIO
                // thread) and tools like loadtest/syscalls.sh cannot tell the room threads apart.
                Thread.current.name = threadName
                run(number)
            }
            thread.stackSize = 16 << 20 // Lua's C stack (deep recursion in a rule script).
            thread.start()
        }

        func schedule(_ work: Work) { schedule(work, requeuedBy: nil) }

        /// Queues `work`. `requeuedBy` is the lane whose worker asks, from the end of the job
        /// it just ran (a room with more jobs going to the back of the queue): that worker
        /// takes the next job of its lane itself, so a job it covers wakes no other thread
        /// (each such wake-up was a futex wake, a context switch and a thread that found its
        /// job taken or took it from under the one that would have run it next).
        func schedule(_ work: Work, requeuedBy: Lane?) {
            let worker = requeuedBy === self ? 1 : 0
            condition.lock()
            ready.append(work)
            let waiting = ready.count - head
            // Takers on their way: threads signalled and not yet awake, and the asking worker.
            let wake = waiting > wakesInFlight + worker && idle > wakesInFlight
            if wake {
                wakesInFlight += 1
                wakeUpsSent += 1
            }
            // Each idle thread (one signalled and not yet running counts too) takes one job:
            // more jobs waiting than that only arise here, and then the watch must look.
            let uncovered = waiting > idle + worker
            condition.unlock()
            // Signalled after the lock is let go: a thread woken with it still held wakes only
            // to wait for the lock (a second futex wake-up when it is let go).
            if wake { condition.signal() }
            if uncovered, watched {
                alarm.lock()
                rung = true
                alarm.signal()
                alarm.unlock()
            }
        }

        /// Threads woken for a job so far.
        var wakeUps: Int {
            condition.lock()
            defer { condition.unlock() }
            return wakeUpsSent
        }

        private func run(_ number: Int) {
            var cpu = threadCPUSeconds()
            while true {
                condition.lock()
                idle += 1
                while head == ready.count {
                    // A thread started for a stall leaves once it has been idle a while.
                    let signalled = condition.wait(until: Date(timeIntervalSinceNow: 2))
                    // Awake, signalled or not: one fewer on its way (counting too few on their
                    // way only wakes a thread more).
                    if wakesInFlight > 0 { wakesInFlight -= 1 }
                    if !signalled, head == ready.count, threads > base {
                        idle -= 1
                        threads -= 1
                        condition.unlock()
                        return
                    }
                }
                idle -= 1
                let work = ready[head]
                head += 1
                if head > 1024, head * 2 > ready.count {
                    ready.removeFirst(head)
                    head = 0
                }
                busySince[number] = RoomCPUAccount.now()
                condition.unlock()
                cpu = work.runOne(in: self, cpu: cpu)
                condition.lock()
                busySince[number] = nil
                condition.unlock()
            }
        }

        private func watch(stall: Double) {
            while true {
                // Asleep until a job waits that no idle thread will take (`schedule` rings).
                alarm.lock()
                while !rung { alarm.wait() }
                rung = false
                alarm.unlock()
                // Then a look every stall/2 for as long as work waits.
                var waiting = true
                while waiting {
                    Thread.sleep(forTimeInterval: stall / 2)
                    condition.lock()
                    let now = RoomCPUAccount.now()
                    if idle == 0, head < ready.count, threads < maximum,
                       let oldest = busySince.values.min(), now - oldest > stall {
                        startWorker()
                    }
                    waiting = head < ready.count
                    condition.unlock()
                }
            }
        }
    }

    let normal: Lane
    let heavy: Lane

    init(normalThreads: Int, maximumNormalThreads: Int, heavyThreads: Int) {
        // Rule code gives way to the threads that serve connections only once it is heavy.
        normal = Lane(name: "rooms", threads: normalThreads, maximum: maximumNormalThreads, niceness: 0, stall: 0.02)
        heavy = Lane(name: "heavy-rooms", threads: heavyThreads, maximum: heavyThreads, niceness: 15, stall: nil)
    }

    /// One pool for the process (threads are started on first use and live as long as it):
    /// a thread a core for normal rooms (more, up to four a core, while long jobs hold them
    /// all), one for heavy rooms.
    static let shared: RoomThreadPool = {
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return RoomThreadPool(normalThreads: max(2, cores), maximumNormalThreads: max(8, 4 * cores), heavyThreads: 1)
    }()

    /// Runs `body` on the normal lane and returns its result (e.g. loading a rule script
    /// to check a new room's params: Lua, so not on a connection's thread).
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            normal.schedule(OneShot { continuation.resume(with: Result { try body() }) })
        }
    }

    private final class OneShot: Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        func runOne(in lane: Lane, cpu: Double) -> Double {
            body()
            return threadCPUSeconds()
        }
    }
}

/// How much CPU a thread has used (CLOCK_THREAD_CPUTIME_ID), in seconds.
func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
