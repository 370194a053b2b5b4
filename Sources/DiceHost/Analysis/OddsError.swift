import Foundation

/// Why exact odds cannot be computed for a game, or what went wrong trying.
public enum OddsError: Error, CustomStringConvertible {
    /// The rules do something that makes a position not a function of its state and the roll.
    case notAnalysable(String)
    /// More positions than `--max-states` (the limit, and how far the exploration got).
    case tooManyStates(Int, reached: String)
    /// The process grew past `--max-memory` (what it got to, and what to try).
    case tooMuchMemory(String)
    /// A rule hook failed in a reachable position.
    case ruleError(String)
    case `internal`(String)

    public var description: String {
        switch self {
        case .notAnalysable(let why): return "not analysable: \(why)"
        case .tooManyStates(let limit, let reached):
            return "the game has more than \(limit) positions (\(reached)): too many to solve exactly here; "
                + "raise --max-states, or estimate with `dicehost sim` instead (fewer dice or a smaller param may fit)"
        case .tooMuchMemory(let text): return text
        case .ruleError(let text): return "a rule hook failed in a reachable position: \(text)"
        case .internal(let text): return "internal error: \(text)"
        }
    }
}

/// A hook looked into a player's last roll while positions left it out: explore again
/// with `keepLastRoll` (see `StateCodec`).
struct LastRollObserved: Error {}
