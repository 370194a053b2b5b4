import Foundation
import Lua

/// The JSON Lines game log (`dicehost play --log FILE`, and a server's room logs): a
/// header line saying which game this is, then one line per input with the events it
/// caused. A seed and its inputs reproduce a game exactly, so `GameReplay` can play the
/// log again and check every event - or play it under edited rules and show the first
/// input whose events differ.
///
///     {"dicehost_log":2,"rules":"rules/race.lua","rules_sha256":"9f…","requires":[],
///      "params":[["target","30"]],"seed":7,"players":["Ann","Bob"],"die":null,
///      "events":[{"t":0,"type":"start",…,"text":"start Ann,Bob seed=7"},…]}
///     {"n":1,"input":{"type":"roll","values":[3]},"t":0,"events":[{"t":0,"type":"roll",…,"text":"roll Ann ⚂"},…]}
///     {"n":2,"input":{"type":"action","name":"call","args":["07",2.0],"seat":"Bob"},"t":0,"events":[…]}
///     {"n":3,"command":"snap","t":0,"events":[],"error":"unknown command 'snap' (try 'help')"}
///     {"n":4,"input":{"type":"bot"},"t":0,"events":[…]}
///
/// An input is a typed `GameInput` in its JSON form (`GameInput.json`: an action's
/// arguments keep their types, a float its fraction), or a session command that is not
/// one (`undo`, `redo`, `load`, a line that did not parse), kept as the text typed.
/// Events are `GameEvent.json` objects with their stable `text` form added. A file may
/// hold several games one after another (appending to a log starts a new game with a
/// new header).
///
/// Format 1 (before typed inputs) held every input as a command line (`"input":"roll 3"`)
/// and a bot move as `"bot":true`; it is still read, each line then a command replayed
/// through the REPL's parser as it was written. `GameLogConversion` rewrites such a file
/// in format 2.
public enum GameLog {
    /// The format version this library writes (it reads `readableVersions`).
    public static let version = 2
    /// Format 1: inputs as command lines; still read and replayed.
    public static let readableVersions = 1...2

    /// The first line of a game: everything needed to start it again.
    public struct Header: Codable, Equatable, Sendable {
        /// Always `GameLog.version`: marks the line as a header and names the format.
        public var dicehost_log: Int
        /// The rules file as the game was started with it (relative to where it ran).
        public var rules: String
        /// SHA-256 of the rules file's bytes when the game started (lowercase hex).
        public var rules_sha256: String
        /// The files the rules `require`d by then, each with its hash.
        public var requires: [RequiredFile]
        /// The `--set` overrides, in order: `[["target","30"]]`.
        public var params: [[String]]
        public var seed: UInt64
        public var players: [String]
        /// The die the game played with (`sim:tilt@2,disconnect@3`), if any.
        public var die: String?
        /// The events of the start (before any input).
        public var events: [JSONValue]

        /// A file the rules `require`d, and the SHA-256 of its bytes.
        public struct RequiredFile: Codable, Equatable, Sendable {
            public var path: String
            public var sha256: String
        }

        public init(rules: String, rulesSHA256: String, requires: [RequiredFile] = [], params: [(String, String)],
                    seed: UInt64, players: [String], die: String? = nil, events: [JSONValue]) {
            dicehost_log = GameLog.version
            self.rules = rules
            rules_sha256 = rulesSHA256
            self.requires = requires
            self.params = params.map { [$0.0, $0.1] }
            self.seed = seed
            self.players = players
            self.die = die
            self.events = events
        }

        /// The header of `game` as it stands (its start events, its rules hashed now).
        public init(game: DiceHost.Game, die: String? = nil) {
            let limit = game.lua.limits.memoryBytes
            self.init(rules: game.sourcePath, rulesSHA256: GameLog.sha256(ofFile: game.sourcePath, limit: limit),
                      requires: game.lua.loadedModulePaths.map { RequiredFile(path: $0, sha256: GameLog.sha256(ofFile: $0, limit: limit)) },
                      params: game.overrides, seed: game.seed, players: game.playerNames, die: die,
                      events: GameLog.startEvents(of: game).map(GameLog.json))
        }

        /// The overrides as pairs, as `Game` takes them.
        public var overrides: [(String, String)] { params.map { ($0[0], $0.count > 1 ? $0[1] : "") } }
    }

