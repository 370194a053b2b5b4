import Foundation

/// Reading a script from disk without trusting the path: only a regular file (a FIFO
/// or a device would block or never end), of a size the state could hold, and - for
/// `require` - only inside the folder of the rules, even through symlinks.
public enum LuaSourceFile {
    public struct Problem: Error, CustomStringConvertible {
        public let path: String
        /// Why, without the path: "not a regular file".
        public let reason: String
        public var description: String { "cannot read \(path): \(reason)" }
    }

    /// The bytes of the script at `path`.
    public static func read(_ path: String, limit: Int) throws -> Data {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw Problem(path: path, reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw Problem(path: path, reason: "not a regular file")
        }
        guard info.st_size <= limit else {
            throw Problem(path: path, reason: "\(info.st_size) bytes is more than a script may have (\(limit))")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(path: path, reason: "unreadable")
        }
        return data
    }

    /// Whether `path`, with every symlink resolved, lies inside `directory`.
    public static func isInside(_ path: String, directory: String) -> Bool {
        guard let file = realPath(path), let folder = realPath(directory.isEmpty ? "." : directory) else { return false }
        return file.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
