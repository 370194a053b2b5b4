import DiceHost
import Foundation
import Lua

/// The input pipeline: an input from a seated client is admitted (its share of CPU),
/// checked (seat, sequence number, turn and out), applied as one transaction, recorded for
/// the log and the store, then acknowledged and broadcast.
extension Room {
    enum Input {
        case start, ready, abandon, roll(values: [Int]?, flag: Roll.Flag), action(name: String, arguments: [GameInput.Argument])

        var label: String {
            switch self {
            case .start: return "start"
            case .ready: return "ready"
            case .abandon: return "abandon"
            case .roll(let values, let flag):
                if flag != .ok { return "roll (smart die, \(flag.rawValue))" }
                return values == nil ? "roll" : "roll (smart die)"
            case .action(let name, _): return name
            }
        }
    }

    /// An input from a seated client: checked (seat, sequence number, turn), applied as
    /// one transaction, logged and broadcast; or refused with an error to that client
    /// only, the game unchanged. With `ackInEvents` (protocol version 2) the acting client's
    /// `events` message carries the `ack` (one frame, not two) when the broadcast goes out
    /// at once; else, and for an input without events, the `ack` is a message of its own.
    func input(_ input: Input, seq: Int64, from clientID: UInt64, ackInEvents: Bool = false) async {
        guard let subscriber = subscribers[clientID] else { return }
        let client = subscriber.client
        guard subscriber.seat != nil else {
            _ = refuse(client, .spectator, "spectators cannot play; join the room with a name to take a seat", seq: seq)
            return
        }
        // A room over its share of CPU waits here (other rooms go on), or is suspended.
        guard await admitRuleCode() else {
            _ = refuse(client, .suspended, suspensionText(), seq: seq)
            return
        }
        guard let seat = subscribers[clientID]?.seat else { return }
        guard seq > seats[seat].lastSeq else {
            // The first of the two may not be stored yet: the ack waits for it.
            if let journal { guard await stored(journal.lastTicket) else { return } }
            client.send(message(.ack, ["seq": .integer(seq), "duplicate": .bool(true)]))
            return
        }
        let name = seats[seat].name
        let blocked = blockedBy
        do {
            try apply(input, by: name)
            // Only an applied input counts: a refused one may be sent again with its seq.
            seats[seat].lastSeq = seq
            madeMove(seat: seat)
        } catch {
            switch error {
            case let error as ProtocolError: _ = refuse(client, error.code, error.message, seq: seq)
            case GameError.script(let error): _ = refuse(client, .ruleError, error.message, seq: seq)
            default: _ = refuse(client, .refused, "\(error)", seq: seq)
            }
            // The clock may have moved (and timers fired) before the input was refused.
            if let game, game.forgottenEvents + game.events.count > sentEvents { broadcastPending(cause: ServerMessage.object([("input", .string("clock"))])) }
            return
        }
        // Stored (the input with its seat's sequence number, in one transaction) before it is acknowledged.
        if let journal {
            guard await stored(journal.commit(also: [.lastSeq(room: id, seat: seat, seq: seq)])) else { return }
        }
        if case .abandon = input, let blocked {
            broadcast(message(.abandoned, ["by": .string(name), "blocked": .string(blocked)]))
        }
        broadcastPending(cause: ServerMessage.object([("player", .string(name)), ("input", .string(input.label)), ("seq", .integer(seq))]),
                         ack: Acknowledgement(client: client, seq: seq, inEvents: ackInEvents))
    }

    /// The answer to an applied input: an `ack` message, or (`inEvents`, protocol version 2)
    /// the field `"ack":seq` of the `events` message that client is sent.
    struct Acknowledgement {
        var client: ClientChannel
        var seq: Int64
        var inEvents: Bool
    }

    func sendAck(_ ack: Acknowledgement?) {
        guard let ack else { return }
        ack.client.send(message(.ack, ["seq": .integer(ack.seq)]))
    }

