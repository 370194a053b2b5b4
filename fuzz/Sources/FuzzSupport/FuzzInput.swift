/// Reads typed values from a fuzz input, front to back; past the end everything is zero.
public struct FuzzInput {
    public let bytes: [UInt8]
    public private(set) var position = 0

    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    public init(bytes: [UInt8]) { self.bytes = bytes }

    public var isAtEnd: Bool { position >= bytes.count }
    public var remaining: Int { max(0, bytes.count - position) }

    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A number in 0..<n (n > 0).
    public mutating func below(_ n: Int) -> Int { n <= 256 ? Int(byte()) % n : Int(uint16()) % n }

    public mutating func bool() -> Bool { byte() & 1 == 1 }

    public mutating func uint16() -> UInt16 { UInt16(byte()) | UInt16(byte()) << 8 }

    public mutating func int64() -> Int64 {
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(byte()) << (8 * UInt64(i)) }
        return Int64(bitPattern: v)
    }

    /// Up to `max` bytes as text (invalid UTF-8 repaired).
    public mutating func string(max: Int) -> String {
        let n = min(below(max + 1), remaining)
        defer { position += n }
        return String(decoding: bytes[position..<position + n], as: UTF8.self)
    }

    /// The rest as text.
    public mutating func rest() -> String {
        defer { position = bytes.count }
        return String(decoding: bytes[min(position, bytes.count)...], as: UTF8.self)
    }

    /// One of the choices.
    public mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }
}

/// Stops the fuzzer with a message that names the broken invariant (libFuzzer saves the input).
public func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                      file: StaticString = #file, line: UInt = #line) {
    if !condition() { fatalError("invariant broken: \(message())", file: file, line: line) }
}
