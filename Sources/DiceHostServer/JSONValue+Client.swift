import DiceHost
import Foundation

/// A client's messages are read into DiceHost's `JSONValue` (the replay log's), with a
/// whole number sent as `3.0` read as the integer 3, as a client's JSON library may write it.
extension JSONValue {
    static func parse(_ text: String) throws -> JSONValue {
        try StrictJSON.validate(text)
        return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)).wholeNumbersAsIntegers
    }

    private var wholeNumbersAsIntegers: JSONValue {
        switch self {
        case .number(let d) where d.isFinite && d == d.rounded() && abs(d) < 9.2e18: return .integer(Int64(d))
        case .array(let items): return .array(items.map(\.wholeNumbersAsIntegers))
        case .object(let fields): return .object(fields.mapValues(\.wholeNumbersAsIntegers))
        default: return self
        }
    }

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
