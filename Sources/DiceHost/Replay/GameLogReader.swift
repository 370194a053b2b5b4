import Foundation
import Lua

extension GameLog {
    /// One line of a log as it is read: a game's header or one of its inputs.
    public enum Item: Sendable {
        case header(Header, line: Int)
        case entry(Entry, line: Int)
    }

    /// Checks log lines one at a time, in order, and keeps only what the next line needs
    /// (whether a game has begun, the last input number): a log of any length is read in
    /// the memory of one line. `parse` and `stream` both read through it.
    public struct Parser {
        public let file: String
        private var sawHeader = false
        private var lastInput = 0
        /// The format of the game being read (its header's `dicehost_log`).
        public private(set) var format = GameLog.version
        private let decoder = JSONDecoder()

        public init(file: String = "log") { self.file = file }

        /// The item on one line (its bytes without the line end, spaces and tabs around it
        /// trimmed), nil for a blank line. Errors name the line and what was expected.
        public mutating func parse(line bytes: Data, number lineNumber: Int) throws -> Item? {
            if bytes.isEmpty { return nil }
            guard case .object(let fields)? = try? decoder.decode(JSONValue.self, from: bytes) else {
                throw FormatError(file: file, line: lineNumber, message: "expected one JSON object per line, got \(preview(String(decoding: bytes, as: UTF8.self)))")
            }
            if fields["dicehost_log"] != nil {
                guard case .integer(let written)? = fields["dicehost_log"], readableVersions.contains(Int(written)) else {
                    throw FormatError(file: file, line: lineNumber,
                                      message: "this log is format \(fields["dicehost_log"]?.description ?? "?"); this dicehost reads formats \(readableVersions.lowerBound) to \(readableVersions.upperBound)")
                }
                format = Int(written)
                if let problem = wholeNumberProblem(fields, ["seed"], unsigned: true) {
                    throw FormatError(file: file, line: lineNumber, message: "expected a header: \(problem)")
                }
                let header = try decode(Header.self, from: bytes, what: "a header", file: file, line: lineNumber)
                if let bad = header.params.first(where: { $0.count != 2 }) {
                    throw FormatError(file: file, line: lineNumber, message: "expected params as [name, value] pairs, got \(bad)")
                }
                try checkEvents(header.events, file: file, line: lineNumber)
                sawHeader = true
                lastInput = 0
                return .header(header, line: lineNumber)
            }
            guard sawHeader else {
                throw FormatError(file: file, line: lineNumber, message: "expected a header line ({\"dicehost_log\":\(version),\"rules\":…}) before any input, got \(preview(String(decoding: bytes, as: UTF8.self)))")
            }
            if let problem = wholeNumberProblem(fields, ["n", "t"], unsigned: false) {
                throw FormatError(file: file, line: lineNumber, message: "expected an input line: \(problem)")
            }
            let entry = try format == 1 ? formatOneEntry(bytes, line: lineNumber) : formatTwoEntry(bytes, fields: fields, line: lineNumber)
            guard entry.n == lastInput + 1 else {
                throw FormatError(file: file, line: lineNumber, message: "expected input number \(lastInput + 1), got \(entry.n)")
            }
            try checkEvents(entry.events, file: file, line: lineNumber)
            lastInput = entry.n
            return .entry(entry, line: lineNumber)
        }

        /// An input line of format 1: a command line, or a bot move.
        func formatOneEntry(_ bytes: Data, line lineNumber: Int) throws -> Entry {
            let raw = try decode(FormatOneEntry.self, from: bytes, what: "an input line", file: file, line: lineNumber)
            guard (raw.input != nil) != (raw.bot == true) else {
                throw FormatError(file: file, line: lineNumber, message: "expected an input line with either \"input\" (a command) or \"bot\":true")
            }
            return Entry(n: raw.n, input: raw.input, bot: raw.bot == true, t: raw.t, events: raw.events, error: raw.error)
        }

