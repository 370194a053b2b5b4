/// Reading JSON text into a `JSONValue` without Foundation: strict RFC 8259 (no trailing
/// commas, comments or other leniencies) with bounded nesting. It is on a server's hot
/// path (every client message, every room log line), where `JSONDecoder`'s generic
/// `Decodable` containers cost more than the work the message asked for.
extension JSONValue {
    /// Why a text is not JSON: where (a byte offset) and what was expected there.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var offset: Int
        public var expected: String
        public var description: String { "expected \(expected) at byte \(offset)" }
    }

    /// Parses `text` into the value `JSONDecoder` gave: a whole number that fits `Int64`
    /// is `.integer` (also written `3.0` or `1e2`), one above it that fits `UInt64` is
    /// `.unsigned`, anything else `.number`; of a key given twice, the first counts.
    /// With `keepingFractions`, a number written with a fraction or an exponent stays
    /// `.number` even when it is whole (`2.0`, `1e3`): how an input's float arguments
    /// are told from its integers (`GameInput`).
    public init(parsing text: String, maxDepth: Int = 64, keepingFractions: Bool = false) throws {
        var reader = JSONTextReader(bytes: Array(text.utf8), maxDepth: maxDepth)
        reader.keepsFractions = keepingFractions
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.position == reader.bytes.count else { throw ParseError(offset: reader.position, expected: "the end of the text") }
        self = value
    }
}

private struct JSONTextReader {
    let bytes: [UInt8]
    let maxDepth: Int
    var position = 0
    var keepsFractions = false

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    func fail(_ expected: String, at offset: Int? = nil) -> JSONValue.ParseError {
        JSONValue.ParseError(offset: offset ?? position, expected: expected)
    }

    mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws {
        guard peek == byte else { throw fail(what) }
        position += 1
    }

    mutating func value(depth: Int) throws -> JSONValue {
        guard depth <= maxDepth else { throw fail("at most \(maxDepth) levels of nesting") }
        switch peek {
        case UInt8(ascii: "{"):
            position += 1
            skipSpace()
            var fields: [String: JSONValue] = [:]
            if peek == UInt8(ascii: "}") { position += 1; return .object(fields) }
            while true {
                skipSpace()
                let key = try string()
                skipSpace()
                try expect(UInt8(ascii: ":"), "':'")
                skipSpace()
                let item = try value(depth: depth + 1)
                if fields[key] == nil { fields[key] = item }
                skipSpace()
                if peek == UInt8(ascii: ",") { position += 1; continue }
                try expect(UInt8(ascii: "}"), "',' or '}'")
                return .object(fields)
            }
        case UInt8(ascii: "["):
            position += 1
            skipSpace()
            var items: [JSONValue] = []
            if peek == UInt8(ascii: "]") { position += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                if peek == UInt8(ascii: ",") { position += 1; continue }
                try expect(UInt8(ascii: "]"), "',' or ']'")
                return .array(items)
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return try number()
        }
    }

    mutating func literal(_ word: String) throws {
        for byte in word.utf8 { try expect(byte, word) }
    }

    mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""), "a string")
        let start = position
        // Without escapes (most strings) the bytes are the string.
        while let byte = peek, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 { position += 1 }
        if peek == UInt8(ascii: "\"") {
            position += 1
            return String(decoding: bytes[start..<position - 1], as: UTF8.self)
        }
        var out = Array(bytes[start..<position])
        while let byte = peek {
            position += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { throw fail("an escape") }
                position += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        // A high surrogate must be followed by an escaped low one.
                        guard peek == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                            throw fail("a low surrogate (\\uDC00-\\uDFFF) after a high one")
                        }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("a low surrogate (\\uDC00-\\uDFFF) after a high one", at: position - 6) }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw fail("no lone low surrogate", at: position - 6)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw fail("a Unicode scalar", at: position - 6) }
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: throw fail("an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", at: position - 1)
                }
            case 0..<0x20: throw fail("no control characters in a string (escape them)", at: position - 1)
            default: out.append(byte)
            }
        }
        throw fail("the end of the string")
    }

    mutating func hex4() throws -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek else { throw fail("four hex digits after \\u") }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("four hex digits after \\u")
            }
            code = code << 4 | UInt32(digit)
            position += 1
        }
        return code
    }

    mutating func number() throws -> JSONValue {
        let start = position
        if peek == UInt8(ascii: "-") { position += 1 }
        guard let first = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw fail("a value", at: start)
        }
        if first == UInt8(ascii: "0") { position += 1 } else { digits() }
        var integral = true
        if peek == UInt8(ascii: ".") {
            position += 1
            integral = false
            guard digits() > 0 else { throw fail("digits after '.'") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            position += 1
            integral = false
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw fail("digits in the exponent") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if integral {
            if let value = Int64(text) { return .integer(value) }
            if let value = UInt64(text) { return .unsigned(value) }
            // Read as typed, a whole number is an integer or nothing: not a float near it.
            if keepsFractions { throw fail("a whole number from -9223372036854775808 to 18446744073709551615", at: start) }
        }
        guard let value = Double(text) else { throw fail("a number", at: start) }
        if keepsFractions, !integral { return .number(value) }
        if let whole = Int64(exactly: value) { return .integer(whole) }
        if let whole = UInt64(exactly: value) { return .unsigned(whole) }
        return .number(value)
    }

    @discardableResult
    mutating func digits() -> Int {
        var count = 0
        while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1; count += 1 }
        return count
    }
}
