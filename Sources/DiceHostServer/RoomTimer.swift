import NIOCore
import NIOPosix

/// A room's next timer (a rule's `timer.after`, Snap turning a slow player's card), kept
/// on one of the server's event loops. A room moves its timer after nearly
/// every input: as a task sleeping on Swift's global executor that was a cancelled sleep
/// (a Dispatch thread woken to end it), a new task (another woken to start it) and a
/// Dispatch timer per input, most of them never due. Here, moving it is taking an entry
/// out of a loop's timer heap and putting one in, which wakes nothing (a loop already
/// woken for the room's broadcast finds it there); only a timer that comes due makes a
/// task, which starts on that loop and hops to the room.
///
///     timer?.cancel()
///     timer = RoomTimer(at: deadline) { [weak self] in await self?.timerDue() }
final class RoomTimer: Sendable {
    private let scheduled: Scheduled<Void>

    /// Calls `fire` at `deadline` (at once when it has passed) unless cancelled before.
    init(at deadline: ContinuousClock.Instant, on loop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any(),
         _ fire: @escaping @Sendable () async -> Void) {
        // At most a year (rooms' timers wait a day at most): no overflow in nanoseconds.
        let wait = min(max(.zero, deadline - ContinuousClock.now), .seconds(365 * 24 * 3600))
        let delay: TimeAmount = .nanoseconds(wait.components.seconds * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000)
        scheduled = loop.scheduleTask(in: delay) {
            if #available(macOS 15.0, *) {
                Task(executorPreference: EventLoopTaskExecutor(loop)) { await fire() }
            } else {
                Task { await fire() }
            }
        }
    }

    /// The timer will not fire (a firing already under way goes on: `fire` checks the room's time itself).
    func cancel() { scheduled.cancel() }
}
