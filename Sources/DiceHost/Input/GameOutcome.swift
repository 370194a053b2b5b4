import Lua

/// What `Game.apply` did with an input: applied (the events it caused), refused (a code
/// and a message; nothing changed), or a failure of the rules (the Lua error with its
/// file and line; nothing changed either - an input is a transaction).
public enum GameOutcome: Equatable, Sendable {
    case applied([GameEvent])
    case refused(RefusalCode, String)
    case ruleFailure(LuaError)

    /// The events, when applied.
    public var events: [GameEvent] {
        if case .applied(let events) = self { return events }
        return []
    }

    /// The error a person reads, without "error: " (nil when applied): the text the
    /// throwing entry points' errors print.
    public var errorMessage: String? {
        switch self {
        case .applied: return nil
        case .refused(_, let message): return message
        case .ruleFailure(let error): return GameError.script(error).description
        }
    }

    /// Whether the input changed nothing because it was refused or failed.
    public var isApplied: Bool {
        if case .applied = self { return true }
        return false
    }
}
