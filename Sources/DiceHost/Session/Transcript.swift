import Foundation
import Lua

/// A rule test: one plain-text file that reads like the play session it checks.
///
///     # A come-out 7 wins the ante.
///     rules: ../craps.lua
///     players: Ann
///     seed: 1
///     set: ante=10
///
///     turn Ann
///     > roll 3 4
///     roll Ann ⚂ ⚃ = 7
///     say Ann wins $10 (balance $210)
///
/// The header names the rules file (relative to the test), players, seed and `set`
/// overrides. Then comes what the game prints when it starts, and for each input line
/// (`> command`, as typed in `dicehost play`) the output expected after it. Lines
/// starting with `#` are comments. `dicehost test --update` rewrites the expectations.
public struct Transcript {
    public struct Step {
        /// Comment lines kept above the input.
        public var comments: [String]
        public var input: String
        public var expected: [String]
    }

    public var path: String
    public var header: [String]
    public var rules: String
    public var players: [String]
    public var seed: UInt64
    public var overrides: [(String, String)]
    public var startExpected: [String]
    public var steps: [Step]
    public var trailingComments: [String]
    /// Set by `play` when the game could not start (the rules do not load): a failure,
    /// never an expectation to record.
    public var setupError: String?
    /// What the test asks to hold along its inputs besides its output (`# check: …`
    /// header lines; see `FuzzCheck`): how a case `dicehost fuzz` found stays a failing
    /// test until the rules are fixed.
    public var checks: Set<FuzzCheck> = []
    /// `# output: unchecked`: only the checks decide; the expected lines are not compared.
    public var outputUnchecked = false
    /// Set by `play`: the first check that failed.
    public var checkFailure: FuzzFailure?

    public struct FormatError: Error, CustomStringConvertible {
        public let path: String, line: Int, message: String
        public var description: String { "\(path):\(line): \(message)" }
    }

    /// The largest transcript read (a bigger file is refused, not read into memory).
    public static let maxFileBytes = 32 << 20

    public init(path: String) throws {
        // A FIFO or a device would block or never end: only regular files are read.
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw FormatError(path: path, line: 0, message: "cannot read the test file: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw FormatError(path: path, line: 0, message: "cannot read the test file: it is \(SafeFileWriter.kindIfNotRegular(info.st_mode) ?? "not a file"), not a regular file")
        }
        guard info.st_size <= Self.maxFileBytes else {
            throw FormatError(path: path, line: 0, message: "cannot read the test file: it is larger than \(Self.maxFileBytes >> 20) MiB")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FormatError(path: path, line: 0, message: "cannot read the test file")
        }
        try self.init(text: String(decoding: data, as: UTF8.self), path: path)
    }

    /// The params of a `set:` line: one `key=value`, or several separated by commas
    /// (`start_dice=1, calza=false`). A comma starts another pair only where a name and
    /// `=` follow it, so a value may hold commas (`names=Ann,Bob`); a value that holds
    /// ", name=" itself cannot be written here. Nil when a pair has no key.
    static func setPairs(_ value: String) -> [(String, String)]? {
        var pieces: [Substring] = []
        var start = value.startIndex
        var i = value.startIndex
        while i < value.endIndex {
            if value[i] == ",", Self.startsPair(value[value.index(after: i)...]) {
                pieces.append(value[start..<i])
                start = value.index(after: i)
            }
            i = value.index(after: i)
        }
        pieces.append(value[start...])
        var pairs: [(String, String)] = []
        for piece in pieces {
            let text = piece.trimmingCharacters(in: .whitespaces)
            guard let eq = text.firstIndex(of: "="), eq != text.startIndex else { return nil }
            pairs.append((String(text[..<eq]).trimmingCharacters(in: .whitespaces), String(text[text.index(after: eq)...])))
        }
        return pairs
    }

