import DiceHost

/// Every code of an `error` message (docs/protocol.md, "Error codes"; a test checks the two
/// agree). A client tells refusals apart by these, never by the message text.
enum ErrorCode: String, CaseIterable, Sendable, Equatable {
    case badJSON = "bad-json"
    case badMessage = "bad-message"
    case missingField = "missing-field"
    case badField = "bad-field"
    case unknownType = "unknown-type"
    case noHello = "no-hello"
    case badVersion = "bad-version"
    case rateLimited = "rate-limited"
    case tooLarge = "too-large"
    case badName = "bad-name"
    case badRoom = "bad-room"
    case noRoom = "no-room"
    case roomExists = "room-exists"
    case roomFull = "room-full"
    case serverFull = "server-full"
    case tooManyRooms = "too-many-rooms"
    case unknownRules = "unknown-rules"
    case badParams = "bad-params"
    case nameTaken = "name-taken"
    case badToken = "bad-token"
    case started
    case notStarted = "not-started"
    case notEnoughPlayers = "not-enough-players"
    case notInRoom = "not-in-room"
    case spectator
    case notYourTurn = "not-your-turn"
    case out
    case noDeviceRolls = "no-device-rolls"
    case unknownAction = "unknown-action"
    case refused
    case ruleError = "rule-error"
    case reloadFailed = "reload-failed"
    case serverError = "server-error"
    case suspended
    case replaced
    case storeFailed = "store-failed"
    case ownedElsewhere = "owned-elsewhere"
    case moved
    case seatBlocked = "seat-blocked"
    case abandoned
}

extension ErrorCode {
    /// The code a client is sent for a game's refusal. A refusal the room words itself
    /// (turn, out, an unknown action) keeps its own code; the rules' `error(msg, 0)` is a
    /// `rule-error`, as a failing hook is; every other refusal of the game is `refused`.
    init(refusal: RefusalCode) {
        switch refusal {
        case .notYourTurn: self = .notYourTurn
        case .out: self = .out
        case .unknownAction: self = .unknownAction
        case .rulesRefused: self = .ruleError
        case .gameOver, .unknownPlayer, .badArgument, .invalidRules, .refused: self = .refused
        }
    }
}
