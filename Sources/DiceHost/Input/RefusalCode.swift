/// Why a game refused an input, as a code a program can act on (the message is for
/// people). Its raw value is the code a served client receives.
public enum RefusalCode: String, Sendable, CaseIterable, Codable {
    /// Another player's turn, and the rules do not let this input come at any time.
    case notYourTurn = "not-your-turn"
    /// The player is out of the game (eliminated, or lost in a game that goes on).
    case out
    /// The game is over; only restart, reload and the clock go on.
    case gameOver = "game-over"
    /// The rules have no action of that name.
    case unknownAction = "unknown-action"
    /// No player of that name.
    case unknownPlayer = "unknown-player"
    /// A value of the input does not fit (an argument, a rolled value, a duration).
    case badArgument = "bad-argument"
    /// The rules refused it with `error(message, 0)`.
    case rulesRefused = "rules-refused"
    /// A reload whose rules do not validate (the old rules still run).
    case invalidRules = "invalid-rules"
    /// Any other refusal of the host (the die is not connected, the state grew past
    /// its memory cap, undo history, …): the message says which.
    case refused
}
