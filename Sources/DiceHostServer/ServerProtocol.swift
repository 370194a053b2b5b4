import DiceHost
import Foundation

/// The JSON protocol `dicehost serve` speaks over WebSocket (docs/protocol.md): its
/// version, its limits, and the messages a client may send, decoded and checked.
public enum ServerProtocol {
    /// Bumped when a message changes in a way an old client would misread. Version 2: an
    /// input whose events are sent is acknowledged inside the acting client's `events`
    /// message (`"ack":N`), not by an `ack` message of its own (one frame less
    /// per input). A client that says hello with version 1 is still answered as before.
    public static let version = 2
    /// The versions a client may say hello with.
    public static let supportedVersions: ClosedRange<Int> = 1...2
    /// The largest message a client may send (a bigger one closes the connection, code 1009).
    public static let maxMessageBytes = 8_192
    /// Names of players and rooms.
    public static let maxNameCharacters = 32
    public static let maxRoomIDCharacters = 32
    /// Arguments of one action, and the longest string argument.
    public static let maxActionArguments = 16
    public static let maxArgumentBytes = 256
    /// Params a room may set, and the longest value.
    public static let maxParams = 32
    /// Sequence numbers are whole numbers from 1 that JavaScript holds exactly.
    public static let maxSequence: Int64 = 9_007_199_254_740_991
    /// WebSocket close code for a connection whose seat was taken by a newer connection
    /// with the same token (the old one is sent `error` `replaced` first).
    public static let closeReplaced: UInt16 = 4001
    /// WebSocket close code for a connection whose room moved to another server process
    /// (its lease was taken over; the client is sent `error` `moved` first and reconnects).
    public static let closeMoved: UInt16 = 4002
}

/// A message from a client, checked: every field a message needs is there with the
/// expected type and range, else `ProtocolError` says which and what was expected.
enum ClientMessage: Equatable {
    case hello(version: Int)
    case rules
    case rooms
    case create(CreateRequest)
    case join(room: String, name: String)
    case rejoin(room: String, token: String)
    case watch(room: String)
    case start(seq: Int64)
    case roll(seq: Int64, values: [Int]?, flag: Roll.Flag)
    case action(seq: Int64, name: String, arguments: [GameInput.Argument])
    /// Another game, once the game is over (`restart` is its old name, still read).
    case ready(seq: Int64)
    /// Ends a game a left or idle seat blocks (its rules have no bot move that works).
    case abandon(seq: Int64)
    case leave
    case ping(id: Int64?)

    struct CreateRequest: Equatable {
        var rules: String
        var room: String?
        var seats: Int?
        var params: [(String, String)]
        var seed: UInt64?
        var deviceRolls: Bool
        /// Seconds a seat's turn runs on the clock (0: none); nil: the rules' `turn_seconds`, else the server's default.
        var turnSeconds: Int? = nil

        static func == (a: CreateRequest, b: CreateRequest) -> Bool {
            a.rules == b.rules && a.room == b.room && a.seats == b.seats && a.seed == b.seed && a.deviceRolls == b.deviceRolls && a.turnSeconds == b.turnSeconds
                && a.params.map(\.0) == b.params.map(\.0) && a.params.map(\.1) == b.params.map(\.1)
        }
    }

