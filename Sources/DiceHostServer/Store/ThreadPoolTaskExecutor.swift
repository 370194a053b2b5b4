import Dispatch
import NIOPosix

/// A NIO thread pool as a task executor: a store whose asynchronous statements run on a
/// one-thread pool (`StoreWithWriterThread`) has the group commit's drain run there too,
/// between them. A transaction of several statements then goes from statement to
/// statement on that one thread: each statement's work item resumes the drain by queueing
/// it behind itself, where on Swift's global executor every statement woke two threads.
/// (The SQLite store goes further: it writes whole transactions synchronously on its
/// thread, `StoreOnItsOwnThread`.)
///
///     let pool = NIOThreadPool(numberOfThreads: 1); pool.start()
///     Task.detached(executorPreference: ThreadPoolTaskExecutor(pool)) { … }
@available(macOS 15.0, *)
final class ThreadPoolTaskExecutor: TaskExecutor {
    let pool: NIOThreadPool

    init(_ pool: NIOThreadPool) { self.pool = pool }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pool.submit { state in
            guard case .active = state else {
                // The pool stopped (the store closed): a job cannot be dropped (its task would
                // never end), and is not run on the thread that enqueued it.
                return DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
            }
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