        /// An input line of format 2: a typed input or a command. The input is read again
        /// from the text keeping fractions (`2.0` a float), as `GameInput` reads it.
        func formatTwoEntry(_ bytes: Data, fields: [String: JSONValue], line lineNumber: Int) throws -> Entry {
            let raw = try decode(FormatTwoEntry.self, from: bytes, what: "an input line", file: file, line: lineNumber)
            guard (fields["input"] != nil) != (raw.command != nil) else {
                throw FormatError(file: file, line: lineNumber, message: "expected an input line with either \"input\" (an input object) or \"command\" (a command line)")
            }
            if let command = raw.command { return Entry(n: raw.n, command: command, t: raw.t, events: raw.events, error: raw.error) }
            let exact: JSONValue?
            do { exact = try JSONValue(parsing: String(decoding: bytes, as: UTF8.self), keepingFractions: true)["input"] } catch {
                throw FormatError(file: file, line: lineNumber, message: "expected one JSON object per line: \(error)")
            }
            do {
                let input = try GameInput(jsonValue: exact ?? .null)
                return Entry(n: raw.n, input: input, t: raw.t, events: raw.events, error: raw.error)
            } catch let error as GameInput.FormatError {
                let field = error.field.isEmpty ? "input" : "input.\(error.field)"
                throw FormatError(file: file, line: lineNumber, message: "expected an input: the field '\(field)': \(error.message)")
            }
        }

        struct FormatOneEntry: Decodable {
            var n: Int
            var input: String?
            var bot: Bool?
            var t: Int
            var events: [JSONValue]
            var error: String?
        }

        struct FormatTwoEntry: Decodable {
            var n: Int
            var command: String?
            var t: Int
            var events: [JSONValue]
            var error: String?
        }

        /// After the last line: a log must hold at least one game.
        public func finish() throws {
            guard sawHeader else { throw FormatError(file: file, line: 1, message: "expected a header line, the file has no games") }
        }
    }

    /// The longest line `stream` reads (the largest file `read` takes).
    public static let maxLineBytes = maxFileBytes

    /// Reads a log file line by line and hands each header and input to `body` as soon as
    /// its line is read and checked, so a log of any length is read in the memory of one
    /// line. Only a regular file is read. A malformed line throws its `FormatError` after
    /// `body` has seen every line before it; `body`'s own errors end the reading.
    public static func stream(_ path: String, _ body: (Item) throws -> Void) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw FormatError(file: path, line: 0, message: "cannot read the log: \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG, let handle = FileHandle(forReadingAtPath: path) else {
            throw FormatError(file: path, line: 0, message: "cannot read the log: \((info.st_mode & S_IFMT) == S_IFREG ? "unreadable" : "not a regular file")")
        }
        defer { try? handle.close() }
        var parser = Parser(file: path)
        var pending = Data()
        var lineNumber = 0
        var atEnd = false
        func emit(_ raw: Data) throws {
            lineNumber += 1
            if let item = try parser.parse(line: trimmed(raw), number: lineNumber) { try body(item) }
        }
        while !atEnd {
            let chunk: Data
            do { chunk = try handle.read(upToCount: 1 << 16) ?? Data() } catch {
                throw FormatError(file: path, line: lineNumber + 1, message: "cannot read the log: \(error.localizedDescription)")
            }
            atEnd = chunk.isEmpty
            var start = chunk.startIndex
            while let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
                pending.append(chunk[start..<newline])
                try emit(pending)
                pending.removeAll(keepingCapacity: pending.count <= 1 << 20)
                start = chunk.index(after: newline)
            }
            pending.append(chunk[start...])
            guard pending.count <= maxLineBytes else {
                throw FormatError(file: path, line: lineNumber + 1, message: "expected a line of at most \(maxLineBytes) bytes, the line is longer")
            }
        }
        try emit(pending)
        try parser.finish()
    }

    /// A line as `parse` sees it: bytes that are not UTF-8 replaced as `String(decoding:)`
    /// does, then trimmed as `TextLines` trims (a CR before the line end dropped, spaces
    /// and tabs around it).
    static func trimmed(_ raw: Data) -> Data {
        var line = Data(String(decoding: raw, as: UTF8.self).utf8)[...]
        while let last = line.last, last == UInt8(ascii: "\r") || TextLines.isBlank(last) { line = line.dropLast() }
        while let first = line.first, TextLines.isBlank(first) { line = line.dropFirst() }
        return Data(line)
    }
}
