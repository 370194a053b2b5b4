#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open files: every connection is one (and every room's log file
/// another), and the usual default of 1,024 holds far fewer players than a server is
/// sized for (`ServerLimits.connections`). `serve` raises it at start as far as the
/// system allows (the soft limit up to the hard one); when that is still below what its
/// limits need, it takes fewer connections (and, with logs, rooms) than configured
/// (`fitting`), so clients can never use up the files the server itself needs.
///
/// Why it must never run out: besides refusing rule files ("cannot read rule script
/// snap.lua: unreadable") and store writes, a full descriptor table kills the process.
/// Linux's libdispatch (which runs Swift's concurrency and Foundation's queues) checks its
/// worker threads once a second by opening `/proc/TID/stat`, and crashes the process
/// (`DISPATCH_CLIENT_CRASH`, "workq: registered worker exited prematurely": SIGILL in
/// `_dispatch_workq_monitor_pools`) when that open fails, as it does with EMFILE. That is
/// not code of ours to make answer an error, so the server keeps a reserve instead.
public struct OpenFileLimit: Sendable, Equatable {
    /// The soft limit before and after the raise, and the hard limit (the most allowed).
    public var before: UInt64
    public var now: UInt64
    public var hard: UInt64
    /// Open files the server's limits need.
    public var needed: UInt64

    public var isEnough: Bool { now >= needed }

    public init(before: UInt64, now: UInt64, hard: UInt64, needed: UInt64) {
        self.before = before
        self.now = now
        self.hard = hard
        self.needed = needed
    }

    /// Files the server keeps for itself besides its clients' connections and its rooms'
    /// logs, on a machine with `processors` cores. Measured on a 2-core machine with the
    /// SQLite store and logs under 400 clients (docs/scaling.md): 20 open at start
    /// (standard streams, the listening socket, the store's database and WAL, the event
    /// loops' epoll, event, timer and signal descriptors), at most 19 besides sockets and
    /// room logs under load. The reserve also covers what grows with the machine: 3 a core
    /// for the event loops, and a rule file being read (room creation, reload) on each room
    /// thread, up to `max(8, 4 × cores) + 1` of them, counted twice (its hash and its load).
    public static func reserve(processors: Int) -> UInt64 {
        let cores = UInt64(max(1, min(processors, 4_096)))
        return 64 + 3 * cores + 2 * (max(8, 4 * cores) + 1)
    }

    /// What `limits` need: a file a connection, a file a room's log (with logs), and the reserve.
    public static func needed(for limits: ServerLimits, logs: Bool, processors: Int) -> UInt64 {
        UInt64(max(0, limits.connections)) + (logs ? UInt64(max(0, limits.rooms)) : 0) + reserve(processors: processors)
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

    /// `limits` cut to what the open-files limit holds once the reserve is kept: connections
    /// (and, with logs, rooms: a log file each) past it are refused (503, "server-full")
    /// rather than taken until the process runs out of descriptors. With logs the files left
    /// are shared as the defaults share them, two connections to a room. Unchanged when
    /// the limit is enough.
    public func fitting(_ limits: ServerLimits, logs: Bool, processors: Int) -> ServerLimits {
        let reserve = Self.reserve(processors: processors)
        let left = now > reserve ? now - reserve : 0
        var fitted = limits
        var forConnections = left
        if logs {
            let rooms = min(UInt64(max(0, limits.rooms)), left / 3)
            fitted.rooms = Int(clamping: rooms)
            forConnections = left - rooms
        }
        fitted.connections = Int(clamping: min(UInt64(max(0, limits.connections)), forConnections))
        return fitted
    }

    /// One line for the operator: what was raised, and whether it is enough.
    public var report: String {
        let raised = now > before ? "open-files limit raised from \(before) to \(now)" : "open-files limit \(now)"
        if isEnough { return raised }
        return "\(raised) (the most the system allows: \(hard)), below the \(needed) this server's limits need "
            + "(ServerLimits.connections, a log file a room, and files for itself): "
            + "raise the hard limit (ulimit -Hn, LimitNOFILE= in a systemd unit)"
    }

    /// What the server takes instead of `configured`, for the operator (nil: all of it).
    public func capReport(configured: ServerLimits, fitted: ServerLimits) -> String? {
        guard fitted.connections < configured.connections || fitted.rooms < configured.rooms else { return nil }
        var parts = ["at most \(fitted.connections) connections (not \(configured.connections))"]
        if fitted.rooms < configured.rooms { parts.append("\(fitted.rooms) rooms (not \(configured.rooms))") }
        return "until then it takes " + parts.joined(separator: " and ") + ", and refuses the rest (503, server-full)"
    }
}
