import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes the files a session produces (saved games, recorded sessions, re-recorded
/// tests) so that a mistyped name cannot hurt: the text goes to a temporary file in the
/// same folder, which is then renamed over the target, so the target is either the old
/// file or the whole new one. Only regular files are written: a folder, a device, a
/// FIFO, a socket or a symbolic link is refused (a link is never followed to write
/// somewhere else), and so are the rules script and every file it `require`s. An
/// existing file that does not read as a transcript is kept unless `force` is set.
///
///     let writer = SafeFileWriter(protectedPaths: [game.sourcePath] + game.lua.loadedModulePaths)
///     try writer.write(session.transcript(for: "game.txt"), to: "game.txt")
public struct SafeFileWriter: Sendable {
    /// Files that must never be written (compared by device and inode when writing).
    public var protectedPaths: [String]
    /// Replace an existing file even if it is not a transcript.
    public var force: Bool
    /// How the user asks for `force` here, quoted in the error (`--force`, `save FILE --force`).
    public var forceHint: String

    public init(protectedPaths: [String] = [], force: Bool = false, forceHint: String = "--force") {
        self.protectedPaths = protectedPaths
        self.force = force
        self.forceHint = forceHint
    }

    /// Why a file was not written; the old file, if any, is unchanged.
    public struct WriteError: Error, Equatable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "cannot write \(path): \(reason)" }
    }

    /// The most a file that may be replaced is read to check it is a transcript.
    static let transcriptCheckLimit = 16 << 20

    /// Refuses a target this writer would not write, without writing anything.
    public func check(_ path: String) throws {
        guard !path.isEmpty else { throw WriteError(path: path, reason: "the file name is empty") }
        var info = stat()
        if lstat(path, &info) == 0 {
            if let kind = Self.kindIfNotRegular(info.st_mode) {
                throw WriteError(path: path, reason: "it is \(kind), not a regular file")
            }
            if isProtected(device: info.st_dev, inode: info.st_ino) {
                throw WriteError(path: path, reason: "it is the rules script or a file it requires")
            }
            if !force && !Self.readsAsTranscript(path, size: Int(clamping: info.st_size)) {
                throw WriteError(path: path, reason: "it exists and is not a transcript (\(forceHint) replaces it)")
            }
        } else if errno != ENOENT {
            throw WriteError(path: path, reason: String(cString: strerror(errno)))
        }
        let folder = Self.folder(of: path)
        var folderInfo = stat()
        guard stat(folder, &folderInfo) == 0 else {
            throw WriteError(path: path, reason: "no such folder \(folder)")
        }
        guard folderInfo.st_mode & S_IFMT == S_IFDIR else {
            throw WriteError(path: path, reason: "\(folder) is not a folder")
        }
    }

    /// Writes `text` to `path` by a temporary file in the same folder and a rename.
    public func write(_ text: String, to path: String) throws {
        try check(path)
        let folder = Self.folder(of: path)
        let name = PathName.lastComponent(of: path)
        var temporary = ""
        var fd: Int32 = -1
        for _ in 0..<8 {
            temporary = folder + "/." + name + ".tmp-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw WriteError(path: path, reason: String(cString: strerror(errno))) }
        var failure: Int32 = 0
        let bytes = Array(text.utf8)
        failure = Self.writeAll(fd, bytes, using: writeFunction)
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        if close(fd) != 0 && failure == 0 { failure = errno }
        if failure == 0 {
            // Checked again just before the rename: the target may have changed meanwhile.
            do { try check(path) } catch { unlink(temporary); throw error }
            if rename(temporary, path) != 0 { failure = errno }
        }
        if failure != 0 {
            unlink(temporary)
            throw WriteError(path: path, reason: String(cString: strerror(failure)))
        }
    }

    /// The system's `write`, replaceable in tests to fail as a full disk does.
    var writeFunction: @Sendable (Int32, UnsafeRawPointer, Int) -> Int = { fd, buffer, count in
        #if canImport(Glibc)
        Glibc.write(fd, buffer, count)
        #else
        Darwin.write(fd, buffer, count)
        #endif
    }

    /// Writes every byte (retrying after a signal); 0, or the errno that stopped it.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], using write: (Int32, UnsafeRawPointer, Int) -> Int) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return write(fd, base + offset, bytes.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if written == 0 { return EIO }
            offset += written
        }
        return 0
    }

    func isProtected(device: dev_t, inode: ino_t) -> Bool {
        protectedPaths.contains { protected in
            var info = stat()
            return stat(protected, &info) == 0 && info.st_dev == device && info.st_ino == inode
        }
    }

    /// "a folder", "a FIFO", … for anything that is not a regular file.
    static func kindIfNotRegular(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a folder"
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "something other than a file"
        }
    }

    static func readsAsTranscript(_ path: String, size: Int) -> Bool {
        if size == 0 { return true }  // nothing to lose
        guard size <= transcriptCheckLimit, let data = FileManager.default.contents(atPath: path) else { return false }
        return (try? Transcript(text: String(decoding: data, as: UTF8.self), path: path)) != nil
    }

    static func folder(of path: String) -> String {
        let folder = PathName.folder(of: path)
        return folder.isEmpty ? "." : folder
    }
}
