import DiceHost
import Foundation

/// The room's real-time clock: game time follows the server's clock, timers fire when due
/// (the turn clock's deadline too), and a room over its share of CPU waits or is suspended.
extension Room {
    /// Game time now on the server's clock (ms since the game started).
    var clockNow: Int {
        let elapsed = ContinuousClock.now - origin
        let ms = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return Int(clamping: ms)
    }

    /// Moves the game clock to the server's clock (firing due timers, in order) before an
    /// input is applied, so the input happens at the time it arrived.
    func catchUpClock() throws {
        guard let game, !game.isOver, !abandoned else { return }
        let target = clockNow
        guard target > game.now else { return }
        try applyRoomInput(GameInput(.tick(milliseconds: min(target - game.now, GameSession.maxTickMilliseconds))), to: game)
    }

    /// Sleeps until the next timer is due, then moves the clock and broadcasts.
    func scheduleTimer() {
        timerTask?.cancel()
        timerTask = nil
        updateTurnClock()
        guard !closed, let game else { return }
        var due = abandoned ? nil : game.nextTimerDue
        if let clock = turnClock { due = min(due ?? clock.deadline, clock.deadline) }
        guard let due else { return }
        // A failing clock in a room nobody is in does not retry for ever: it waits for someone.
        if timerFailures > 0, subscribers.isEmpty { return }
        var deadline = origin.advanced(by: .milliseconds(due))
        if let retryAfter, retryAfter > deadline { deadline = retryAfter }
        timerTask = RoomTimer(at: deadline) { [weak self] in await self?.timerDue() }
    }

    func timerDue() {
        // A timer that fired while the room was being closed (moved to another process,
        // swept as idle) finds it closed here: cancel() cannot stop a firing under way.
        guard !closed else { return }
        switch executor.admit() {
        case .run: break
        case .wait(let seconds):
            retryAfter = ContinuousClock.now + .milliseconds(Int(min(seconds, 3600) * 1000) + 1)
            return scheduleTimer()
        case .suspended(let until, let justNow):
            if justNow { announceSuspension() }
            retryAfter = ContinuousClock.now + .milliseconds(Int(min(until - RoomCPUAccount.now(), 3600) * 1000) + 1)
            return scheduleTimer()
        }
        var cause = ServerMessage.object([("input", .string("clock"))])
        do {
            try catchUpClock()
            retryAfter = nil
            timerFailures = 0
            if let moved = turnClockDue() { cause = moved }
        } catch {
            // Each failure waits twice as long; with nobody here the clock stops until someone comes.
            let wait = min(limits.timerRetryMaxSeconds, limits.timerRetrySeconds * Double(1 << min(timerFailures, 20)))
            timerFailures += 1
            retryAfter = ContinuousClock.now + .milliseconds(Int(wait * 1000))
            broadcast(errorMessage(.ruleError, publicText("a timer failed: \(error)")))
        }
        broadcastPending(cause: cause)
        // An empty room whose rules play on (Snap turns a slow player's card) stays settled:
        // else its Lua garbage grows to the size of its live data before a collection comes.
        if subscribers.isEmpty { settleIdle() }
    }

    // MARK: Fair share

    /// Waits while the room is slowed; false when it is suspended (its players told once).
    func admitRuleCode() async -> Bool {
        while !Task.isCancelled {
            switch executor.admit() {
            case .run: return true
            case .wait(let seconds): try? await Task.sleep(for: .milliseconds(Int(min(seconds, 3600) * 1000) + 1))
            case .suspended(_, let justNow):
                if justNow { announceSuspension() }
                return false
            }
        }
        return false
    }

    func suspensionText() -> String {
        "room \(id) used more than its share of the server (\(Int(limits.roomCPUShare * 100))% of a core) for \(Int(limits.roomSuspendAfterSeconds)) s: "
            + "it is suspended for \(Int(limits.roomSuspensionSeconds)) s (inputs are refused, timers wait)"
    }

    /// A message without the server's folders in it.
    func publicText(_ text: String) -> String {
        PublicText.hidingPaths(text, rulesDirectory: (entry.path as NSString).deletingLastPathComponent)
    }

    func announceSuspension() {
        broadcast(errorMessage(.suspended, suspensionText()))
    }
}