    /// One input and what it caused.
    public struct Entry: Equatable, Sendable {
        /// 1, 2, … within the game.
        public var n: Int
        /// The input, typed (nil for a command that is not one).
        public var input: GameInput?
        /// A session command that is not a typed input (`undo`, `load`, a line that did not
        /// parse, every line of a format 1 log), as typed.
        public var command: String?
        /// The game clock after the input (ms).
        public var t: Int
        public var events: [JSONValue]
        /// The error the input was refused with (the game stayed as it was).
        public var error: String?
        /// Whether `command` was written before quoting existed (a format 1 log, a store's
        /// text row): a `"` in it is an ordinary character.
        public var commandBeforeQuotes = false

        public init(n: Int, input: GameInput, t: Int, events: [JSONValue], error: String?) {
            self.n = n
            self.input = input
            self.t = t
            self.events = events
            self.error = error
        }

        public init(n: Int, command: String, t: Int, events: [JSONValue], error: String?) {
            self.n = n
            self.command = command
            self.t = t
            self.events = events
            self.error = error
        }

        /// A command line as format 1 held it (nil with `bot`: a bot move).
        public init(n: Int, input line: String?, bot: Bool = false, t: Int, events: [JSONValue], error: String?) {
            self.n = n
            if bot || line == nil { input = GameInput(.bot) } else { command = line; commandBeforeQuotes = true }
            self.t = t
            self.events = events
            self.error = error
        }

        /// True for a bot move.
        public var isBotMove: Bool { input?.kind == .bot }

        /// What the input was, for people: its REPL line, or the command.
        public var inputText: String {
            if isBotMove, input?.seat == nil { return "(bot move)" }
            return input?.line ?? command ?? ""
        }
    }

    /// One game of a log file: its header and inputs, with the file lines they came from.
    public struct LoggedGame: Sendable {
        public var header: Header
        public var headerLine: Int
        public var entries: [(line: Int, entry: Entry)]
        /// The folder of the log file it was read from (nil: parsed from text). A replay
        /// reads files (sensor recordings) only from there.
        public var folder: String? = nil

        public init(header: Header, headerLine: Int, entries: [(line: Int, entry: Entry)], folder: String? = nil) {
            self.header = header
            self.headerLine = headerLine
            self.entries = entries
            self.folder = folder
        }
    }

    /// A log line that is not what the format expects there.
    public struct FormatError: Error, CustomStringConvertible, Equatable {
        public var file: String
        public var line: Int
        public var message: String
        public var description: String { "\(file):\(line): \(message)" }
    }

    /// The largest log file `read` takes.
    public static let maxFileBytes = 256 << 20

    /// Reads a log file (only a regular file, at most `maxFileBytes`).
    public static func read(_ path: String) throws -> [LoggedGame] {
        let data: Data
        do { data = try LuaSourceFile.read(path, limit: maxFileBytes) } catch let problem as LuaSourceFile.Problem {
            throw FormatError(file: path, line: 0, message: "cannot read the log: \(problem.reason)")
        }
        var games = try parse(String(decoding: data, as: UTF8.self), file: path)
        let folder = PathName.folder(of: path)
        for index in games.indices { games[index].folder = folder.isEmpty ? "." : folder }
        return games
    }

    /// Parses log text; blank lines are skipped, a line may end in CRLF. Errors name the
    /// line and what was expected.
    public static func parse(_ text: String, file: String = "log") throws -> [LoggedGame] {
        var games: [LoggedGame] = []
        var parser = Parser(file: file)
        for (index, raw) in TextLines.split(text).enumerated() {
            switch try parser.parse(line: Data(raw), number: index + 1) {
            case .header(let header, let line)?: games.append(LoggedGame(header: header, headerLine: line, entries: []))
            case .entry(let entry, let line)?: games[games.count - 1].entries.append((line, entry))
            case nil: continue
            }
        }
        try parser.finish()
        return games
    }

    /// Foundation on Linux reports a whole number that does not fit its field without
    /// naming the field: check those fields first, so the error names them.
    static func wholeNumberProblem(_ fields: [String: JSONValue], _ names: [String], unsigned: Bool) -> String? {
        for name in names {
            switch fields[name] {
            case nil, .integer(0...)?: continue
            case .integer?: if !unsigned { continue }
            case .unsigned? where unsigned: continue
            default: break
            }
            let range = unsigned ? "from 0 to \(UInt64.max)" : "from \(Int64.min) to \(Int64.max)"
            return "the field '\(name)' must be a whole number \(range), got \(preview(fields[name]?.description ?? ""))"
        }
        return nil
    }

