import NIOCore

/// A connection's NIO event loop as the task executor its reader prefers: the
/// reader's code between suspensions (the WebSocket layer waiting for the next frame,
/// decoding a message, handing an input to its room, taking up again when the room is
/// done) runs on the thread that read the frame. On Swift's global executor each of those
/// resumptions woke a thread of its own (a futex wake-up and a switch per input at
/// least); on the event loop a frame read is handled in the same turn of the loop, and
/// the resumption after the room's answer rides on the wake-up the room's broadcast to
/// that loop makes anyway.
///
/// Only code that does not block belongs here (nothing of a room's rules: rooms run on
/// their own executors, `RoomExecutor`). The lobby, an actor without an executor of its
/// own, runs on its caller's loop: what it does that reads files or runs Lua goes to the
/// room threads (`RoomThreadPool.run`).
///
///     try await withTaskExecutorPreference(EventLoopTaskExecutor(channel.eventLoop)) { … }
@available(macOS 15.0, *)
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // From the loop itself (the usual case: a frame arrived) NIO only queues the task
        // for this turn of the loop; from another thread it wakes the loop once.
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