    /// One action argument with its JSON type: an integer, a float (a number with a fraction
    /// or an exponent), a string as sent (spaces and any Unicode, no control characters, 1
    /// to `maxArgumentBytes` bytes) or a boolean; a list or an object is `bad-field` naming
    /// the argument (`args[1]`).
    static func argument(_ value: JSONValue, field: String) throws -> GameInput.Argument {
        let argument: GameInput.Argument
        do { argument = try GameInput.Argument(jsonValue: value, field: field) } catch let error as GameInput.FormatError {
            throw ProtocolError(.badField, error.description)
        }
        if case .string(let text) = argument {
            guard (1...ServerProtocol.maxArgumentBytes).contains(text.utf8.count) else {
                throw ProtocolError(.badField, "the field '\(field)': a string of 1 to \(ServerProtocol.maxArgumentBytes) bytes, got \(text.utf8.count)")
            }
            guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw ProtocolError(.badField, "the field '\(field)': a string without control characters")
            }
        }
        return argument
    }

    /// Decodes one text frame.
    static func decode(_ text: String) throws -> ClientMessage {
        guard text.utf8.count <= ServerProtocol.maxMessageBytes else {
            throw ProtocolError(.tooLarge, "a message may have at most \(ServerProtocol.maxMessageBytes) bytes, this one has \(text.utf8.count)")
        }
        let parsed: JSONValue
        do { parsed = try JSONValue.parse(text) } catch {
            throw ProtocolError(.badJSON, "a message must be one JSON object, e.g. {\"type\":\"hello\",\"version\":\(ServerProtocol.version)}; this is not valid JSON")
        }
        guard case .object(let object) = parsed else {
            throw ProtocolError(.badMessage, "a message must be a JSON object with a \"type\", got \(parsed.kindName)")
        }
        let fields = JSONFields(object: object)
        let type = try fields.string("type", maxBytes: 32)
        switch type {
        case "hello": return .hello(version: Int(try fields.integer("version", in: 0...1_000_000)))
        case "rules": return .rules
        case "rooms": return .rooms
        case "create":
            var params: [(String, String)] = []
            if let given = fields.value("params") {
                guard case .object(let table) = given else {
                    throw ProtocolError(.badField, "\"params\" must be an object of names to values, got \(given.kindName)")
                }
                guard table.count <= ServerProtocol.maxParams else {
                    throw ProtocolError(.badField, "\"params\" may set at most \(ServerProtocol.maxParams) params, got \(table.count)")
                }
                for (name, value) in table.sorted(by: { $0.key < $1.key }) {
                    params.append((name, try JSONFields.paramText(value, name: name)))
                }
            }
            let seats = try fields.optionalInteger("seats", in: 1...64).map(Int.init)
            let seed = try fields.optionalInteger("seed", in: 0...ServerProtocol.maxSequence).map(UInt64.init)
            var turnSeconds: Int?
            if fields.value("turnSeconds") != nil {
                let range = RuleSet.turnSecondsRange
                guard case .integer(let n)? = fields.value("turnSeconds"), n == 0 || range.contains(Int(clamping: n)) else {
                    throw ProtocolError(.badField, "\"turnSeconds\" must be 0 (no turn clock) or whole seconds from \(range.lowerBound) to \(range.upperBound), got \(fields.value("turnSeconds")?.kindName ?? "nothing")")
                }
                turnSeconds = Int(n)
            }
            return .create(CreateRequest(rules: try fields.string("rules", maxBytes: 255),
                                         room: try fields.optionalRoomID("room"), seats: seats, params: params, seed: seed,
                                         deviceRolls: try fields.optionalBool("deviceRolls") ?? false, turnSeconds: turnSeconds))
        case "join":
            let room = try fields.roomID("room")
            if fields.value("token") != nil {
                // Which seat would be meant is not clear: a name and a token are two requests.
                guard fields.value("name") == nil else {
                    throw ProtocolError(.badField, "join takes a \"name\" (a free seat) or a \"token\" (your seat again), not both")
                }
                return .rejoin(room: room, token: try fields.string("token", maxBytes: 64))
            }
            return .join(room: room, name: try fields.playerName("name"))
        case "watch": return .watch(room: try fields.roomID("room"))
        case "start": return .start(seq: try fields.sequence())
        case "ready", "restart": return .ready(seq: try fields.sequence())
        case "abandon": return .abandon(seq: try fields.sequence())
        case "roll":
            let seq = try fields.sequence()
            // A smart die's roll that did not land on a face: "tilt" or "too_short", no values.
            var flag = Roll.Flag.ok
            if fields.value("flag") != nil {
                let text = try fields.string("flag", maxBytes: 16)
                guard let given = Roll.Flag(rawValue: text) else {
                    throw ProtocolError(.badField, "\"flag\" must be \"ok\", \"tilt\" or \"too_short\" (a smart die's roll), got \"\(text)\"")
                }
                flag = given
            }
            guard let given = fields.value("values") else { return .roll(seq: seq, values: nil, flag: flag) }
            guard flag == .ok else {
                throw ProtocolError(.badField, "a roll flagged \"\(flag.rawValue)\" carries no \"values\" (the die did not land on a face)")
            }
            guard case .array(let list) = given, list.count <= 64 else {
                throw ProtocolError(.badField, "\"values\" must be a list of at most 64 whole numbers (a smart die's roll), got \(given.kindName)")
            }
            let values = try list.map { item -> Int in
                guard case .integer(let n) = item, (1...1_000_000).contains(n) else {
                    throw ProtocolError(.badField, "\"values\" must hold whole numbers from 1 to 1000000, got \(item.kindName)")
                }
                return Int(n)
            }
            return .roll(seq: seq, values: values, flag: .ok)
        case "action":
            let seq = try fields.sequence()
            let name = try fields.string("name", maxBytes: 64)
            var arguments: [GameInput.Argument] = []
            if let given = fields.value("args") {
                guard case .array(let list) = given, list.count <= ServerProtocol.maxActionArguments else {
                    throw ProtocolError(.badField, "\"args\" must be a list of at most \(ServerProtocol.maxActionArguments) values, got \(given.kindName)")
                }
                // Read again with fractions kept, so each argument keeps its JSON type (2.0 a float).
                let typed = (try? JSONValue(parsing: text, maxDepth: JSONValue.maxClientDepth, keepingFractions: true))?["args"]
                guard case .array(let kept)? = typed, kept.count == list.count else {
                    throw ProtocolError(.badField, "\"args\" must be a list of at most \(ServerProtocol.maxActionArguments) values")
                }
                arguments = try kept.enumerated().map { try Self.argument($1, field: "args[\($0)]") }
            }
            return .action(seq: seq, name: name, arguments: arguments)
        case "leave": return .leave
        case "ping": return .ping(id: try fields.optionalInteger("id", in: 0...ServerProtocol.maxSequence))
        default:
            throw ProtocolError(.unknownType, "unknown message type '\(type)'; the types are hello, rules, rooms, create, join, watch, start, roll, action, ready (or restart), abandon, leave, ping")
        }
    }
}

