import DiceHost
import Foundation
import Lua

/// One game table on the server: a rule script, its seats and spectators, and once it
/// starts one `Game` (its own Lua state, sandbox and per-input budget). The room is an
/// actor, so its game is driven from one serial executor: inputs, timer firings and
/// reloads never overlap. It holds the truth: it rolls the dice, checks whose turn it
/// is, runs the timers on a real-time clock and sends every client the same events in
/// the same order. Its executor (`RoomExecutor`) runs it on the room thread pool, never
/// on a thread that serves connections, and charges what it uses to its share of CPU.
actor Room {
    let id: String
    let entry: RuleCatalog.Entry
    let params: [(String, String)]
    let seed: UInt64
    let seatCount: Int
    let deviceRolls: Bool
    let limits: ServerLimits
    /// How long a seat's move may take before the rules' bot plays it, and how long the
    /// room waits for players to be ready for another game (0: no clock).
    let turnSeconds: Int

    struct Seat {
        var name: String
        /// SHA-256 of the seat's token: the token itself is only ever in the `joined` message.
        var tokenHash: String
        /// The highest sequence number of this seat's inputs handled so far.
        var lastSeq: Int64 = 0
        var connections = 0
        /// The player left during a game: the seat and its token stay, the bot plays it.
        var left = false
        /// The clock ran out on the seat's move (cleared by the player's next input).
        var timedOut = false
        /// In a game that is over: the player asked for another.
        var ready = false

        /// The rules' bot makes this seat's moves at once: the player left, or let the
        /// clock run out and is not connected.
        var botPlays: Bool { left || (timedOut && connections == 0) }
    }

    var seats: [Seat] = []
    var subscribers: [UInt64: Subscriber] = [:]
    var game: Game?
    var session: GameSession?
    /// Events of the game already sent to the clients (counted from the game's first, as
    /// clients number them: `game.forgottenEvents` of them are no longer in `game.events`).
    var sentEvents = 0
    /// When game time 0 was, on the server's clock.
    var origin = ContinuousClock.now
    var timerTask: RoomTimer?
    /// After a timer failed (the rules raised, or ran out of budget), the clock waits
    /// this long before it tries again, instead of spinning.
    var retryAfter: ContinuousClock.Instant?
    var watcher: RulesWatcher?
    let log: RoomLog?
    /// The room store's side of this room (nil: rooms in memory only).
    let journal: RoomJournal?
    /// Stopped rooms (removed from the lobby) take no more inputs.
    var closed = false
    nonisolated let executor: RoomExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    /// Timer firings that failed in a row (the retry waits longer each time).
    var timerFailures = 0
    /// How the actions of `game` declare their arguments (`declaredMoves`): read from its
    /// rules once, not for every broadcast; forgotten when the rules are reloaded.
    var declaredMovesCache: (game: Game, declared: SeatView.MovesContext.Declared)?
    /// The clock running now: on the current player's move, or (player nil) on the wait
    /// for another game once this one is over (`Room+TurnClock`).
    var turnClock: TurnClock?
    /// The current player made a move: their clock starts again.
    var turnClockRestarts = false
    /// The play-again clock ran out: it is not started again for this game.
    var playAgainClockSpent = false
    /// The player whose seat blocks the game: the clock ran out (or they left) and no bot
    /// move worked. The others may abandon the game.
    var blockedBy: String?
    /// The players abandoned the game (`abandon`): it is over without an outcome.
    var abandoned = false

    struct Subscriber {
        var client: ClientChannel
        /// The seat (index into `seats`), nil for a spectator.
        var seat: Int?
    }

    init(id: String, entry: RuleCatalog.Entry, params: [(String, String)], seed: UInt64, seats: Int,
         deviceRolls: Bool, limits: ServerLimits, log: RoomLog?, journal: RoomJournal? = nil, turnSeconds: Int? = nil) {
        self.id = id
        self.turnSeconds = turnSeconds ?? entry.rules.turnSeconds ?? limits.defaultTurnSeconds
        self.entry = entry
        self.params = params
        self.seed = seed
        self.seatCount = seats
        self.deviceRolls = deviceRolls
        self.limits = limits
        self.log = log
        self.journal = journal
        executor = RoomExecutor(limits: limits)
    }

    /// Since when nobody is connected (nil while someone is).
    var idleSince: ContinuousClock.Instant? = ContinuousClock.now

    func close() {
        closed = true
        timerTask?.cancel()
        timerTask = nil
    }

    var isClosed: Bool { closed }

    /// Another process owns the room now (its lease was taken over): closed here, its
    /// clients told (`moved`) and disconnected, so they reconnect and reach the owner.
    func moved(_ text: String) {
        guard !closed else { return }
        close()
        for subscriber in subscribers.values {
            subscriber.client.send(errorMessage(.moved, "\(text); reconnect to go on playing"))
            subscriber.client.close(code: ServerProtocol.closeMoved, reason: "room moved to another server process")
        }
        subscribers = [:]
    }
}
