/// Checks that a client's message is strict JSON (RFC 8259) before it is decoded:
/// Foundation's decoder also takes trailing commas, comments and other leniencies a
/// client written from the protocol document must not come to rely on. It also bounds
/// nesting (`maxDepth`), so no message makes the decoder recurse deeply.
enum StrictJSON {
    static let maxDepth = 32

    struct Failure: Error {
        var offset: Int
        var expected: String
    }

    static func validate(_ text: String) throws {
        var reader = Reader(bytes: Array(text.utf8))
        reader.skipSpace()
        try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.position == reader.bytes.count else { throw Failure(offset: reader.position, expected: "the end of the message") }
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipSpace() {
            while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws {
            guard peek == byte else { throw Failure(offset: position, expected: what) }
            position += 1
        }

        mutating func value(depth: Int) throws {
            guard depth <= StrictJSON.maxDepth else { throw Failure(offset: position, expected: "at most \(StrictJSON.maxDepth) levels of nesting") }
            switch peek {
            case UInt8(ascii: "{"):
                position += 1
                skipSpace()
                if peek == UInt8(ascii: "}") { position += 1; return }
                while true {
                    skipSpace()
                    try string()
                    skipSpace()
                    try expect(UInt8(ascii: ":"), "':'")
                    skipSpace()
                    try value(depth: depth + 1)
                    skipSpace()
                    if peek == UInt8(ascii: ",") { position += 1; continue }
                    try expect(UInt8(ascii: "}"), "',' or '}'")
                    return
                }
            case UInt8(ascii: "["):
                position += 1
                skipSpace()
                if peek == UInt8(ascii: "]") { position += 1; return }
                while true {
                    skipSpace()
                    try value(depth: depth + 1)
                    skipSpace()
                    if peek == UInt8(ascii: ",") { position += 1; continue }
                    try expect(UInt8(ascii: "]"), "',' or ']'")
                    return
                }
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            default: try number()
            }
        }

        mutating func literal(_ word: String) throws {
            for byte in word.utf8 { try expect(byte, word) }
        }

        mutating func string() throws {
            try expect(UInt8(ascii: "\""), "a string")
            while let byte = peek {
                position += 1
                switch byte {
                case UInt8(ascii: "\""): return
                case UInt8(ascii: "\\"):
                    guard let escaped = peek else { break }
                    position += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"): continue
                    case UInt8(ascii: "u"):
                        for _ in 0..<4 {
                            guard let hex = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(hex)
                                || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(hex) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(hex)
                            else { throw Failure(offset: position, expected: "four hex digits after \\u") }
                            position += 1
                        }
                    default: throw Failure(offset: position - 1, expected: "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
                    }
                case 0..<0x20: throw Failure(offset: position - 1, expected: "no control characters in a string (escape them)")
                default: continue
                }
            }
            throw Failure(offset: position, expected: "the end of the string")
        }

        mutating func number() throws {
            let start = position
            if peek == UInt8(ascii: "-") { position += 1 }
            guard let first = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
                throw Failure(offset: start, expected: "a value")
            }
            if first == UInt8(ascii: "0") { position += 1 } else { digits() }
            if peek == UInt8(ascii: ".") {
                position += 1
                guard digits() > 0 else { throw Failure(offset: position, expected: "digits after '.'") }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                position += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { position += 1 }
                guard digits() > 0 else { throw Failure(offset: position, expected: "digits in the exponent") }
            }
        }

        @discardableResult
        mutating func digits() -> Int {
            var count = 0
            while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1; count += 1 }
            return count
        }
    }
}
