/// Where an encoder of what a seat is shown (`TableEncoder`) puts its JSON, value by value:
/// straight into bytes (`JSONBytes`, what a server sends: no tree of `JSONValue`s and
/// dictionaries built per seat only to be written and dropped), or into a
/// `JSONValue` (`JSONTree`, for callers that read the result). The encoder writes an
/// object's keys in sorted order and each once, so both give the same JSON text.
protocol JSONOutput {
    mutating func null()
    mutating func bool(_ value: Bool)
    mutating func integer(_ value: Int64)
    mutating func number(_ value: Double)
    mutating func string(_ value: String)
    /// A string given by its bytes, written as `string(String(decoding: bytes, as: UTF8.self))`
    /// would write it (invalid UTF-8 repaired to U+FFFD) without making the `String` when
    /// they are UTF-8 already.
    mutating func string(bytes: UnsafeBufferPointer<UInt8>)
    mutating func beginArray()
    mutating func endArray()
    mutating func beginObject()
    /// The next field's key, inside an object (keys in sorted order, each once).
    mutating func key(_ name: String)
    /// `key(_:)` for a name given by its bytes (repaired as `string(bytes:)` repairs).
    mutating func key(bytes: UnsafeBufferPointer<UInt8>)
    mutating func endObject()
    /// A value already made, written whole.
    mutating func value(_ value: JSONValue)
}

/// Compact JSON as bytes, written as `JSONValue.description` writes the same value.
struct JSONBytes: JSONOutput {
    private(set) var bytes: [UInt8] = []
    /// Whether a value or a field came before at this level: the next one needs a comma.
    private var needsComma = false

    init() { bytes.reserveCapacity(512) }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    mutating func null() { separate(); bytes.append(contentsOf: "null".utf8) }
    mutating func bool(_ value: Bool) { separate(); bytes.append(contentsOf: (value ? "true" : "false").utf8) }
    mutating func integer(_ value: Int64) { separate(); JSONValue.writeInteger(value, into: &bytes) }
    mutating func number(_ value: Double) { separate(); JSONValue.writeNumber(value, into: &bytes) }
    mutating func string(_ value: String) { separate(); JSONValue.quote(value, into: &bytes) }
    mutating func string(bytes text: UnsafeBufferPointer<UInt8>) { separate(); JSONValue.quote(bytes: text, into: &bytes) }
    mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); needsComma = false }
    mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma = true }
    mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); needsComma = false }
    mutating func key(_ name: String) {
        separate()
        JSONValue.quote(name, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }
    mutating func key(bytes name: UnsafeBufferPointer<UInt8>) {
        separate()
        JSONValue.quote(bytes: name, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }
    mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    mutating func value(_ value: JSONValue) { separate(); value.write(into: &bytes) }

    var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// The same values as a `JSONValue`.
struct JSONTree: JSONOutput {
    private struct Container {
        var isObject: Bool
        var keys: [String] = []
        var items: [JSONValue] = []
    }
    private var open: [Container] = []
    private(set) var value: JSONValue = .null

    private mutating func add(_ item: JSONValue) {
        if open.isEmpty { value = item } else { open[open.count - 1].items.append(item) }
    }

    mutating func null() { add(.null) }
    mutating func bool(_ value: Bool) { add(.bool(value)) }
    mutating func integer(_ value: Int64) { add(.integer(value)) }
    mutating func number(_ value: Double) { add(.number(value)) }
    mutating func string(_ value: String) { add(.string(value)) }
    mutating func string(bytes: UnsafeBufferPointer<UInt8>) { add(.string(String(decoding: bytes, as: UTF8.self))) }
    mutating func beginArray() { open.append(Container(isObject: false)) }
    mutating func endArray() {
        guard let done = open.popLast() else { return }
        add(.array(done.items))
    }
    mutating func value(_ value: JSONValue) { add(value) }
    mutating func beginObject() { open.append(Container(isObject: true)) }
    mutating func key(_ name: String) {
        guard !open.isEmpty else { return }
        open[open.count - 1].keys.append(name)
    }
    mutating func key(bytes: UnsafeBufferPointer<UInt8>) { key(String(decoding: bytes, as: UTF8.self)) }
    mutating func endObject() {
        guard let done = open.popLast() else { return }
        var fields: [String: JSONValue] = [:]
        for (key, item) in zip(done.keys, done.items) { fields[key] = item }
        add(.object(fields))
    }
}
