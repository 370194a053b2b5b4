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
    /// more than making the view; a non-finite number is `null`.
    public var description: String {
        // Bytes, not a String: appending to a String checks and grows its storage on every
        // piece, which made writing a view cost more than making it.
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): Self.writeInteger(value, into: &out)
        case .unsigned(let value): out.append(contentsOf: String(value).utf8)
        case .number(let value): Self.writeNumber(value, into: &out)
        case .string(let value): Self.quote(value, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.quote(key, into: &out)
                out.append(UInt8(ascii: ":"))
                fields[key]?.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A whole number's digits.
    static func writeInteger(_ value: Int64, into out: inout [UInt8]) {
        // Small ones (counts, die values, ranks, milliseconds) digit by digit: no String made.
        guard value >= 0, value < 1_000_000_000 else { out.append(contentsOf: String(value).utf8); return }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            for index in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[index]) }
        }
    }

    /// A double as JSONEncoder writes it; a non-finite one is `null`.
    static func writeNumber(_ value: Double, into out: inout [UInt8]) {
        // Rare in views and logs: JSONEncoder's own form of a double (1e+20, 0.5, 1).
        let data = value.isFinite ? try? JSONEncoder().encode(value) : nil
        out.append(contentsOf: data.map { Array($0) } ?? Array("null".utf8))
    }

    /// `quote(String(decoding: text, as: UTF8.self), into:)`, written from the bytes
    /// themselves when they are UTF-8 (the usual case: no `String` made); else
    /// through that `String`, which repairs them as it always did.
    static func quote(bytes text: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        var index = 0
        let count = text.count
        while index < count {
            guard text[index] >= 0x80 else { index += 1; continue }
            guard let next = nextScalarEnd(text, from: index) else {
                quote(String(decoding: text, as: UTF8.self), into: &out)
                return
            }
            index = next
        }
        quote(utf8: text, into: &out)
    }

    /// A JSON string of bytes known to be UTF-8 (a `String`'s, or checked). One pass: the
    /// runs between bytes that need an escape are copied whole.
    static func quote(utf8 text: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var start = 0
        var index = 0
        let count = text.count
        while index < count {
            let byte = text[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C {
                if start < index { out.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<index])) }
                escape(byte, into: &out)
                start = index + 1
            }
            index += 1
        }
        if start < count { out.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<count])) }
        out.append(UInt8(ascii: "\""))
    }

    /// Where the UTF-8 sequence starting at `start` (a byte >= 0x80) ends, nil when it is
    /// not one `String(decoding:as:)` keeps as it is (a stray continuation byte, an
    /// overlong form, a surrogate, past U+10FFFF, cut short).
    static func nextScalarEnd(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let lead = text[start]
        let length: Int, low: UInt8, high: UInt8
        switch lead {
        case 0xC2...0xDF: length = 2; low = 0x80; high = 0xBF
        case 0xE0: length = 3; low = 0xA0; high = 0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3; low = 0x80; high = 0xBF
        case 0xED: length = 3; low = 0x80; high = 0x9F
        case 0xF0: length = 4; low = 0x90; high = 0xBF
        case 0xF1...0xF3: length = 4; low = 0x80; high = 0xBF
        case 0xF4: length = 4; low = 0x80; high = 0x8F
        default: return nil
        }
        guard start + length <= text.count, (low...high).contains(text[start + 1]) else { return nil }
        for index in (start + 2)..<(start + length) where text[index] & 0xC0 != 0x80 { return nil }
        return start + length
    }

    /// One byte of a string as JSON writes it (escaped when it must be).
    static func escape(_ byte: UInt8, into out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "\\"))
        case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
        case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
        case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
        case 0x08: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "b"))
        case 0x0C: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "f"))
        case 0..<0x20:
            out.append(contentsOf: "\\u00".utf8)
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        default: out.append(byte)
        }
    }

    /// Lowercase hex digits, for `\u` escapes.
    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// A JSON string: `"` and `\\` escaped, control characters as \n, \t, \r, \b, \f or
    /// \u00XX, everything else as it is (as JSONEncoder writes it). Byte by byte: every
    /// byte that needs an escape is ASCII, and the bytes of a multi-byte character are
    /// all >= 0x80, so they are copied as they are.
    static func quote(_ text: String, into out: inout [UInt8]) {
        // Through the string's contiguous bytes (a small string's on the stack): through the
        // generic UTF-8 view, checking and copying a key cost more than the rest of it.
        var text = text
        text.withUTF8 { quote(utf8: $0, into: &out) }
    }
}
