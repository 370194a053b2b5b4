#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open files: every connection is one (and every room's log file
/// another), and the usual default of 1,024 holds far fewer players than a server is
/// sized for (`ServerLimits.connections`). `serve` raises it at start as far as the
/// system allows (the soft limit up to the hard one) and says so when that is still
/// below what its limits need.
public struct OpenFileLimit: Sendable, Equatable {
    /// The soft limit before and after the raise, and the hard limit (the most allowed).
    public var before: UInt64
    public var now: UInt64
    public var hard: UInt64
    /// Open files the server's limits need.
    public var needed: UInt64

    public var isEnough: Bool { now >= needed }

    /// Files the server needs besides its connections (listening socket, event loops'
    /// descriptors, rule files being read, standard streams).
    static let spare: UInt64 = 256

    /// What `limits` need: a file a connection, a file a room's log (with logs), and spare.
    public static func needed(for limits: ServerLimits, logs: Bool) -> UInt64 {
        UInt64(max(0, limits.connections)) + (logs ? UInt64(max(0, limits.rooms)) : 0) + spare
    }

    /// Raises the soft limit towards `needed` (never above the hard limit, never lowers it).
    /// Nil when the limit cannot be read.
    public static func raise(toward needed: UInt64) -> OpenFileLimit? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        let before = UInt64(limit.rlim_cur), hard = UInt64(limit.rlim_max)
        var now = before
        if before < needed {
            var raised = limit
            raised.rlim_cur = rlim_t(min(needed, hard))
            if setrlimit(resource, &raised) == 0 { now = UInt64(raised.rlim_cur) }
        }
        return OpenFileLimit(before: before, now: now, hard: hard, needed: needed)
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif

    /// One line for the operator: what was raised, and whether it is enough.
    public var report: String {
        let raised = now > before ? "open-files limit raised from \(before) to \(now)" : "open-files limit \(now)"
        if isEnough { return raised }
        return "\(raised) (the most the system allows: \(hard)), below the \(needed) this server's limits need "
            + "(ServerLimits.connections and a log file a room): connections past it are refused by the system; "
            + "raise the hard limit (ulimit -Hn, LimitNOFILE= in a systemd unit)"
    }
}