    func apply(_ input: Input, by name: String) throws {
        switch input {
        case .start:
            guard game == nil else { throw ProtocolError(.started, "the game has already started") }
            guard seats.count >= entry.rules.minPlayers else {
                throw ProtocolError(.notEnoughPlayers, "\(entry.rules.name) needs at least \(entry.rules.minPlayers) players, \(seats.count) have joined")
            }
            startGame()
            return
        case .ready:
            let game = try startedGame()
            guard game.isOver || abandoned else { throw ProtocolError(.refused, "the game is still going; ask for another after it ends") }
            guard let seat = seats.firstIndex(where: { $0.name == name }) else { return }
            seats[seat].ready = true
            do { try startNextGameIfAllReady() } catch {
                seats[seat].ready = false  // refused: the seat is as it was
                throw error
            }
            journalSeatStatus(seat)
        case .abandon:
            try abandonGame(by: name)
        case .roll(let values, let flag):
            let game = try startedGame()
            try checkNotAbandoned()
            try catchUpClock()
            if values != nil || flag != .ok, !deviceRolls {
                throw ProtocolError(.noDeviceRolls, "this room rolls the dice itself; it was not created to take a smart die's rolls")
            }
            // The protocol refuses values with a flag, so the two never come together.
            let roll: GameInput.RollInput = flag != .ok ? .flagged(flag) : values.map { .values($0) } ?? .random
            try play(GameInput(.roll(roll), seat: name), in: game, as: "roll")
        case .action(let action, let arguments):
            let game = try startedGame()
            try checkNotAbandoned()
            try catchUpClock()
            guard game.rules.actions.contains(action) else {
                let known = game.rules.actions.isEmpty ? "this game has none" : "this game has: " + game.rules.actions.joined(separator: ", ")
                throw ProtocolError(.unknownAction, "unknown action '\(action)' (\(known))")
            }
            try play(GameInput(.action(name: action, arguments: arguments), seat: name), in: game, as: action)
        }
    }

    /// The one way a seat's input reaches the game: who may make it now is checked first
    /// (`checkMayPlay`), then `Game.apply` runs it as one transaction and its typed outcome
    /// answers - applied: recorded for the log and the store; refused: the error its
    /// refusal code maps to (`ErrorCode(refusal:)`); a rule failure: `rule-error`.
    func play(_ input: GameInput, in game: Game, as label: String) throws {
        try checkMayPlay(game, input.seat ?? "", input: label)
        switch game.apply(input) {
        case .applied(let events): record(input, time: game.now, events: events)
        case .refused(let code, let message): throw ProtocolError(ErrorCode(refusal: code), message)
        case .ruleFailure(let failure): throw ProtocolError(.ruleError, failure.message)
        }
    }

    /// Applies an input the room makes itself (the clock catching up, another game, a
    /// reload) and records it; a refusal or a rule failure is thrown as the game's own
    /// error (`GameError`), which the caller reports.
    func applyRoomInput(_ input: GameInput, to game: Game) throws {
        let events = try game.apply(input).appliedEvents()
        record(input, time: game.now, events: events)
    }

    /// The one check of who may make an input now, before any rule code runs, each refusal
    /// with its code: a player who is out makes only the inputs the rules list in
    /// `while_out` (`out`); out of turn only what they list in `anytime` (`not-your-turn`).
    /// The game holds to the same rules (`Game.checkTurn`, `checkStillIn`).
    func checkMayPlay(_ game: Game, _ name: String, input: String) throws {
        guard !game.isOver else { return }
        if game.isOut(name), !game.rules.whileOut.contains(input) {
            throw ProtocolError(.out, "you are out of the game: a player who is out makes no more inputs"
                + (game.rules.whileOut.isEmpty ? "" : " but \(game.rules.whileOut.sorted().joined(separator: ", "))"))
        }
        if !game.rules.anytime.contains(input), let current = game.currentPlayer, current != name {
            throw ProtocolError(.notYourTurn, "it is \(current)'s turn, not yours" + (input == "roll" ? "" : " (\(input) waits for your turn)"))
        }
    }

    func startedGame() throws -> Game {
        guard let game else {
            throw ProtocolError(.notStarted, "the game has not started: \(seats.count) of \(seatCount) seats taken (a player may send start once \(entry.rules.minPlayers) have joined)")
        }
        return game
    }

    func startGame() {
        do {
            let game = try Game(rulesFile: entry.path, players: seats.map(\.name), seed: seed, params: params)
            // Clients have no undo; 200 copies of g were most of a room's memory.
            game.keepsUndoHistory = false
            self.game = game
            session = GameSession(game: game)
            origin = ContinuousClock.now
            if limits.watchRules { watcher = RulesWatcher(game: game) }
            log?.start(game)
            journal?.start(game)
            broadcastPending(cause: ServerMessage.object([("input", .string("start"))]))
        } catch {
            broadcast(errorMessage(.ruleError, publicText("the game could not start: \(error)")))
        }
    }
}

extension GameOutcome {
    /// The events of an applied input; a refusal or a rule failure thrown as the game's
    /// own error (`GameError`), as the throwing entry points throw it.
    func appliedEvents() throws -> [GameEvent] {
        switch self {
        case .applied(let events): return events
        case .refused(_, let message): throw GameError.refused(message)
        case .ruleFailure(let failure): throw GameError.script(failure)
        }
    }
}
