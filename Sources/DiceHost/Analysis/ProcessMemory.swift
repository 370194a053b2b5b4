import Foundation

/// The process's resident memory now: what an exploration's budget (`--max-memory`) and
/// the progress lines of `odds` and `solve` report.
public enum ProcessMemory {
    /// Bytes resident (Linux: /proc/self/statm), 0 when unknown.
    public static func resident() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
