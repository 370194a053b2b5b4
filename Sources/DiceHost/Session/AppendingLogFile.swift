import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `--log FILE` of a play session: every line is appended as it happens, so the file
/// can be followed with `tail -f`. It is opened without following a symbolic link and
/// must be a regular file other than the rules (or a file they require). A write that
/// fails (a full disk, an I/O error) ends the logging with one warning; the game goes on.
public final class AppendingLogFile {
    public let path: String
    private var fd: Int32
    /// Set when a write failed: the warning to show once; nothing is written after it.
    public private(set) var failure: String?

    /// Opens (creating) `path` for appending; throws `SafeFileWriter.WriteError`.
    public init(path: String, protectedPaths: [String]) throws {
        self.path = path
        var before = stat()
        if lstat(path, &before) == 0, let kind = SafeFileWriter.kindIfNotRegular(before.st_mode) {
            throw SafeFileWriter.WriteError(path: path, reason: "it is \(kind), not a regular file")
        }
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o666)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link, not a regular file" : String(cString: strerror(errno))
            throw SafeFileWriter.WriteError(path: path, reason: reason)
        }
        var info = stat()
        let kind: String? = fstat(fd, &info) == 0 ? SafeFileWriter.kindIfNotRegular(info.st_mode) : "unreadable"
        let writer = SafeFileWriter(protectedPaths: protectedPaths)
        if let kind {
            close(fd)
            throw SafeFileWriter.WriteError(path: path, reason: "it is \(kind), not a regular file")
        }
        if writer.isProtected(device: info.st_dev, inode: info.st_ino) {
            close(fd)
            throw SafeFileWriter.WriteError(path: path, reason: "it is the rules script or a file it requires")
        }
        // Opened non-blocking so a FIFO could not hang the open; a regular file never blocks.
        _ = fcntl(fd, F_SETFL, O_WRONLY | O_APPEND)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Appends `text`; after a failed write, returns the warning once and then does nothing.
    @discardableResult
    public func append(_ text: String) -> String? {
        guard fd >= 0 else { return nil }
        let error = SafeFileWriter.writeAll(fd, Array(text.utf8), using: writeFunction)
        guard error != 0 else { return nil }
        close(fd)
        fd = -1
        let warning = "warning: cannot write the log \(path): \(String(cString: strerror(error))); logging stopped, the game goes on"
        failure = warning
        return warning
    }

    /// The system's `write`, replaceable in tests to fail as a full disk does.
    var writeFunction: (Int32, UnsafeRawPointer, Int) -> Int = { fd, buffer, count in
        #if canImport(Glibc)
        Glibc.write(fd, buffer, count)
        #else
        Darwin.write(fd, buffer, count)
        #endif
    }
}
