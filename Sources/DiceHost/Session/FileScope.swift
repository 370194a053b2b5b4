import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a play session may read and write files (`save FILE`, `load FILE`).
///
/// At the prompt (`FileScope.workingDirectory`) names are relative to the working
/// directory and any file may be loaded; what is written obeys `SafeFileWriter`. A rule
/// test runs in `FileScope.test(transcript:temporaryFolder:)`: `save` writes only into
/// a fresh temporary folder, `load` reads a file saved there or one beside the
/// transcript, and no real path may leave those two folders.
public struct FileScope: Sendable {
    /// Where a relative `save` name is written.
    public var writeFolder: String
    /// Where a relative `load` name is looked for, in order.
    public var readFolders: [String]
    /// When non-empty, every file read or written must lie (by real path) under one of these.
    public var confinedTo: [String]
    /// The rules that decide what may be written (the protected files are the game's own).
    public var writer: SafeFileWriter
    /// Why nothing may be written here at all (`save` is refused with it), if so.
    public var writingRefused: String?
    /// What a read outside `confinedTo` is refused with.
    public var confinementReason = "a test may only load files in its own folder or saved by it"

    /// `load` inside a loaded transcript nests at most this deep.
    public static let maxLoadDepth = 8

    public init(writeFolder: String, readFolders: [String], confinedTo: [String] = [], writer: SafeFileWriter = SafeFileWriter()) {
        self.writeFolder = writeFolder
        self.readFolders = readFolders
        self.confinedTo = confinedTo.map(Self.realPath)
        self.writer = writer
    }

    /// The REPL's scope: the working directory, nothing confined.
    public static var workingDirectory: FileScope {
        FileScope(writeFolder: ".", readFolders: ["."], writer: SafeFileWriter(forceHint: "save FILE --force"))
    }

    /// A rule test's scope: writes go to `temporaryFolder`, reads come from there or from
    /// the transcript's folder, and nothing else is reachable.
    public static func test(transcript: String, temporaryFolder: String) -> FileScope {
        let folder = SafeFileWriter.folder(of: transcript)
        return FileScope(writeFolder: temporaryFolder, readFolders: [temporaryFolder, folder],
                         confinedTo: [temporaryFolder, folder], writer: SafeFileWriter(forceHint: "save FILE --force"))
    }

    /// A replayed game log's scope: a log is data from someone else, so nothing is
    /// written (a logged `save` is refused) and files are read only from the log's own
    /// folder (`sensor accelerometer FILE`); with no folder (a log parsed from text),
    /// nothing is read.
    public static func replay(logFolder: String?) -> FileScope {
        let folder = logFolder ?? "/nonexistent/dicehost-replay-reads-nothing"
        var scope = FileScope(writeFolder: folder, readFolders: logFolder.map { [$0] } ?? [], confinedTo: [folder],
                              writer: SafeFileWriter(forceHint: "save FILE --force"))
        scope.writingRefused = "a replay never writes files (the log asked to)"
        scope.confinementReason = logFolder.map { "a replayed log may only read files in its own folder (\($0))" }
            ?? "a replayed log read from text may not read files"
        return scope
    }

    /// The scope of a transcript being loaded from `file`: its own `load` lines look
    /// beside it (after the write folder, where a test's saves are).
    func loading(from file: String) -> FileScope {
        var scope = self
        let folder = SafeFileWriter.folder(of: file)
        scope.readFolders = confinedTo.isEmpty ? [folder] : [writeFolder, folder]
        return scope
    }

    /// Why a name may not be read or written here.
    public struct ScopeError: Error, Equatable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "cannot \(reason)" }
    }

    /// The path to write `name` at; throws when it would leave the scope.
    public func pathForWriting(_ name: String) throws -> String {
        if let writingRefused { throw ScopeError(path: name, reason: "write \(name): \(writingRefused)") }
        let path = Self.join(writeFolder, name)
        guard !confinedTo.isEmpty else { return path }
        let last = PathName.lastComponent(of: name)
        let parent = Self.realPath(SafeFileWriter.folder(of: path))
        guard last != "..", last != ".", !name.hasSuffix("/"), isInside(parent, allowingRoot: true) else {
            throw ScopeError(path: name, reason: "write \(name): a test may only write inside its own temporary folder")
        }
        return path
    }

    /// The path to read `name` from; throws when it is missing or outside the scope.
    public func pathForReading(_ name: String) throws -> String {
        let candidates = name.hasPrefix("/") ? [name] : readFolders.map { Self.join($0, name) }
        guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw ScopeError(path: name, reason: "load \(name): no such file")
        }
        if !confinedTo.isEmpty && !isInside(Self.realPath(path), allowingRoot: false) {
            throw ScopeError(path: name, reason: "load \(name): \(confinementReason)")
        }
        return path
    }

    func isInside(_ real: String, allowingRoot: Bool) -> Bool {
        confinedTo.contains { root in (allowingRoot && real == root) || real.hasPrefix(root == "/" ? "/" : root + "/") }
    }

    static func join(_ folder: String, _ name: String) -> String {
        if name.hasPrefix("/") || folder == "." { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The path with every link and `..` resolved (as much of it as exists).
    static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else {
            return URL(fileURLWithPath: path).standardizedFileURL.path
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
