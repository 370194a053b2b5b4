import DiceHost

/// A message the server sends, written in one place: `{"type":T`, then the `ack` when the
/// message carries one (protocol version 2's `events`), then `room` when it has one, then
/// its fields in the order given. Field values are `JSONValue`s (strings quoted as every
/// server text is, `GameEvent.quote`), or JSON already written (a state, a list of events).
struct ServerMessage {
    /// Every type of message the server sends (docs/protocol.md, "Server → client").
    enum Kind: String, CaseIterable, Sendable {
        case hello, rules, rooms, created, joined, watching, state, events, ack, reloaded, error, abandoned, left, pong
    }

    /// A field's value.
    enum Value {
        case json(JSONValue)
        /// JSON written already (a room's state, a list of events), copied as it is.
        case written(String)

        static func string(_ text: String) -> Value { .json(.string(text)) }
        static func integer<I: BinaryInteger>(_ value: I) -> Value { .json(.integer(Int64(clamping: value))) }
        static func bool(_ value: Bool) -> Value { .json(.bool(value)) }
    }

    var kind: Kind
    var ack: Int64?
    var room: String?
    var fields: [(key: String, value: Value)]

    init(_ kind: Kind, ack: Int64? = nil, room: String? = nil, _ fields: [(key: String, value: Value)] = []) {
        self.kind = kind
        self.ack = ack
        self.room = room
        self.fields = fields
    }

    /// An `error` message: its code and text, the input's `seq` when it answers one.
    static func error(_ code: ErrorCode, _ message: String, room: String? = nil, seq: Int64? = nil) -> ServerMessage {
        var fields: [(key: String, value: Value)] = [("code", .string(code.rawValue)), ("message", .string(message))]
        if let seq { fields.append(("seq", .integer(seq))) }
        return ServerMessage(.error, room: room, fields)
    }

    /// A JSON object of these fields, in this order (a message's `cause`, a lobby's room).
    static func object(_ fields: [(key: String, value: Value)]) -> String {
        var out = MessageText(capacity: 16 + fields.reduce(0) { $0 + $1.key.utf8.count + sizeHint($1.value) })
        out.raw("{")
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { out.raw(",") }
            out.field(key, value)
        }
        out.raw("}")
        return out.string
    }

    /// A JSON list of these values, in this order (a room's players, a game's actions).
    static func array(_ items: [Value]) -> String {
        var out = MessageText(capacity: 2 + items.reduce(0) { $0 + 1 + sizeHint($1) })
        out.raw("[")
        for (index, item) in items.enumerated() {
            if index > 0 { out.raw(",") }
            out.item(item)
        }
        out.raw("]")
        return out.string
    }

    /// The message as text (for the few messages sent one at a time, and the tests).
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The message's UTF-8, as a frame carries it: what a broadcast sends, with no `String`
    /// made and checked on the way (checking 2 KB of UTF-8 cost about 20,000 instructions a
    /// message, four messages an input in a room of four; every piece is UTF-8 already).
    var bytes: [UInt8] {
        var out = MessageText(capacity: 64 + fields.reduce(0) { $0 + $1.key.utf8.count + Self.sizeHint($1.value) })
        out.raw("{\"type\":")
        out.string(kind.rawValue)
        if let ack {
            out.raw(",\"ack\":")
            out.value(.integer(ack))
        }
        if let room {
            out.raw(",\"room\":")
            out.string(room)
        }
        for (key, value) in fields {
            out.raw(",")
            out.field(key, value)
        }
        out.raw("}")
        return out.bytes
    }

    fileprivate static func sizeHint(_ value: Value) -> Int {
        switch value {
        case .written(let text): return text.utf8.count + 4
        case .json: return 24
        }
    }
}

/// The bytes of a message being written (a `String` made once at the end: appending to a
/// `String` piece by piece cost several times more).
struct MessageText {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Punctuation and keys written in the source.
    mutating func raw(_ text: StaticString) { text.withUTF8Buffer { bytes.append(contentsOf: $0) } }

    /// JSON written already.
    mutating func text(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func string(_ text: String) { bytes.append(contentsOf: GameEvent.quote(text).utf8) }

    mutating func value(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let flag): flag ? raw("true") : raw("false")
        case .integer(let n): text(String(n))
        case .unsigned(let n): text(String(n))
        case .string(let s): string(s)
        case .number, .array, .object:
            // Not in any message the server writes by hand; JSONValue's own form.
            text(value.description)
        }
    }

    mutating func field(_ key: String, _ value: ServerMessage.Value) {
        string(key)
        raw(":")
        item(value)
    }

    mutating func item(_ value: ServerMessage.Value) {
        switch value {
        case .json(let json): self.value(json)
        case .written(let text): self.text(text)
        }
    }

    var string: String { String(decoding: bytes, as: UTF8.self) }
}