    static func checkEvents(_ events: [JSONValue], file: String, line: Int) throws {
        for (index, event) in events.enumerated() {
            guard event["t"]?.intValue != nil, event["text"]?.stringValue != nil else {
                throw FormatError(file: file, line: line, message: "expected event \(index + 1) to be an object with \"t\" (ms) and \"text\", got \(preview(event.description))")
            }
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: Data, what: String, file: String, line: Int) throws -> T {
        do { return try JSONDecoder().decode(type, from: data) } catch let error as DecodingError {
            throw FormatError(file: file, line: line, message: "expected \(what): \(reason(error))")
        }
    }

    static func reason(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ key: CodingKey? = nil) -> String {
            let keys = context.codingPath + (key.map { [$0] } ?? [])
            return keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "the field '\(path(context, key))' is missing"
        case .typeMismatch(let type, let context): return "the field '\(path(context))' is not \(typeName(type))"
        case .valueNotFound(let type, let context): return "the field '\(path(context))' is null, expected \(typeName(type))"
        case .dataCorrupted(let context): return "the field '\(path(context))' is out of range or malformed"
        @unknown default: return "\(error)"
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is UInt64.Type, is Int64.Type: return "a whole number"
        case is Bool.Type: return "true or false"
        default: return type is [Any].Type ? "a list" : "a \(type)"
        }
    }

    static func preview(_ text: String) -> String {
        let oneLine = GameEvent.oneLine(text)
        return oneLine.count > 60 ? "'" + oneLine.prefix(60) + "…'" : "'" + oneLine + "'"
    }

    // MARK: Writing

    /// One log line (no newline) for a header or an entry.
    public static func line<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A list of JSON values as one line: what `line(_:)` writes through `JSONEncoder`,
    /// written directly (a served room's store keeps each input's events so).
    public static func line(_ values: [JSONValue]) -> String {
        JSONValue.array(values).description
    }

    /// One entry's log line (no newline), keys sorted: the input in its own JSON form
    /// (floats keep their fraction), everything else as `JSONValue` writes it.
    public static func line(_ entry: Entry) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        func field(_ key: String, first: Bool = false) {
            if !first { out.append(UInt8(ascii: ",")) }
            JSONValue.quote(key, into: &out)
            out.append(UInt8(ascii: ":"))
        }
        out.append(UInt8(ascii: "{"))
        var first = true
        if let command = entry.command { field("command", first: first); first = false; JSONValue.string(command).write(into: &out) }
        if let error = entry.error { field("error", first: first); first = false; JSONValue.string(error).write(into: &out) }
        field("events", first: first)
        JSONValue.array(entry.events).write(into: &out)
        if let input = entry.input {
            field("input")
            GameInput.write(input.jsonValue, into: &out)
        }
        field("n")
        JSONValue.writeInteger(Int64(entry.n), into: &out)
        field("t")
        JSONValue.writeInteger(Int64(entry.t), into: &out)
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// An event as the log keeps it: `GameEvent.json` plus its `text`, made from the
    /// event's fields (a served room logs every input's events, and writing the
    /// JSON then parsing it back cost ~24 k instructions).
    public static func json(_ event: GameEvent) -> JSONValue {
        var fields = Dictionary(event.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        // The JSON's "text" (of say, reload, error) gives way to the event's printed form.
        fields["t"] = .integer(Int64(event.time))
        fields["text"] = .string(event.description)
        return .object(fields)
    }

    /// The events a game logged before its first input.
    public static func startEvents(of game: DiceHost.Game) -> [GameEvent] {
        guard let start = game.events.lastIndex(where: { if case .start = $0.kind { return true } else { return false } }) else { return game.events }
        return Array(game.events[start...])
    }

    /// SHA-256 of a file's bytes ("unreadable: REASON" if it cannot be read).
    public static func sha256(ofFile path: String, limit: Int) -> String {
        do { return SHA256.hex(of: Array(try LuaSourceFile.read(path, limit: limit))) } catch {
            return "unreadable: \((error as? LuaSourceFile.Problem)?.reason ?? "\(error)")"
        }
    }

    /// The text view of a log (what `--log` wrote before it was JSON): each event with its
    /// game time, "   1.500s turn Bob".
    public static func textLines(of games: [LoggedGame]) -> [String] {
        games.flatMap { game in textLines(of: game.header.events + game.entries.flatMap(\.entry.events)) }
    }

    /// The text view of some logged events, one line each.
    public static func textLines(of events: [JSONValue]) -> [String] {
        events.map { event in
            String(format: "%8.3fs ", Double(event["t"]?.intValue ?? 0) / 1000) + (event["text"]?.stringValue ?? event.description)
        }
    }
}
