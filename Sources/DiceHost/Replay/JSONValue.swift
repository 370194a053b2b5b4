import Foundation

/// Any JSON value, decoded exactly (integers stay integers): how the replay log keeps a
/// recorded event, so replay compares the whole event, field by field.
public enum JSONValue: Codable, Equatable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A whole number above `Int64.max` (a seed may be any UInt64).
    case unsigned(UInt64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(UInt64.self) { self = .unsigned(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .unsigned(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields[key]
    }

    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    public var intValue: Int? {
        guard case .integer(let value) = self else { return nil }
        return Int(exactly: value)
    }

    /// Compact JSON with sorted keys: what `JSONEncoder` with `.sortedKeys` and
    /// `.withoutEscapingSlashes` writes, written directly. It is on a server's hot path
    /// (every seat's view, every room log line), where going through `Encodable` cost
    /// more than making the view (issue 32); a non-finite number is `null`.
    public var description: String {
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .integer(let value): out += String(value)
        case .unsigned(let value): out += String(value)
        case .number(let value):
            // Rare in views and logs: JSONEncoder's own form of a double (1e+20, 0.5, 1).
            let data = value.isFinite ? try? JSONEncoder().encode(value) : nil
            out += data.map { String(decoding: $0, as: UTF8.self) } ?? "null"
        case .string(let value): Self.quote(value, into: &out)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                Self.quote(key, into: &out)
                out += ":"
                fields[key]?.write(into: &out)
            }
            out += "}"
        }
    }

    /// A JSON string: `"` and `\\` escaped, control characters as \n, \t, \r, \b, \f or
    /// \u00XX, everything else as it is (as JSONEncoder writes it).
    private static func quote(_ text: String, into out: inout String) {
        out += "\""
        // Most strings (names, keys, card faces) need no escape: appended whole, which is
        // far cheaper than scalar by scalar (issue 32: quoting was most of a view's JSON).
        // Bytes of multi-byte UTF-8 are all >= 0x80, so the byte check is exact.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            out += text
            out += "\""
            return
        }
        var plain = text.unicodeScalars.startIndex
        let scalars = text.unicodeScalars
        for index in scalars.indices {
            let scalar = scalars[index]
            let escape: String
            switch scalar {
            case "\"": escape = "\\\""
            case "\\": escape = "\\\\"
            case "\n": escape = "\\n"
            case "\t": escape = "\\t"
            case "\r": escape = "\\r"
            case "\u{08}": escape = "\\b"
            case "\u{0C}": escape = "\\f"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: continue
            }
            out.unicodeScalars.append(contentsOf: scalars[plain..<index])
            out += escape
            plain = scalars.index(after: index)
        }
        out.unicodeScalars.append(contentsOf: scalars[plain...])
        out += "\""
    }
}
