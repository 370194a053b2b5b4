import DiceHost
import Foundation

/// The room's side of the store: inputs recorded for the log and staged for the store,
/// waited for before anything is acknowledged, and a room reopened from the store.
extension Room {
    /// Logs an input (JSON Lines export) and stages it for the store, both as typed JSON
    /// (`{"type":"tick","ms":500}`, `{"args":["07"],"name":"call","seat":"Ann","type":"action"}`):
    /// an action's arguments keep their types, and every input replays as itself.
    func record(_ input: GameInput, time: Int, events: [GameEvent]) {
        log?.input(input, time: time, events: events)
        journal?.input(input.json, kind: .json, time: time, events: events)
    }

    /// Waits until the store holds everything up to `ticket`. When it cannot write, the
    /// room is closed and its players told why: nothing it could not store is shown.
    func stored(_ ticket: UInt64) async -> Bool {
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

    func storeSeats() async -> Bool {
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
