import DiceHost
import Foundation

/// What the room sends: each seat its own events and state (never what another seat may
/// see), the acknowledgements, errors and the lobby's summary, every message written
/// through `ServerMessage`.
extension Room {
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
                ]).bytes
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
        broadcastPerSeat(except: skipped) { _, state, _ in self.serverMessage(.state, ["state": .written(state)]).bytes }
    }

    /// Sends each connection the message made for its seat (nil: spectators), made once
    /// per seat from that seat's state: no connection receives what another seat may see.
    /// What the seats' states share is made once for all of them. `carrying` gives one
    /// client's copy an `ack` (made for it alone); true when that client was sent it.
    @discardableResult
    func broadcastPerSeat(except skipped: UInt64? = nil, carrying carried: (client: UInt64, seq: Int64)? = nil,
                                  _ make: (_ viewer: String?, _ state: String, _ ack: Int64?) -> [UInt8]) -> Bool {
        guard !subscribers.isEmpty else { return false }
        var parts = stateParts()
        var seatsSent: [Int?] = []
        for subscriber in subscribers.values where subscriber.client.id != skipped && !seatsSent.contains(subscriber.seat) {
            seatsSent.append(subscriber.seat)
        }
        prepareLooks(for: seatsSent.map { $0.map { seats[$0].name } }, &parts)
        var made: [Int?: [UInt8]] = [:]
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
                batch.add(bytes: make(viewer, state, carried.seq), to: subscriber.client)
                sentCarried = true
                continue
            }
            let message: [UInt8]
            if let known = made[subscriber.seat] { message = known } else {
                message = make(viewer, state, nil)
                made[subscriber.seat] = message
            }
            batch.add(bytes: message, to: subscriber.client)
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
    func fullState(for viewer: String?) -> String {
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
        serverMessage(kind, fields).text
    }

    /// The same message unwritten, for a broadcast to send as its bytes.
    func serverMessage(_ kind: ServerMessage.Kind, _ fields: [String: ServerMessage.Value] = [:]) -> ServerMessage {
        ServerMessage(kind, room: id, fields.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) })
    }

    /// An `error` message to the room's clients (or one of them).
    func errorMessage(_ code: ErrorCode, _ text: String, seq: Int64? = nil) -> String {
        ServerMessage.error(code, text, room: id, seq: seq).text
    }

    func refuse(_ client: ClientChannel, _ code: ErrorCode, _ text: String, seq: Int64? = nil) -> Bool {
        client.send(errorMessage(code, publicText(text), seq: seq))
        return false
    }

    /// What the lobby lists.
    func summaryJSON() -> String {
        ServerMessage.object([
            ("room", .string(id)), ("rules", .string(entry.file)), ("name", .string(entry.rules.name)), ("seats", .integer(seatCount)),
            ("players", .written(ServerMessage.array(seats.map { .string($0.name) }))),
            ("phase", .string(game == nil ? "waiting" : (game?.isOver == true || abandoned ? "over" : "playing"))),
            ("spectators", .integer(subscribers.values.filter { $0.seat == nil }.count)), ("connected", .integer(seats.filter { $0.connections > 0 }.count)),
        ])
    }
}
