import Lua

extension GameInput {
    /// One argument of an action, typed as the rules receive it: `math.type` tells an
    /// integer from a float, and a string stays a string whatever it spells ("07", "true").
    public enum Argument: Equatable, Sendable, CustomStringConvertible {
        case integer(Int64)
        case float(Double)
        case string(String)
        case boolean(Bool)

        /// The value the action hook receives.
        public var luaValue: LuaValue {
            switch self {
            case .integer(let value): return .integer(value)
            case .float(let value): return .number(value)
            case .string(let value): return .string(value)
            case .boolean(let value): return .boolean(value)
            }
        }

        /// What is wrong with it for any game (a string over the limit, a float that is
        /// not finite), nil if nothing.
        public var problem: String? {
            switch self {
            case .string(let text) where text.utf8.count > GameInput.maxStringBytes:
                return "a string of at most \(GameInput.maxStringBytes) bytes, got \(text.utf8.count)"
            case .float(let value) where !value.isFinite:
                return "a finite number, got \(value)"
            default: return nil
            }
        }

        /// The argument as the REPL reads it back: a number or `true`/`false` bare, a
        /// string bare when the REPL would read the bare word as that same string, else
        /// quoted (`"07"`, `"Ann Lee"`, `""`).
        public var description: String {
            switch self {
            case .integer(let value): return String(value)
            case .float(let value): return value.description
            case .boolean(let value): return value ? "true" : "false"
            case .string(let text): return GameInputLine.needsQuotes(text) ? GameInputLine.quote(text) : text
            }
        }
    }
}
