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
    private(set) var subscribers: [UInt64: Subscriber] = [:]
    private(set) var game: Game?
    private(set) var session: GameSession?
    /// Events of the game already sent to the clients (counted from the game's first, as
    /// clients number them: `game.forgottenEvents` of them are no longer in `game.events`).
    private var sentEvents = 0
    /// When game time 0 was, on the server's clock.
    var origin = ContinuousClock.now
    private var timerTask: RoomTimer?
    /// After a timer failed (the rules raised, or ran out of budget), the clock waits
    /// this long before it tries again, instead of spinning.
    private var retryAfter: ContinuousClock.Instant?
    private var watcher: RulesWatcher?
    let log: RoomLog?
    /// The room store's side of this room (nil: rooms in memory only).
    let journal: RoomJournal?
    /// Stopped rooms (removed from the lobby) take no more inputs.
    private(set) var closed = false
    nonisolated let executor: RoomExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    /// Timer firings that failed in a row (the retry waits longer each time).
    private var timerFailures = 0
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

    // MARK: Seats and spectators

    func join(name: String, client: ClientChannel) async -> Bool {
        guard !closed else { return refuse(client, .noRoom, "room \(id) is closed") }
        if let seated = seats.first(where: { PlayerName.looksAlike($0.name, name) }) {
            let taken = seated.name.lowercased() == name.lowercased() ? "the name \(name) is taken" : "the name \(name) looks like \(seated.name), who is seated"
            return refuse(client, .nameTaken, "\(taken) in room \(id); a player coming back joins with their token")
        }
        guard game == nil else { return refuse(client, .started, "the game in room \(id) has started; watch it, or come back with your token") }
        guard seats.count < seatCount else { return refuse(client, .roomFull, "room \(id) is full (\(seatCount) seats)") }
        let token = Self.makeToken()
        seats.append(Seat(name: name, tokenHash: Self.tokenHash(token)))
        // The seat is stored before its token is handed out, so the token outlives a restart.
        guard await storeSeats() else { return refuse(client, .storeFailed, "room \(id) is closed: the server could not store your seat") }
        guard let seat = seats.firstIndex(where: { $0.name == name }) else { return false }
        client.send(message(.joined, ["seat": .integer(seat + 1), "name": .string(name), "token": .string(token)]))
        attach(client, seat: seat)
        if seats.count == seatCount, game == nil { startGame() }
        return true
    }

    func rejoin(token: String, client: ClientChannel) -> Bool {
        guard !closed else { return refuse(client, .noRoom, "room \(id) is closed") }
        let hash = Self.tokenHash(token)
        guard let seat = seats.firstIndex(where: { Self.constantTimeEqual($0.tokenHash, hash) }) else {
            return refuse(client, .badToken, "that token holds no seat in room \(id)")
        }
        // One connection a seat: the newer wins, the older is told and closed. (A seat is
        // never refused for spectators: they have places of their own.)
        for (key, old) in subscribers where old.seat == seat {
            subscribers[key] = nil
            seats[seat].connections -= 1
            old.client.send(errorMessage(.replaced, "seat \(seat + 1) (\(seats[seat].name)) is now played from another connection; this one is closed"))
            old.client.close(code: ServerProtocol.closeReplaced, reason: "seat taken by a newer connection")
        }
        client.send(message(.joined, ["seat": .integer(seat + 1), "name": .string(seats[seat].name), "token": .string(token),
                                       "lastSeq": .integer(seats[seat].lastSeq), "rejoined": .bool(true)]))
        takeBack(seat: seat)
        attach(client, seat: seat)
        return true
    }

    func watch(client: ClientChannel) -> Bool {
        guard !closed else { return refuse(client, .noRoom, "room \(id) is closed") }
        let spectators = subscribers.values.filter { $0.seat == nil }.count
        let places = max(0, limits.connectionsPerRoom - seatCount)
        guard spectators < places else { return refuse(client, .roomFull, "room \(id) has \(places) spectators, the most it takes") }
        client.send(message(.watching))
        attach(client, seat: nil)
        return true
    }

    /// Adds the client to the room: it gets the state and the recent events, the others
    /// the new state (who is here).
    private func attach(_ client: ClientChannel, seat: Int?) {
        subscribers[client.id] = Subscriber(client: client, seat: seat)
        idleSince = nil
        game?.keepsRollbackCopy = true
        if let seat { seats[seat].connections += 1 }
        // Someone may be waiting now: the turn clock may start.
        updateTurnClock()
        client.send(fullState(for: seat.map { seats[$0].name }))
        broadcastState(except: client.id)
        // A clock that stopped while nobody was here (a failing timer) starts again, and
        // a turn clock that just started is scheduled.
        scheduleTimer()
    }

    /// The client left or its connection closed. Before the game starts a leaving player
    /// frees the seat; after, the seat and its token stay, marked `left`, and the rules'
    /// bot plays it until the player comes back with the token. A closed connection only
    /// leaves the seat waiting for its token (the turn clock still runs).
    func detach(clientID: UInt64, leaving: Bool) {
        guard let subscriber = subscribers.removeValue(forKey: clientID) else { return }
        if subscribers.isEmpty { idleSince = ContinuousClock.now; settleIdle() }
        if let seat = subscriber.seat {
            seats[seat].connections -= 1
            if leaving, seats[seat].connections == 0 {
                if game == nil {
                    seats.remove(at: seat)
                    renumberSubscribers(after: seat)
                    journal?.commit(also: [.seats(room: id, storedSeats)])
                } else {
                    seats[seat].left = true
                    seats[seat].ready = false
                    journalSeatStatus(seat)
                    journal?.commit()
                }
            }
        }
        broadcastState()
        if game != nil {
            startNextGameIfReady()
            scheduleTimer()
        }
    }

    private func renumberSubscribers(after removed: Int) {
        for (key, var subscriber) in subscribers {
            if let seat = subscriber.seat, seat > removed { subscriber.seat = seat - 1; subscribers[key] = subscriber }
        }
    }

    /// Since when nobody is connected (nil while someone is).
    private var idleSince: ContinuousClock.Instant? = ContinuousClock.now

    /// Nobody is here: the game lets go of what only a played game needs (the copy of `g`
    /// kept for the next input's rollback, Lua's garbage) until someone comes back; inputs
    /// meanwhile (a timer) take their copy when they begin (issue 32: an idle room's memory).
    /// Its history is cut to what a joining client is shown (`historyEvents`, of those
    /// already sent): a room in play keeps up to twice that.
    private func settleIdle() {
        guard let game else { return }
        game.keepsRollbackCopy = false
        forgetIdleHistory(game)
        game.releaseIdleMemory()
    }

    private func forgetIdleHistory(_ game: Game) {
        let unsent = max(0, game.forgottenEvents + game.events.count - sentEvents)
        game.forgetEvents(keepingLast: max(limits.historyEvents, unsent))
    }

    func idleLongerThan(seconds: Int) -> Bool {
        guard subscribers.isEmpty, let idleSince else { return false }
        return ContinuousClock.now - idleSince > .seconds(seconds)
    }

    // MARK: Inputs

    enum Input {
        case start, ready, abandon, roll(values: [Int]?, flag: Roll.Flag), action(name: String, arguments: [ActionArgument])

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

    private func sendAck(_ ack: Acknowledgement?) {
        guard let ack else { return }
        ack.client.send(message(.ack, ["seq": .integer(ack.seq)]))
    }

    private func apply(_ input: Input, by name: String) throws {
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
            journalSeatStatus(seat)
            try startNextGameIfAllReady()
        case .abandon:
            try abandonGame(by: name)
        case .roll(let values, let flag):
            let game = try startedGame()
            try checkNotAbandoned()
            try catchUpClock()
            if values != nil || flag != .ok, !deviceRolls {
                throw ProtocolError(.noDeviceRolls, "this room rolls the dice itself; it was not created to take a smart die's rolls")
            }
            try checkStillIn(game, name, input: "roll")
            if let current = game.currentPlayer, current != name, !game.isOver {
                throw ProtocolError(.notYourTurn, "it is \(current)'s turn, not yours")
            }
            let before = game.events.count
            try game.roll(values: values, flag: flag, by: name)
            // The REPL's command line, so the room log replays: `roll tilt`, `roll short`.
            let flagWord = flag == .tilt ? " tilt" : flag == .tooShort ? " short" : ""
            let line = "as \(name) roll" + flagWord + (values.map { " " + $0.map(String.init).joined(separator: " ") } ?? "")
            record(line, time: game.now, events: game.events[before...])
        case .action(let action, let arguments):
            let game = try startedGame()
            try checkNotAbandoned()
            try catchUpClock()
            guard game.rules.actions.contains(action) else {
                let known = game.rules.actions.isEmpty ? "this game has none" : "this game has: " + game.rules.actions.joined(separator: ", ")
                throw ProtocolError(.unknownAction, "unknown action '\(action)' (\(known))")
            }
            try checkStillIn(game, name, input: action)
            // Out of turn only what the rules list in `anytime` (the game checks it too).
            if !game.rules.anytime.contains(action), let current = game.currentPlayer, current != name, !game.isOver {
                throw ProtocolError(.notYourTurn, "it is \(current)'s turn, not yours (\(action) waits for your turn)")
            }
            let before = game.events.count
            try game.act(action, by: name, arguments: arguments.map(\.commandValue))
            record("as \(name) \(action)" + arguments.map { " " + $0.commandText }.joined(), time: game.now, events: game.events[before...])
        }
    }

    /// A player who is out makes only the inputs the rules list in `while_out` (the game
    /// checks it too; here it gets its own code).
    private func checkStillIn(_ game: Game, _ name: String, input: String) throws {
        guard !game.isOver, game.isOut(name), !game.rules.whileOut.contains(input) else { return }
        throw ProtocolError(.out, "you are out of the game: a player who is out makes no more inputs"
            + (game.rules.whileOut.isEmpty ? "" : " but \(game.rules.whileOut.sorted().joined(separator: ", "))"))
    }

    private func startedGame() throws -> Game {
        guard let game else {
            throw ProtocolError(.notStarted, "the game has not started: \(seats.count) of \(seatCount) seats taken (a player may send start once \(entry.rules.minPlayers) have joined)")
        }
        return game
    }

    func startGame() {
        do {
            let game = try Game(rulesFile: entry.path, players: seats.map(\.name), seed: seed, params: params)
            // Clients have no undo; 200 copies of g were most of a room's memory (issue 32).
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

    // MARK: The clock

    /// Game time now on the server's clock (ms since the game started).
    var clockNow: Int {
        let elapsed = ContinuousClock.now - origin
        let ms = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return Int(clamping: ms)
    }

    /// Moves the game clock to the server's clock (firing due timers, in order) before an
    /// input is applied, so the input happens at the time it arrived.
    func catchUpClock() throws {
        guard let game, !game.isOver, !abandoned else { return }
        let target = clockNow
        guard target > game.now else { return }
        let step = min(target - game.now, GameSession.maxTickMilliseconds)
        let before = game.events.count
        try game.advance(by: step)
        record("tick \(step)ms", time: game.now, events: game.events[before...])
    }

    /// Sleeps until the next timer is due, then moves the clock and broadcasts.
    func scheduleTimer() {
        timerTask?.cancel()
        timerTask = nil
        updateTurnClock()
        guard !closed, let game else { return }
        var due = abandoned ? nil : game.nextTimerDue
        if let clock = turnClock { due = min(due ?? clock.deadline, clock.deadline) }
        guard let due else { return }
        // A failing clock in a room nobody is in does not retry for ever: it waits for someone.
        if timerFailures > 0, subscribers.isEmpty { return }
        var deadline = origin.advanced(by: .milliseconds(due))
        if let retryAfter, retryAfter > deadline { deadline = retryAfter }
        timerTask = RoomTimer(at: deadline) { [weak self] in await self?.timerDue() }
    }

    private func timerDue() {
        // A timer that fired while the room was being closed (moved to another process,
        // swept as idle) finds it closed here: cancel() cannot stop a firing under way.
        guard !closed else { return }
        switch executor.admit() {
        case .run: break
        case .wait(let seconds):
            retryAfter = ContinuousClock.now + .milliseconds(Int(min(seconds, 3600) * 1000) + 1)
            return scheduleTimer()
        case .suspended(let until, let justNow):
            if justNow { announceSuspension() }
            retryAfter = ContinuousClock.now + .milliseconds(Int(min(until - RoomCPUAccount.now(), 3600) * 1000) + 1)
            return scheduleTimer()
        }
        var cause = ServerMessage.object([("input", .string("clock"))])
        do {
            try catchUpClock()
            retryAfter = nil
            timerFailures = 0
            if let moved = turnClockDue() { cause = moved }
        } catch {
            // Each failure waits twice as long; with nobody here the clock stops until someone comes.
            let wait = min(limits.timerRetryMaxSeconds, limits.timerRetrySeconds * Double(1 << min(timerFailures, 20)))
            timerFailures += 1
            retryAfter = ContinuousClock.now + .milliseconds(Int(wait * 1000))
            broadcast(errorMessage(.ruleError, publicText("a timer failed: \(error)")))
        }
        broadcastPending(cause: cause)
        // An empty room whose rules play on (Snap turns a slow player's card) stays settled:
        // else its Lua garbage grows to the size of its live data before a collection comes.
        if subscribers.isEmpty { settleIdle() }
    }

    // MARK: Fair share

    /// Waits while the room is slowed; false when it is suspended (its players told once).
    private func admitRuleCode() async -> Bool {
        while !Task.isCancelled {
            switch executor.admit() {
            case .run: return true
            case .wait(let seconds): try? await Task.sleep(for: .milliseconds(Int(min(seconds, 3600) * 1000) + 1))
            case .suspended(_, let justNow):
                if justNow { announceSuspension() }
                return false
            }
        }
        return false
    }

    private func suspensionText() -> String {
        "room \(id) used more than its share of the server (\(Int(limits.roomCPUShare * 100))% of a core) for \(Int(limits.roomSuspendAfterSeconds)) s: "
            + "it is suspended for \(Int(limits.roomSuspensionSeconds)) s (inputs are refused, timers wait)"
    }

    /// A message without the server's folders in it.
    func publicText(_ text: String) -> String {
        PublicText.hidingPaths(text, rulesDirectory: (entry.path as NSString).deletingLastPathComponent)
    }

    private func announceSuspension() {
        broadcast(errorMessage(.suspended, suspensionText()))
    }

    // MARK: Hot reload

    /// With `--watch`: reloads the rules if their file (or a module) was saved; every
    /// client is told, whether the reload took or not.
    func pollRules() {
        guard let game, let watcher, !closed else { return }
        let changed = watcher.changedFiles()
        guard !changed.isEmpty else { return }
        let files = changed.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
        do {
            try catchUpClock()
            let before = game.events.count
            declaredMovesCache = nil
            try game.reload()
            watcher.watch(game)
            record("reload", time: game.now, events: game.events[before...])
            broadcast(message(.reloaded, ["files": .string(files), "rules": .string(game.rules.name)]))
            broadcastPending(cause: ServerMessage.object([("input", .string("reload"))]))
        } catch {
            broadcast(errorMessage(.reloadFailed, publicText("\(files) did not reload, the old rules still run: \(error)")))
            broadcastPending(cause: nil)
        }
    }

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

    // MARK: Messages

    /// Sends the events not yet sent, with the state after them, then waits for the next timer.
    /// `ack` answers an input: inside its client's `events` message when it asks for that and
    /// the events go out now, else as an `ack` message before the broadcast (as in version 1).
    func broadcastPending(cause: String?, ack: Acknowledgement? = nil) {
        guard let game else { sendAck(ack); return broadcastState() }
        updateTurnClock()
        // Nothing is sent before it is stored: with writes on their way, the broadcast waits for them.
        if let journal, game.forgottenEvents + game.events.count > sentEvents {
            let ticket = journal.commit()
            if !journal.commits.isSettled(ticket) {
                sendAck(ack)
                Task { [weak self] in
                    guard await self?.stored(ticket) == true else { return }
                    await self?.broadcastPending(cause: cause)
                }
                return
            }
        }
        let events = game.events, forgotten = game.forgottenEvents
        let first = sentEvents
        sentEvents = forgotten + events.count
        if first < sentEvents {
            // Each seat its own message (SeatView): its events and its view; the acting
            // client's with its `ack` when it asks for it (protocol version 2).
            let carried = ack.flatMap { $0.inEvents ? (client: $0.client.id, seq: $0.seq) : nil }
            if carried == nil { sendAck(ack) }
            // Each event written once per form the seats see it in, not once per seat.
            var texts = SeatView.EventTexts(events[max(0, first - forgotten)...])
            let acknowledged = broadcastPerSeat(carrying: carried) { viewer, state, ack in
                let list = texts.listJSON(for: viewer)
                return ServerMessage(.events, ack: ack, room: self.id, [
                    ("first", .integer(first)), ("events", .written("[" + list + "]")),
                    ("cause", .written(cause ?? "null")), ("state", .written(state)),
                ]).text
            }
            if carried != nil, !acknowledged { sendAck(ack) } // not a subscriber now: answered all the same
        } else {
            sendAck(ack)
            broadcastState()
        }
        // History kept for reconnects is bounded: once the log holds twice what a joining
        // client is shown, the older half goes (the state stands for it; the room log file
        // keeps everything). Else a long-lived room grows until the game's memory cap.
        if events.count > 2 * max(1, limits.historyEvents) { game.forgetEvents(keepingLast: limits.historyEvents) }
        scheduleTimer()
    }

    func broadcastState(except skipped: UInt64? = nil) {
        updateTurnClock()
        broadcastPerSeat(except: skipped) { _, state, _ in self.message(.state, ["state": .written(state)]) }
    }

    /// Sends each connection the message made for its seat (nil: spectators), made once
    /// per seat from that seat's state: no connection receives what another seat may see.
    /// What the seats' states share is made once for all of them. `carrying` gives one
    /// client's copy an `ack` (made for it alone); true when that client was sent it.
    @discardableResult
    private func broadcastPerSeat(except skipped: UInt64? = nil, carrying carried: (client: UInt64, seq: Int64)? = nil,
                                  _ make: (_ viewer: String?, _ state: String, _ ack: Int64?) -> String) -> Bool {
        guard !subscribers.isEmpty else { return false }
        var parts = stateParts()
        var seatsSent: [Int?] = []
        for subscriber in subscribers.values where subscriber.client.id != skipped && !seatsSent.contains(subscriber.seat) {
            seatsSent.append(subscriber.seat)
        }
        prepareLooks(for: seatsSent.map { $0.map { seats[$0].name } }, &parts)
        var made: [Int?: String] = [:]
        var states: [Int?: String] = [:]
        var sentCarried = false
        var batch = OutboundBatch()
        for subscriber in subscribers.values where subscriber.client.id != skipped {
            let viewer = subscriber.seat.map { seats[$0].name }
            let state: String
            if let known = states[subscriber.seat] { state = known } else {
                state = stateJSON(for: viewer, &parts)
                states[subscriber.seat] = state
            }
            if let carried, carried.client == subscriber.client.id {
                batch.add(make(viewer, state, carried.seq), to: subscriber.client)
                sentCarried = true
                continue
            }
            let text: String
            if let known = made[subscriber.seat] { text = known } else {
                text = make(viewer, state, nil)
                made[subscriber.seat] = text
            }
            batch.add(text, to: subscriber.client)
        }
        batch.send()
        return sentCarried
    }

    func broadcast(_ text: String, except skipped: UInt64? = nil) {
        var batch = OutboundBatch()
        for subscriber in subscribers.values where subscriber.client.id != skipped { batch.add(text, to: subscriber.client) }
        batch.send()
    }

    /// The state with the last events `viewer` may see (for a client that joins or comes
    /// back): of the current game only (from its `start`; numbered on from the games
    /// before a `restart`).
    private func fullState(for viewer: String?) -> String {
        let forgotten = game?.forgottenEvents ?? 0
        // Only what was sent (stored): events still being written come with their broadcast.
        let events = Array((game?.events ?? []).prefix(max(0, sentEvents - forgotten)))
        let first = max(SeatView.currentGameStart(events), events.count - limits.historyEvents)
        let list = SeatView.eventsJSON(events[first...], for: viewer)
        return ServerMessage(.state, room: id, [("first", .integer(forgotten + first)), ("events", .written("[" + list + "]")),
                                                ("state", .written(stateJSON(for: viewer)))]).text
    }

    /// A message of this room: its fields after `type` and `room`, in the order of their names.
    func message(_ kind: ServerMessage.Kind, _ fields: [String: ServerMessage.Value] = [:]) -> String {
        ServerMessage(kind, room: id, fields.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }).text
    }

    /// An `error` message to the room's clients (or one of them).
    func errorMessage(_ code: ErrorCode, _ text: String, seq: Int64? = nil) -> String {
        ServerMessage.error(code, text, room: id, seq: seq).text
    }

    private func refuse(_ client: ClientChannel, _ code: ErrorCode, _ text: String, seq: Int64? = nil) -> Bool {
        client.send(errorMessage(code, publicText(text), seq: seq))
        return false
    }

    /// What the lobby lists.
    func summaryJSON() -> String {
        "{\"room\":\(id.jsonQuoted),\"rules\":\(entry.file.jsonQuoted),\"name\":\(entry.rules.name.jsonQuoted),\"seats\":\(seatCount),"
            + "\"players\":[\(seats.map(\.name.jsonQuoted).joined(separator: ","))],\"phase\":\"\(game == nil ? "waiting" : (game?.isOver == true || abandoned ? "over" : "playing"))\","
            + "\"spectators\":\(subscribers.values.filter { $0.seat == nil }.count),\"connected\":\(seats.filter { $0.connections > 0 }.count)}"
    }

    // MARK: The room store

    /// Logs an input (JSON Lines export) and stages it for the store.
    func record<S: Sequence>(_ line: String, time: Int, events: S) where S.Element == GameEvent {
        log?.input(line, time: time, events: events)
        journal?.input(line, time: time, events: events)
    }

    /// Waits until the store holds everything up to `ticket`. When it cannot write, the
    /// room is closed and its players told why: nothing it could not store is shown.
    private func stored(_ ticket: UInt64) async -> Bool {
        guard let journal else { return true }
        do {
            try await journal.commits.wait(for: ticket)
            return true
        } catch let refusal as StoreRefusal {
            moved(refusal.description)
            return false
        } catch {
            guard !closed else { return false }
            close()
            FileHandle.standardError.write(Data("dicehost serve: room \(id) is closed: \(error)\n".utf8))
            broadcast(errorMessage(.storeFailed, "room \(id) is closed: the server could not store its last input (its operator is told why)"))
            return false
        }
    }

    private func storeSeats() async -> Bool {
        guard let journal else { return true }
        return await stored(journal.commit(also: [.seats(room: id, storedSeats)]))
    }

    /// A room reopened from the store: its seats (tokens hashed, last sequence numbers,
    /// who left, who is ready for another game), whether its game was abandoned, and the game replayed from its inputs (here, on the room's own threads). Game time
    /// goes on from where it stopped. The replay's report, nil before the game started.
    func resume(seats stored: [StoredSeat], logged: GameLog.LoggedGame?, abandoned: Bool = false) -> GameReplay.GameReport? {
        seats = stored.map { Seat(name: $0.name, tokenHash: $0.tokenSHA256, lastSeq: $0.lastSeq, left: $0.left, ready: $0.ready) }
        guard let logged else { return nil }
        self.abandoned = abandoned
        let resumed = GameReplay.resume(logged)
        guard let game = resumed.game else { return resumed.report }
        game.keepsUndoHistory = false
        self.game = game
        session = GameSession(game: game)
        sentEvents = game.forgottenEvents + game.events.count
        if subscribers.isEmpty { settleIdle() }
        origin = ContinuousClock.now - .milliseconds(game.now)
        if limits.watchRules { watcher = RulesWatcher(game: game) }
        scheduleTimer()
        return resumed.report
    }
}