/// A message the server refused, with a stable code (for programs) and a sentence (for people).
struct ProtocolError: Error, Equatable, CustomStringConvertible {
    var code: ErrorCode
    var message: String
    init(_ code: ErrorCode, _ message: String) { (self.code, self.message) = (code, message) }
    var description: String { message }
}

/// Reads typed fields of a decoded JSON object, with errors that name the field.
struct JSONFields {
    let object: [String: JSONValue]

    /// The field, or nil when it is missing or null.
    func value(_ key: String) -> JSONValue? {
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    static func paramText(_ value: JSONValue, name: String) throws -> String {
        guard (1...64).contains(name.utf8.count) else { throw ProtocolError(.badField, "a param name must have 1 to 64 bytes") }
        switch value {
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let n): return String(n)
        case .number(let d) where d.isFinite: return String(d)
        case .string(let text) where text.utf8.count <= ServerProtocol.maxArgumentBytes: return text
        default:
            throw ProtocolError(.badField, "param '\(name)' must be a number, a string of at most \(ServerProtocol.maxArgumentBytes) bytes or true/false, got \(value.kindName)")
        }
    }

    func string(_ key: String, maxBytes: Int) throws -> String {
        guard let value = value(key) else { throw ProtocolError(.missingField, "this message needs \"\(key)\"") }
        guard case .string(let text) = value else { throw ProtocolError(.badField, "\"\(key)\" must be a string, got \(value.kindName)") }
        guard text.utf8.count <= maxBytes else { throw ProtocolError(.badField, "\"\(key)\" may have at most \(maxBytes) bytes, got \(text.utf8.count)") }
        return text
    }

    func integer(_ key: String, in range: ClosedRange<Int64>) throws -> Int64 {
        guard let value = value(key) else { throw ProtocolError(.missingField, "this message needs \"\(key)\"") }
        guard case .integer(let n) = value, range.contains(n) else {
            throw ProtocolError(.badField, "\"\(key)\" must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(value.kindName)")
        }
        return n
    }

    func optionalInteger(_ key: String, in range: ClosedRange<Int64>) throws -> Int64? {
        guard value(key) != nil else { return nil }
        return try integer(key, in: range)
    }

    func optionalBool(_ key: String) throws -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw ProtocolError(.badField, "\"\(key)\" must be true or false, got \(value.kindName)") }
        return flag
    }

    /// The client's sequence number of an input (see docs/protocol.md).
    func sequence() throws -> Int64 { try integer("seq", in: 1...ServerProtocol.maxSequence) }

    func playerName(_ key: String) throws -> String {
        let name = try string(key, maxBytes: 4 * ServerProtocol.maxNameCharacters).trimmingCharacters(in: .whitespaces)
        guard (1...ServerProtocol.maxNameCharacters).contains(name.count) else {
            throw ProtocolError(.badName, "a name must have 1 to \(ServerProtocol.maxNameCharacters) characters")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
            || $0.properties.isWhitespace || $0 == "," || $0 == "\"" || $0 == "\\" }) else {
            // Quotes and backslashes too: a name is written bare into the room's command lines.
            throw ProtocolError(.badName, "a name is one word: no spaces, commas, quotes, backslashes or control characters")
        }
        return name
    }

    func roomID(_ key: String) throws -> String {
        let id = try string(key, maxBytes: ServerProtocol.maxRoomIDCharacters)
        guard Self.isRoomID(id) else {
            throw ProtocolError(.badRoom, "a room id has 1 to \(ServerProtocol.maxRoomIDCharacters) letters, digits, '-' or '_'")
        }
        return id
    }

    func optionalRoomID(_ key: String) throws -> String? {
        guard value(key) != nil else { return nil }
        return try roomID(key)
    }

    static func isRoomID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= ServerProtocol.maxRoomIDCharacters
            && id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    }
}
