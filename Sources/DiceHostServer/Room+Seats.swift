import DiceHost
import Foundation

/// Seats and spectators: who joins, comes back with a token, watches or leaves, and what
/// the room lets go of while nobody is connected.
extension Room {
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
    func attach(_ client: ClientChannel, seat: Int?) {
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

    func renumberSubscribers(after removed: Int) {
        for (key, var subscriber) in subscribers {
            if let seat = subscriber.seat, seat > removed { subscriber.seat = seat - 1; subscribers[key] = subscriber }
        }
    }

    /// Nobody is here: the game lets go of what only a played game needs (the copy of `g`
    /// kept for the next input's rollback, Lua's garbage) until someone comes back; inputs
    /// meanwhile (a timer) take their copy when they begin (an idle room's memory).
    /// Its history is cut to what a joining client is shown (`historyEvents`, of those
    /// already sent): a room in play keeps up to twice that.
    func settleIdle() {
        guard let game else { return }
        game.keepsRollbackCopy = false
        forgetIdleHistory(game)
        game.releaseIdleMemory()
    }

    func forgetIdleHistory(_ game: Game) {
        let unsent = max(0, game.forgottenEvents + game.events.count - sentEvents)
        game.forgetEvents(keepingLast: max(limits.historyEvents, unsent))
    }

    func idleLongerThan(seconds: Int) -> Bool {
        guard subscribers.isEmpty, let idleSince else { return false }
        return ContinuousClock.now - idleSince > .seconds(seconds)
    }
}
