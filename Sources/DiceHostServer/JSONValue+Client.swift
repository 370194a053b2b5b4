import DiceHost
import Foundation

/// A client's messages are read into DiceHost's `JSONValue` (the replay log's), with a
/// whole number sent as `3.0` read as the integer 3, as a client's JSON library may write it.
extension JSONValue {
    /// Strict JSON (RFC 8259): the leniencies of some decoders (trailing commas, comments)
    /// are refused, so a client written from the protocol document cannot come to rely on
    /// them; nesting is bounded so no message makes the reader recurse deeply.
    static func parse(_ text: String) throws -> JSONValue {
        try JSONValue(parsing: text, maxDepth: maxClientDepth)
    }

    static let maxClientDepth = 32

    /// "a string", "a list", … for error messages.
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "true/false"
        case .integer(let n): return "the number \(n)"
        case .unsigned(let n): return "the number \(n)"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "a list"
        case .object: return "an object"
        }
    }
}

extension String {
    /// This text as a JSON string literal (see `GameEvent.quote`).
    var jsonQuoted: String { GameEvent.quote(self) }
}
