import DiceHost
import Foundation

/// The turn clock: no room waits for ever for one player. While someone else is waiting,
/// the current player's move runs on the room's clock (`turnSeconds`); when it runs out,
/// or at once for a seat whose player left (or let the clock run out and is not
/// connected), the rules' bot makes that seat's move. Once the game is over the same clock
/// times the wait for another game (`Room+PlayAgain`).
///
/// Rules without a bot that declare `skip_absent = true` have the seat's turn passed on
/// instead (`Game.passTurn`), logged and stored as the input `{"type":"skip"}` (`"by":"skip"` in the
/// cause). Rules with neither: the seat blocks the game and the others may abandon it.
///
/// A bot move is logged and stored as a bot move (the input `{"type":"bot"}`), not as
/// the input the bot chose: the bot is a function of
/// the game (or its view) and draws its random numbers from the game's generator (Mia's
/// and Liar's Dice's bluffs), so asking it again replays the same move and the same
/// draws, where the chosen input alone would leave the generator behind by the bot's draws.
extension Room {
    struct TurnClock: Equatable {
        /// Whose move is timed (nil: the wait for another game).
        var player: String?
        /// When it runs out, in game ms on the room's clock (`clockNow`).
        var deadline: Int
    }

    /// Sets the clock for the moment: started for a new current player (or a move of
    /// theirs), at once for a seat the bot plays, stopped when nobody waits or the seat
    /// blocks; the play-again wait once the game is over.
    func updateTurnClock() {
        let restarts = turnClockRestarts
        turnClockRestarts = false
        guard let game, !closed else { turnClock = nil; return }
        let now = clockNow
        if game.isOver || abandoned {
            guard turnSeconds > 0, !playAgainClockSpent else { turnClock = nil; return }
            if turnClock == nil || turnClock?.player != nil { turnClock = TurnClock(player: nil, deadline: now + turnSeconds * 1000) }
            return
        }
        playAgainClockSpent = false
        // A seat blocks only while it is its move.
        if let blockedBy, blockedBy != game.currentPlayer { self.blockedBy = nil }
        guard let current = game.currentPlayer, let seat = seats.firstIndex(where: { $0.name == current }),
              blockedBy != current, someoneWaits(for: current) else {
            turnClock = nil
            return
        }
        if seats[seat].botPlays {
            if turnClock?.player != current || (turnClock?.deadline ?? 0) > now { turnClock = TurnClock(player: current, deadline: now) }
            return
        }
        guard turnSeconds > 0 else { turnClock = nil; return }
        if restarts || turnClock?.player != current { turnClock = TurnClock(player: current, deadline: now + turnSeconds * 1000) }
    }

    /// A player other than `current` is connected and has not left: someone waits for the move.
    private func someoneWaits(for current: String) -> Bool {
        seats.contains { $0.name != current && !$0.left && $0.connections > 0 }
    }

    /// A seat made an input: it plays for itself, and when the move is still theirs their
    /// clock starts again. Set at once, so a clock firing while the input is being stored
    /// finds the new deadline.
    func madeMove(seat: Int) {
        seats[seat].timedOut = false
        blockedBy = nil
        turnClockRestarts = game?.currentPlayer == seats[seat].name
        updateTurnClock()
    }

    /// A player came back with their token: the seat is theirs again (on their move, a
    /// full clock instead of the bot's).
    func takeBack(seat: Int) {
        if seats[seat].left {
            seats[seat].left = false
            journalSeatStatus(seat)
            journal?.commit()
        }
        seats[seat].timedOut = false
        if blockedBy == seats[seat].name { blockedBy = nil }
        turnClockRestarts = game?.currentPlayer == seats[seat].name
        updateTurnClock()
    }

    /// The clock ran out: the bot plays the seat's move (or another game starts). The
    /// cause of the events it made, nil when it made none.
    func turnClockDue() -> String? {
        guard let clock = turnClock, clockNow >= clock.deadline, let game else { return nil }
        turnClock = nil
        guard let player = clock.player else { return playAgainClockRanOut() }
        guard !game.isOver, !abandoned, game.currentPlayer == player, let seat = seats.firstIndex(where: { $0.name == player }) else { return nil }
        // Rules without a bot that allow it pass the seat's turn on instead.
        let skips = game.rules.skipsAbsent && !game.rules.hooks.contains("bot")
        let move = GameInput(skips ? .skip : .bot)
        let events: [GameEvent], failure: String?
        switch game.apply(move) {
        case .applied(let applied): (events, failure) = (applied, nil)
        case .refused(_, let message): (events, failure) = ([], message)
        case .ruleFailure(let error): (events, failure) = ([], error.message)
        }
        if let reason = failure {
            // Nothing to play the seat with: the game waits for the player, or the others abandon it.
            blockedBy = player
            broadcast(errorMessage(.seatBlocked, publicText("\(player)'s move could not be played for them (\(reason)): the game waits for \(player), or the others may abandon it")))
            return nil
        }
        if !seats[seat].left { seats[seat].timedOut = true }
        turnClockRestarts = true
        record(move, time: game.now, events: events)
        if skips {
            return ServerMessage.object([("player", .string(player)), ("input", .string("skip")), ("by", .string("skip"))])
        }
        return ServerMessage.object([("player", .string(player)), ("input", .string(Self.botInputLabel(events, player: player))), ("by", .string("bot"))])
    }

    /// What a bot's move was, for the cause: "roll" when it rolled, else "move" (the events
    /// say which action: the bot's choice is not kept apart from the move it made).
    static func botInputLabel<S: Sequence>(_ events: S, player: String) -> String where S.Element == GameEvent {
        for event in events {
            switch event.kind {
            case .roll(let roller, _) where roller == player: return "roll"
            case .led: continue
            default: return "move"
            }
        }
        return "move"
    }

    /// Abandoning is allowed now: the current player's seat blocks the game.
    var canAbandon: Bool {
        guard let game, !game.isOver, !abandoned, let blockedBy else { return false }
        return game.currentPlayer == blockedBy
    }

    /// `abandon`: a seat that left (or let its clock run out) blocks the game and no bot
    /// move plays it; the game ends, abandoned, for another to start.
    func abandonGame(by name: String) throws {
        guard game != nil else { throw ProtocolError(.notStarted, "the game has not started") }
        guard canAbandon, let blockedBy else {
            throw ProtocolError(.refused, "only a game a left or idle seat blocks may be abandoned (its move could not be played for it)")
        }
        guard blockedBy != name else { throw ProtocolError(.refused, "it is your move: play it, or leave") }
        abandoned = true
        journalAbandoned()
        self.blockedBy = nil
        turnClock = nil
    }

    func checkNotAbandoned() throws {
        guard abandoned else { return }
        throw ProtocolError(.abandoned, "the game was abandoned; say ready for another")
    }
}
