import Lua

/// Why an input or a rule script was refused. The game is unchanged when one is thrown.
public enum GameError: Error, Equatable, CustomStringConvertible {
    /// The rule script failed (load, validation or a hook): file, line and message.
    case script(LuaError)
    /// The declaration or a parameter is wrong; `location` is "file:line" when known.
    case invalidRules(String, location: String?)
    /// The input is not allowed (game over, unknown action or player, bad values).
    case refused(String)

    /// One line, with every control character escaped as events escape script text
    /// (`\u{1B}` for ESC): a message may carry text from a script (`error("\27[2J")`),
    /// and must not reach a terminal raw.
    public var description: String { GameEvent.oneLine(unescapedDescription) }

    private var unescapedDescription: String {
        switch self {
        case .script(let error): return error.description
        case .invalidRules(let message, let location?): return "\(location): \(message)"
        case .invalidRules(let message, nil): return message
        case .refused(let message): return message
        }
    }
}
