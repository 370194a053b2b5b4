import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The threads rule code runs on, apart from the threads that serve connections
/// (NIO's event loops and Swift's cooperative pool), so a room busy in Lua never delays
/// a `ping`, a `hello` or another room's input (DESIGN.md, invariant 7).
///
/// Two lanes of a fixed number of threads each: the normal lane (two threads a core, at
/// least four) and the heavy lane (one thread at a lower scheduling priority) for rooms
/// that have used more than their share of CPU lately (`RoomCPUAccount`). A room's work
/// waits its turn in its lane's queue, one job at a time, round robin, so a room with
/// many jobs cannot hold a thread while another room waits.
final class RoomThreadPool: @unchecked Sendable {
    /// Work a lane runs: one job each time it is picked; it asks to be queued again itself.
    protocol Work: AnyObject, Sendable {
        func runOne()
    }

    final class Lane: @unchecked Sendable {
        let name: String
        private let condition = NSCondition()
        private var ready: [Work] = []
        private var head = 0

        init(name: String, threads: Int, niceness: Int32) {
            self.name = name
            for index in 0..<max(1, threads) {
                let thread = Thread { [self] in
                    #if canImport(Glibc)
                    // On Linux a nice value is a thread's own (who = 0: the calling thread), so
                    // a heavy room gives way to every other thread of the process.
                    if niceness != 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
                    #endif
                    run()
                }
                thread.name = "dicehost-\(name)-\(index)"
                thread.stackSize = 16 << 20 // Lua's C stack (deep recursion in a rule script).
                thread.start()
            }
        }

        func schedule(_ work: Work) {
            condition.lock()
            ready.append(work)
            condition.signal()
            condition.unlock()
        }

        private func run() {
            while true {
                condition.lock()
                while head == ready.count { condition.wait() }
                let work = ready[head]
                head += 1
                if head > 1024, head * 2 > ready.count {
                    ready.removeFirst(head)
                    head = 0
                }
                condition.unlock()
                work.runOne()
            }
        }
    }

    let normal: Lane
    let heavy: Lane

    init(normalThreads: Int, heavyThreads: Int) {
        // Rule code gives way to the threads that serve connections, a heavy room's more so.
        normal = Lane(name: "rooms", threads: normalThreads, niceness: 5)
        heavy = Lane(name: "heavy-rooms", threads: heavyThreads, niceness: 15)
    }

    /// One pool for the process (threads are started on first use and live as long as it).
    /// Twice as many normal threads as cores: a job cannot be taken off its thread, so a room
    /// whose first input runs to its budget holds one until then (after that it is heavy);
    /// as many such rooms at once as there are cores still leave threads for the others.
    static let shared = RoomThreadPool(normalThreads: max(4, 2 * ProcessInfo.processInfo.activeProcessorCount), heavyThreads: 1)

    /// Runs `body` on the normal lane and returns its result (e.g. loading a rule script
    /// to check a new room's params: Lua, so not on a connection's thread).
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            normal.schedule(OneShot { continuation.resume(with: Result { try body() }) })
        }
    }

    private final class OneShot: Work, @unchecked Sendable {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
        func runOne() { body() }
    }
}

/// How much CPU a thread has used (CLOCK_THREAD_CPUTIME_ID), in seconds.
func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
