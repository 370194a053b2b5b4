import Foundation

/// Why exact odds cannot be computed for a game, or what went wrong trying.
public enum OddsError: Error, CustomStringConvertible {
    /// The rules do something that makes a position not a function of its state and the roll.
    case notAnalysable(String)
    /// More positions than `--max-states` (the limit, how far the exploration got, and
    /// what kept growing).
    case tooManyStates(Int, reached: String, growth: GrowingFields? = nil)
    /// The process grew past `--max-memory` (what it got to and what to try, and what
    /// kept growing).
    case tooMuchMemory(String, growth: GrowingFields? = nil)
    /// A roll with more outcomes than `--max-roll-outcomes` (nil: more than an Int holds).
    case tooManyOutcomes(dice: String, outcomes: Int?, limit: Int)
    /// A rule hook failed in a reachable position.
    case ruleError(String)
    /// Doubles cannot hold the game's chances (what failed): some position leaves its
    /// component with a chance below a double's precision, or the error bound cannot be
    /// made. Exact fractions can.
    case beyondDoubles(String)
    case `internal`(String)

    public var description: String {
        switch self {
        case .notAnalysable(let why): return "not analysable: \(why)"
        case .tooManyStates(let limit, let reached, let growth):
            return "the game has more than \(limit) positions (\(reached)): too many to solve exactly here; "
                + "raise --max-states, or estimate with `dicehost sim` instead (fewer dice or a smaller param may fit)"
                + Self.paragraph(growth)
        case .tooMuchMemory(let text, let growth): return text + Self.paragraph(growth)
        case .tooManyOutcomes(let dice, let outcomes, let limit):
            return "a roll of \(dice) has \(outcomes.map(String.init) ?? "too many") outcomes, more than the \(limit) followed: "
                + "raise --max-roll-outcomes (up to \(Odds.maxRollOutcomesCeiling)), or estimate with `dicehost sim` instead (fewer dice may fit)"
        case .ruleError(let text): return "a rule hook failed in a reachable position: \(text)"
        case .beyondDoubles(let what):
            return "doubles cannot solve this game (\(what)): some position leaves its loop of positions with a chance "
                + "below a double's precision; solve in exact fractions with --precision exact (slower; --max-memory bounds it)"
        case .internal(let text): return "internal error: \(text)"
        }
    }

    /// What grew, as a line after the message (nothing when the look found nothing).
    static func paragraph(_ growth: GrowingFields?) -> String {
        guard let text = growth?.text, !text.isEmpty else { return "" }
        return "\n" + text
    }

    /// What kept growing when a limit stopped the exploration.
    public var growth: GrowingFields? {
        switch self {
        case .tooManyStates(_, _, let growth), .tooMuchMemory(_, let growth): return growth
        default: return nil
        }
    }
}

/// A hook looked into a player's last roll while positions left it out: explore again
/// with `keepLastRoll` (see `StateCodec`).
struct LastRollObserved: Error {}
