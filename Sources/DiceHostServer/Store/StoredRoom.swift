import DiceHost

/// A room as the store keeps it: enough to open it again after a restart. The game is
/// not stored as state: it is its header (rules, seed, players, start events) and its
/// inputs, and a restart replays them (a game is a deterministic function of those).
struct StoredRoom: Sendable, Equatable {
    var id: String
    /// The rules file as the catalog names it (`snap.lua`), relative to the rules folder.
    var rulesFile: String
    /// SHA-256 of the rules file when the room was created (lowercase hex).
    var rulesSHA256: String
    var params: [[String]]
    var seed: UInt64
    var seatCount: Int
    var deviceRolls: Bool
    /// Seconds since 1970 when the room was created.
    var created: Int64
    /// The game's log header (`GameLog.Header` as one JSON line) once the game started.
    var header: String?
    /// Seconds a move may take before the bot plays it, as the creator set it (nil: the
    /// rules' `turn_seconds`, else the server's default; format 3).
    var turnSeconds: Int?
    /// The players abandoned the game a seat blocked (format 3).
    var abandoned = false
    var seats: [StoredSeat] = []
    var inputs: [StoredInput] = []

    var overrides: [(String, String)] { params.map { ($0[0], $0.count > 1 ? $0[1] : "") } }
}

/// A seat: its player, the SHA-256 of its token (the token itself is never stored, so a
/// copy of the store seats nobody), and the last sequence number of its inputs applied.
struct StoredSeat: Sendable, Equatable {
    var name: String
    var tokenSHA256: String
    var lastSeq: Int64
    /// The player left during the game: the bot plays the seat until they come back (format 3).
    var left = false
    /// The game is over and the player asked for another (format 3).
    var ready = false
}

/// One input as the room log writes it (`as Ann roll`, `tick 1500ms`, `restart`), the game
/// time after it and the events it caused (a JSON array), numbered from 1 in each room.
struct StoredInput: Sendable, Equatable {
    var n: Int64
    var line: String
    var time: Int64
    var events: String
    /// How `line` is written (the `kind` column, format 3): a REPL line, or an input as
    /// typed JSON (an action, its arguments' types kept); rows of both kinds sit side by
    /// side, each read as its kind says.
    var kind: Kind = .line

    enum Kind: String, Sendable, Equatable, CaseIterable {
        /// A REPL command line (`as Ann call 07`), replayed through the REPL's parser.
        case line
        /// A typed input as one JSON object (`GameInput.json`).
        case json
    }
}
