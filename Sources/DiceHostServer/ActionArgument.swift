import DiceHost
import Foundation
import Lua

/// One argument of an action, as JSON gives it (the rules see Lua values).
enum ActionArgument: Equatable {
    case integer(Int64), number(Double), string(String), boolean(Bool)

    init(json value: JSONValue) throws {
        switch value {
        case .bool(let flag): self = .boolean(flag)
        case .integer(let n): self = .integer(n)
        case .number(let d):
            guard d.isFinite else { throw ProtocolError(.badField, "an action argument must be a finite number") }
            self = .number(d)
        case .string(let text):
            guard (1...ServerProtocol.maxArgumentBytes).contains(text.utf8.count) else {
                throw ProtocolError(.badField, "an action argument must have 1 to \(ServerProtocol.maxArgumentBytes) bytes, got \(text.utf8.count)")
            }
            // One word, as the REPL and the room log type it.
            guard !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) else {
                throw ProtocolError(.badField, "an action argument is one word: no spaces or control characters")
            }
            self = .string(text)
        default:
            throw ProtocolError(.badField, "an action argument must be a number, a string or true/false, got \(value.kindName)")
        }
    }
}

extension ActionArgument {
    /// The value the rules get: the argument's text read as the REPL reads a word
    /// (integer, finite number, true/false, else a string), so the room log's command
    /// line replays to the same value ("25" and 25 are both the integer 25).
    var commandValue: LuaValue {
        let text = commandText
        if let i = Int64(text) { return .integer(i) }
        if let d = Double(text), d.isFinite { return .number(d) }
        if text == "true" { return .boolean(true) }
        if text == "false" { return .boolean(false) }
        return .string(text)
    }

    /// The argument as the REPL types it (for the room log).
    var commandText: String {
        switch self {
        case .integer(let n): return String(n)
        case .number(let d): return String(d)
        case .string(let s): return s
        case .boolean(let b): return b ? "true" : "false"
        }
    }
}
