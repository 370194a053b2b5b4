import Foundation

/// Something that happened in a game, stamped with the game clock (ms).
public struct GameEvent: Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        case start(players: [String], seed: UInt64)
        case turn(player: String)
        case roll(player: String, roll: Roll)
        case say(String)
        case led(LEDCommand)
        case custom(name: String, data: String)
        case win(player: String)
        case lose(player: String)
        case draw
        case eliminate(player: String)
        case reload(String)
        case error(String)
        /// A secret roll as the players who may not see it learn of it: that `player`
        /// rolled `dice` dice (the values stay under the cup).
        case hiddenRoll(player: String, dice: Int)
        /// `g:reveal(p)`: a secret roll shown to everyone.
        case reveal(player: String, roll: Roll)
    }

    public var time: Int
    public var kind: Kind
    /// Who may see the event: nil for everyone, else the names of the players it is
    /// addressed to (`g:tell`, `g:emit(name, data, to)`, a secret roll's roller).
    /// Spectators see only events for everyone. See `seen(by:)`.
    public var audience: [String]?

    public init(time: Int, kind: Kind, audience: [String]? = nil) {
        self.time = time
        self.kind = kind
        self.audience = audience
    }

    /// The stable text form tests compare: "turn Ann", "roll Ann ⚂ ⚄ = 8", …; an event
    /// for some players only is marked with them: "[to Ann] say you hold ⚂ ⚄".
    /// Always one line: text from a script cannot forge a transcript line (see `oneLine`).
    public var description: String {
        guard let audience else { return Self.oneLine(text) }
        return Self.oneLine("[to \(audience.joined(separator: ","))] " + text)
    }

    /// The event as `viewer` may see it (nil: a spectator): itself when it is public or
    /// addressed to the viewer; a secret roll as `hiddenRoll` (that a roll happened, not
    /// its values); nothing for a message to someone else. The one place a front end
    /// (the server, `play --seat`) decides what of the log a seat receives.
    public func seen(by viewer: String?) -> GameEvent? {
        guard let audience else { return self }
        if let viewer, audience.contains(viewer) { return self }
        if case .roll(let player, let roll) = kind {
            return GameEvent(time: time, kind: .hiddenRoll(player: player, dice: roll.values.count))
        }
        return nil
    }

    private var text: String {
        switch kind {
        case .start(let players, let seed): return "start \(players.joined(separator: ",")) seed=\(seed)"
        case .turn(let p): return "turn \(p)"
        case .roll(let p, let r): return "roll \(p) \(r)"
        case .say(let text): return "say \(text)"
        case .led(let command): return "led \(command)"
        case .custom(let name, let data): return data.isEmpty ? "emit \(name)" : "emit \(name) \(data)"
        case .win(let p): return "win \(p)"
        case .lose(let p): return "lose \(p)"
        case .draw: return "draw"
        case .eliminate(let p): return "eliminate \(p)"
        case .reload(let text): return "reload \(text)"
        case .error(let text): return "error \(text)"
        case .hiddenRoll(let p, let n): return "roll \(p) " + String(repeating: "▢ ", count: max(0, min(n, 100))) + "(hidden)"
        case .reveal(let p, let r): return "reveal \(p) \(r)"
        }
    }

    /// `text` with every line break and control character escaped, so it prints as one
    /// line: "\n" reads `\n`, "\r" `\r`, "\t" `\t`, others `\u{1B}` (C0, DEL, C1 and the
    /// Unicode line and paragraph separators). Other text, backslashes included, is unchanged.
    public static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where needsEscape(scalar): out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029
    }

    /// "[1500ms] turn Ann".
    public var timestamped: String { "[\(time)ms] \(description)" }

    /// One JSON object: {"t":1500,"type":"turn","player":"Ann"}. Written field by field
    /// with their types known (a server writes every event for every seat; the
    /// `Any` fields it was built from cost a dynamic cast each).
    public var json: String {
        var out = "{\"t\":" + String(time)
        for (name, value) in fields {
            out += ",\"" + name + "\":"
            Self.write(value, into: &out)
        }
        return out + "}"
    }

    /// The event's fields after `t`, in the order `json` writes them: the one description
    /// both the JSON text and the log's object (`GameLog.json`) are made from.
    var fields: [(name: String, value: JSONValue)] {
        var out: [(name: String, value: JSONValue)] = []
        func add(_ name: String, _ value: JSONValue) { out.append((name, value)) }
        func integer(_ value: Int) -> JSONValue { .integer(Int64(value)) }
        func roll(_ type: String, _ p: String, _ r: Roll) {
            add("type", .string(type)); add("player", .string(p)); add("values", .array(r.values.map(integer)))
            add("total", integer(r.total)); add("flag", .string(r.flag.rawValue))
        }
        switch kind {
        case .start(let players, let seed):
            add("type", .string("start")); add("players", .array(players.map(JSONValue.string)))
            // As a reader takes a whole number: an integer while it fits one.
            add("seed", seed <= UInt64(Int64.max) ? .integer(Int64(seed)) : .unsigned(seed))
        case .turn(let p): add("type", .string("turn")); add("player", .string(p))
        case .roll(let p, let r): roll("roll", p, r)
        case .say(let text): add("type", .string("say")); add("text", .string(text))
        case .led(let c):
            add("type", .string("led")); add("command", .string(c.description)); add("mask", integer(c.mask.rawValue)); add("priority", integer(c.priority))
        case .custom(let name, let data): add("type", .string("emit")); add("name", .string(name)); add("data", .string(data))
        case .win(let p): add("type", .string("win")); add("player", .string(p))
        case .lose(let p): add("type", .string("lose")); add("player", .string(p))
        case .draw: add("type", .string("draw"))
        case .eliminate(let p): add("type", .string("eliminate")); add("player", .string(p))
        case .reload(let text): add("type", .string("reload")); add("text", .string(text))
        case .error(let text): add("type", .string("error")); add("text", .string(text))
        case .hiddenRoll(let p, let n): add("type", .string("roll")); add("player", .string(p)); add("hidden", .bool(true)); add("dice", integer(n))
        case .reveal(let p, let r): roll("reveal", p, r)
        }
        if let audience { add("to", .array(audience.map(JSONValue.string))) }
        return out
    }

    /// A field's value as `json` writes it: strings through `quote` (which also escapes
    /// U+2028/2029 and DEL, unlike `JSONValue`'s text).
    private static func write(_ value: JSONValue, into out: inout String) {
        switch value {
        case .string(let s): out += quote(s)
        case .integer(let n): out += String(n)
        case .unsigned(let n): out += String(n)
        case .bool(let b): out += b ? "true" : "false"
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                write(item, into: &out)
            }
            out += "]"
        default: out += value.description
        }
    }

    /// `s` as a JSON string literal: quotes, backslashes and control characters escaped,
    /// and U+2028/2029 and DEL too, so the text is also safe inside a script (the server's
    /// messages and web page use this).
    public static func quote(_ s: String) -> String {
        // Byte by byte over the UTF-8 (a server quotes every name and text of
        // every message; scalar by scalar, a line with a card glyph cost ~8 k instructions).
        // Every byte that needs an escape is ASCII, and U+2028/2029 are the only multi-byte
        // characters escaped (E2 80 A8/A9); the other bytes are copied as they are.
        var text = s
        return text.withUTF8 { bytes -> String in
            let count = bytes.count
            var extra = 0
            var index = 0
            while index < count {
                let byte = bytes[index]
                if byte < 0x20 {
                    extra += byte == 0x0A || byte == 0x09 || byte == 0x0D ? 1 : 5
                } else if byte == 0x22 || byte == 0x5C {
                    extra += 1
                } else if byte == 0x7F {
                    extra += 5
                } else if byte == 0xE2, index + 2 < count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 {
                    extra += 3
                    index += 2
                }
                index += 1
            }
            return String(unsafeUninitializedCapacity: count + 2 + extra) { out in
                out[0] = 0x22
                var at = 1
                func escape(_ second: UInt8) {
                    out[at] = 0x5C
                    out[at + 1] = second
                    at += 2
                }
                func unicode(_ value: UInt32) {
                    // \u and four lowercase hex digits, as String(format: "\\u%04x") wrote.
                    out[at] = 0x5C
                    out[at + 1] = UInt8(ascii: "u")
                    out[at + 2] = JSONValue.hexDigits[Int((value >> 12) & 0x0F)]
                    out[at + 3] = JSONValue.hexDigits[Int((value >> 8) & 0x0F)]
                    out[at + 4] = JSONValue.hexDigits[Int((value >> 4) & 0x0F)]
                    out[at + 5] = JSONValue.hexDigits[Int(value & 0x0F)]
                    at += 6
                }
                if extra == 0, count > 0, let base = out.baseAddress, let source = bytes.baseAddress {
                    (base + 1).update(from: source, count: count)
                    at += count
                } else {
                    var index = 0
                    while index < count {
                        let byte = bytes[index]
                        switch byte {
                        case 0x22: escape(0x22)
                        case 0x5C: escape(0x5C)
                        case 0x0A: escape(UInt8(ascii: "n"))
                        case 0x09: escape(UInt8(ascii: "t"))
                        case 0x0D: escape(UInt8(ascii: "r"))
                        case 0..<0x20, 0x7F: unicode(UInt32(byte))
                        case 0xE2 where index + 2 < count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                            unicode(bytes[index + 2] == 0xA8 ? 0x2028 : 0x2029)
                            index += 2
                        default:
                            out[at] = byte
                            at += 1
                        }
                        index += 1
                    }
                }
                out[at] = 0x22
                return at + 1
            }
        }
    }
}