    /// Whether `rest` (after a comma) begins with a param name and `=`.
    private static func startsPair(_ rest: Substring) -> Bool {
        let trimmed = rest.drop(while: { $0 == " " || $0 == "\t" })
        guard let first = trimmed.first, first == "_" || (first.isASCII && first.isLetter) else { return false }
        let name = trimmed.prefix(while: { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) })
        return trimmed.dropFirst(name.count).first == "="
    }

    public init(text: String, path: String) throws {
        self.path = path
        header = []
        rules = ""
        players = []
        seed = 0
        overrides = []
        startExpected = []
        steps = []
        trailingComments = []
        // Split on the newline scalar: Swift treats "\r\n" as one Character, so a CRLF
        // file (or a line ending in "\r") would not split on "\n" at all. A CR before the
        // newline is dropped (all of them: a line never ends in one, so the file reads back the same).
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { scalars -> String in
            var line = String.UnicodeScalarView(scalars)
            while line.last == "\r" { line.removeLast() }
            return String(line)
        }
        if lines.last == "" { lines.removeLast() }
        var index = 0
        // Header: comments and "key: value" lines, up to the first blank line.
        while index < lines.count, !lines[index].trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            let line = lines[index]
            header.append(line)
            index += 1
            if line.hasPrefix("#") {
                try readDirective(line, lineNumber: index)
                continue
            }
            guard let colon = line.firstIndex(of: ":") else {
                throw FormatError(path: path, line: index, message: "expected 'key: value' in the header (rules, players, seed, set), got '\(line)'")
            }
            let key = line[..<colon].trimmingCharacters(in: .whitespacesAndNewlines)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            switch key {
            case "rules": rules = value
            case "players": players = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            case "seed":
                guard let s = UInt64(value) else { throw FormatError(path: path, line: index, message: "seed must be a whole number, got '\(value)'") }
                seed = s
            case "set":
                guard let pairs = Self.setPairs(value) else {
                    throw FormatError(path: path, line: index, message: "set expects key=value (or several: set: a=1, b=false), got '\(value)'")
                }
                overrides += pairs
            default:
                throw FormatError(path: path, line: index, message: "unknown header key '\(key)' (use rules, players, seed, set)")
            }
        }
        guard !rules.isEmpty else { throw FormatError(path: path, line: 1, message: "the header needs a 'rules: FILE' line") }
        guard !players.isEmpty else { throw FormatError(path: path, line: 1, message: "the header needs a 'players: A, B' line") }
        var comments: [String] = []
        var current: Step?
        for line in lines[index...] {
            if line.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { continue }
            if line.hasPrefix("#") { comments.append(line); continue }
            if line.hasPrefix(">") {
                if let step = current { steps.append(step) }
                current = Step(comments: comments, input: String(line.dropFirst()).trimmingCharacters(in: .whitespacesAndNewlines), expected: [])
                comments = []
            } else if current != nil {
                current?.expected.append(line)
            } else {
                startExpected.append(line)
            }
        }
        if let step = current { steps.append(step) }
        trailingComments = comments
    }

    /// The rules file, relative to the test file's folder.
    public var rulesPath: String {
        if rules.hasPrefix("/") { return rules }
        let dir = PathName.folder(of: path)
        var parts: [Substring] = []
        for part in (dir.isEmpty ? rules : dir + "/" + rules).split(separator: "/") {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." { parts.removeLast() } else { parts.append(part) }
        }
        return (dir.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }

    /// The rules file as named from the working directory, as when the game was played
    /// there (error messages quote the path).
    public var rulesPathFromWorkingDirectory: String {
        Transcript.relativePath(rulesPath, from: FileManager.default.currentDirectoryPath + "/here")
    }

    /// Plays the inputs and returns the transcript as it actually went. `save` lines
    /// write into a fresh temporary folder (removed afterwards), `load` lines read from
    /// there or beside the transcript; nothing else is read or written (`FileScope.test`).
    public func play() -> Transcript {
        let folder = NSTemporaryDirectory() + "/dicehost-test-XXXXXX"
        var template = Array(folder.utf8CString)
        guard let made = mkdtemp(&template) else {
            var actual = self
            actual.setupError = "cannot make a temporary folder for the test: \(String(cString: strerror(errno)))"
            actual.startExpected = ["error: " + (actual.setupError ?? "")]
            return actual
        }
        let temporaryFolder = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: temporaryFolder) }
        return play(files: .test(transcript: path, temporaryFolder: temporaryFolder))
    }

    /// Plays the inputs with `files` deciding what `save` and `load` may touch.
    public func play(files: FileScope) -> Transcript {
        var actual = self
        let game: Game
        do {
            game = try makeGame()
        } catch {
            actual.setupError = "\(error)"
            actual.startExpected = ["error: \(error)"]
            actual.steps = steps.map { Step(comments: $0.comments, input: $0.input, expected: []) }
            return actual
        }
        let session = GameSession(game: game, files: files)
        session.namesRulesAsTranscripts = true
        session.loadChain = [FileScope.realPath(path)]
        actual.startExpected = game.events.dropFirst().map(\.description)
        if checks.isEmpty {
            actual.steps = steps.map { step in
                Step(comments: step.comments, input: step.input, expected: session.run(step.input).lines)
            }
        } else {
            let checker = FuzzChecker(session: session, checks: checks) { try makeGame() }
            actual.steps = steps.map { step in
                guard actual.checkFailure == nil else {
                    return Step(comments: step.comments, input: step.input, expected: session.run(step.input).lines)
                }
                actual.checkFailure = checker.run(step.input)
                return Step(comments: step.comments, input: step.input, expected: checker.steps.last?.output ?? [])
            }
            if actual.checkFailure == nil { actual.checkFailure = checker.finish() }
        }
        if outputUnchecked { (actual.startExpected, actual.steps) = (startExpected, steps) }
        return actual
    }

    /// `# check: no-rule-error, ends` and `# output: unchecked` in the header; other
    /// comments are comments.
    mutating func readDirective(_ line: String, lineNumber: Int) throws {
        let text = line.dropFirst().trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("check:") {
            do { checks.formUnion(try FuzzCheck.list(String(text.dropFirst("check:".count)))) } catch {
                throw FormatError(path: path, line: lineNumber, message: "\(error)")
            }
        } else if text.hasPrefix("output:") {
            let value = text.dropFirst("output:".count).trimmingCharacters(in: .whitespaces)
            guard value == "unchecked" || value == "checked" else {
                throw FormatError(path: path, line: lineNumber, message: "'# output:' takes 'unchecked' (only the checks decide) or 'checked', got '\(value)'")
            }
            outputUnchecked = value == "unchecked"
        }
    }

    /// The game the test starts from. Its errors name the rules as this file does
    /// (relative to the test), so the test passes from any working folder.
    public func makeGame(limits: LuaLimits = .default) throws -> Game {
        try Game(rulesFile: rulesPathFromWorkingDirectory, players: players, seed: seed, params: overrides, limits: limits,
                 displayPath: rules)
    }

    /// `target` as seen from the folder of `file` (transcripts name rules relative to themselves).
    public static func relativePath(_ target: String, from file: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        func absolute(_ p: String) -> [String] {
            (p.hasPrefix("/") ? p : cwd + "/" + p).split(separator: "/").map(String.init).filter { $0 != "." }
        }
        let to = absolute(target), from = Array(absolute(file).dropLast())
        var common = 0
        while common < min(to.count, from.count), to[common] == from[common] { common += 1 }
        return (Array(repeating: "..", count: from.count - common) + to[common...]).joined(separator: "/")
    }

    /// The file's text.
    public var text: String {
        var out = header + [""] + startExpected
        for step in steps { out += step.comments + ["> " + step.input] + step.expected }
        out += trailingComments
        return out.joined(separator: "\n") + "\n"
    }
}

/// A line diff for a failing test: "-expected", "+actual", " common".
public func lineDiff(expected: String, actual: String) -> [String] {
    let a = expected.components(separatedBy: "\n"), b = actual.components(separatedBy: "\n")
    // The table below is a.count × b.count: for huge files show both sides whole instead.
    let cells = a.count.multipliedReportingOverflow(by: b.count)
    guard !cells.overflow, cells.partialValue <= 4_000_000 else {
        return a.map { "- " + $0 } + b.map { "+ " + $0 }
    }
    var lcs = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in stride(from: a.count - 1, through: 0, by: -1) {
        for j in stride(from: b.count - 1, through: 0, by: -1) {
            lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
        }
    }
    var out: [String] = [], i = 0, j = 0
    while i < a.count || j < b.count {
        if i < a.count, j < b.count, a[i] == b[j] { out.append("  " + a[i]); i += 1; j += 1 }
        else if i < a.count, j == b.count || lcs[i + 1][j] >= lcs[i][j + 1] { out.append("- " + a[i]); i += 1 }
        else { out.append("+ " + b[j]); j += 1 }
    }
    return out
}
