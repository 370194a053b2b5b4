import CLua
import CLuaSupport
import Foundation

/// Which lines of rule scripts ran, over every Lua state made while it is
/// `LuaCoverage.current` (a task-local value: a test run binds it around the games it
/// plays; a thread it starts binds it again).
///
///     let coverage = LuaCoverage()
///     LuaCoverage.$current.withValue(coverage) { runTheTests() }
///     for file in coverage.report() { print(file.path, file.missed) }
///
/// Lines are counted by the instruction budget's own hook on line events (the budget
/// counts exactly as without coverage); a state adds its counts here when it is freed.
/// Only files count: a chunk loaded from a rule script or a module `require` found
/// beside it, never the runtime's own chunks. Branches are not told apart: Lua's hooks
/// report lines, not the jumps between them.
public final class LuaCoverage: @unchecked Sendable {
    /// The coverage states made now add to; nil: coverage is off (no line hook at all).
    @TaskLocal public static var current: LuaCoverage?

    /// One script: how often each line that holds code ran (0: never).
    public struct File: Sendable, Equatable {
        /// The file's absolute path.
        public var path: String
        /// Executable line → times it ran.
        public var hits: [Int: Int]
        /// The executable lines that never ran, in order.
        public var missed: [Int] { hits.filter { $0.value == 0 }.map(\.key).sorted() }
        public var linesFound: Int { hits.count }
        public var linesHit: Int { hits.values.filter { $0 > 0 }.count }
        /// Why the file's lines could not be read (then only the lines that ran are known).
        public var problem: String?
    }

    private let lock = NSLock()
    private var counts: [String: [Int: Int]] = [:]

    public init() {}

    /// Makes `path` part of the report even if no line of it ever ran (a rule script
    /// whose tests all failed to start).
    public func include(file path: String) {
        let key = Self.absolute(path)
        lock.withLock { if counts[key] == nil { counts[key] = [:] } }
    }

    func add(file path: String, lines: [Int: Int]) {
        let key = Self.absolute(path)
        lock.withLock { counts[key, default: [:]].merge(lines, uniquingKeysWith: +) }
    }

    /// Every file seen, by path, each with all its executable lines.
    public func report() -> [File] {
        let counted = lock.withLock { counts }
        return counted.keys.sorted().map { path in
            let ran = counted[path] ?? [:]
            do {
                let executable = try Self.executableLines(ofFile: path)
                var hits: [Int: Int] = [:]
                for line in executable { hits[line] = ran[line] ?? 0 }
                return File(path: path, hits: hits)
            } catch {
                return File(path: path, hits: ran, problem: "\(error)")
            }
        }
    }

    /// An lcov tracefile (the format editors' coverage views read): per file `SF:`,
    /// a `DA:line,hits` for each executable line, `LF:`/`LH:`, `end_of_record`.
    public static func lcov(_ files: [File]) -> String {
        var out = "TN:\n"
        for file in files {
            out += "SF:\(file.path)\n"
            for line in file.hits.keys.sorted() { out += "DA:\(line),\(file.hits[line] ?? 0)\n" }
            out += "LF:\(file.linesFound)\nLH:\(file.linesHit)\nend_of_record\n"
        }
        return out
    }

    /// The lines of a script file that hold code (what a line event can report):
    /// compiled, never run, in a state of its own.
    public static func executableLines(ofFile path: String) throws -> Set<Int> {
        let data: Data
        do { data = try LuaSourceFile.read(path, limit: LuaLimits.default.memoryBytes) } catch {
            throw LuaError(kind: .syntax, message: "\(error)", file: path)
        }
        return try executableLines(ofSource: [UInt8](data), chunkName: path)
    }

    public static func executableLines(ofSource source: [UInt8], chunkName: String) throws -> Set<Int> {
        guard let L = clua_newstate(LuaLimits.default.memoryBytes) else {
            throw LuaError(kind: .memory, message: "cannot create a Lua state: out of memory")
        }
        defer { clua_close(L) }
        let status = source.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { clua_load_text(L, $0.baseAddress, $0.count, "@" + chunkName) }
        }
        guard status == LUA_OK else {
            throw LuaError(kind: .syntax, message: "\(chunkName) does not compile", file: chunkName)
        }
        var size = 0
        guard let dumped = clua_dump_top(L, &size) else {
            throw LuaError(kind: .memory, message: "cannot read the lines of \(chunkName)", file: chunkName)
        }
        defer { free(dumped) }
        let bytes = Array(UnsafeBufferPointer(start: dumped, count: size))
        do { return try LuaBytecodeLines.lines(ofDump: bytes) } catch {
            throw LuaError(kind: .syntax, message: "cannot read the lines of \(chunkName): bytecode not in Lua 5.4's format", file: chunkName)
        }
    }

    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}

extension LuaState {
    /// Turns line counting on if `LuaCoverage.current` is set (at creation).
    func startCoverage() {
        guard let coverage = LuaCoverage.current, clua_coverage_start(L) != 0 else { return }
        self.coverage = coverage
    }

    /// Says that the chunk named `chunkName` was read from the file `path` (a rule
    /// script shown under another name), so its lines count for that file.
    public func noteSourceFile(chunkName: String, path: String) {
        guard coverage != nil, clua_coverage_allow(L, chunkName) != 0 else { return }
        sourceFiles[chunkName] = path
    }

    /// Adds this state's counts to its coverage (when it is freed).
    func finishCoverage() {
        guard let coverage else { return }
        for file in 0..<clua_coverage_file_count(context) {
            guard let source = clua_coverage_file_source(context, file).map({ String(cString: $0) }),
                  let path = sourceFiles[source] else { continue }
            var lines: [Int: Int] = [:]
            for line in 1..<max(1, Int(clua_coverage_file_lines(context, file))) {
                let hits = clua_coverage_hits(context, file, Int32(line))
                if hits > 0 { lines[line] = Int(clamping: hits) }
            }
            coverage.add(file: path, lines: lines)
        }
    }
}
