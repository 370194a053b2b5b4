import Foundation

/// A room's fair share of CPU over time: a token bucket of CPU seconds. It fills at
/// `share` seconds a second up to `burst`; every job the room's executor runs takes what
/// it used. A room that has spent part of its burst is *heavy* (its jobs go to the heavy
/// lane); one that is in debt is *slowed* (its next input or timer waits until the debt is
/// paid back); one that has stayed in debt for `suspendAfter` seconds is *suspended* for
/// `suspension` seconds (its players are told; inputs are refused, timers stop).
struct RoomCPUAccount {
    let share: Double
    let burst: Double
    let suspendAfter: Double
    let suspension: Double

    private(set) var tokens: Double
    private var updated: Double
    /// Since when the room has been in debt without paying back half its burst.
    private var inDebtSince: Double?
    private(set) var suspendedUntil: Double?
    /// CPU seconds used in all, for the curious (the benchmark reads the process's).
    private(set) var used = 0.0

    init(limits: ServerLimits, now: Double) {
        share = max(0.001, limits.roomCPUShare)
        burst = max(0.001, limits.roomCPUBurstSeconds)
        suspendAfter = limits.roomSuspendAfterSeconds
        suspension = limits.roomSuspensionSeconds
        tokens = burst
        updated = now
    }

    enum Verdict: Equatable {
        case run
        /// Slowed: try again after this many seconds.
        case wait(Double)
        /// Suspended: until this time (seconds on `RoomCPUAccount.now`'s clock).
        case suspended(until: Double, justNow: Bool)
    }

    private mutating func refill(now: Double) {
        tokens = min(burst, tokens + (now - updated) * share)
        updated = now
        if tokens >= burst / 2 { inDebtSince = nil }
    }

    mutating func charge(_ seconds: Double, now: Double) {
        refill(now: now)
        tokens -= seconds
        used += seconds
        if tokens < 0, inDebtSince == nil { inDebtSince = now }
    }

    /// Heavy rooms run on the heavy lane.
    mutating func isHeavy(now: Double) -> Bool {
        refill(now: now)
        return tokens < burst - min(0.1, burst / 2)
    }

    /// May the room run rule code now?
    mutating func admit(now: Double) -> Verdict {
        if let until = suspendedUntil {
            if now < until { return .suspended(until: until, justNow: false) }
            suspendedUntil = nil
            tokens = burst
            updated = now
            inDebtSince = nil
        }
        refill(now: now)
        if let since = inDebtSince, now - since >= suspendAfter {
            suspendedUntil = now + suspension
            return .suspended(until: now + suspension, justNow: true)
        }
        if tokens < 0 { return .wait(-tokens / share) }
        return .run
    }

    /// Seconds on a monotonic clock.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
