import DiceHost
import Foundation

/// Reopens the rooms a store holds unfinished when the server starts: each room's seats
/// come back with their hashed tokens and last sequence numbers, and its game is replayed
/// from its inputs on the room's own threads. A room whose rules file is no longer offered,
/// or whose rules changed and no longer give the stored events, is closed in the store
/// with its reason, which a player who comes back for it is told.
enum RoomRestorer {
    /// What happened to each stored room, for the operator.
    struct Outcome: Sendable {
        var resumed: [String] = []
        var closed: [(room: String, reason: String)] = []
        var notes: [String] = []
    }

    static func restore(_ stored: [StoredRoom], into lobby: Lobby, catalog: RuleCatalog, limits: ServerLimits, commits: GroupCommit) async -> Outcome {
        var outcome = Outcome()
        for room in stored {
            switch await reopen(room, lobby: lobby, catalog: catalog, limits: limits, commits: commits) {
            case .success(let note):
                outcome.resumed.append(room.id)
                if let note { outcome.notes.append("room \(room.id): \(note)") }
            case .failure(let failure):
                await lobby.closeStored(room.id, reason: failure.description)
                outcome.closed.append((room.id, failure.description))
            }
        }
        return outcome
    }

    private static func reopen(_ stored: StoredRoom, lobby: Lobby, catalog: RuleCatalog, limits: ServerLimits,
                               commits: GroupCommit) async -> Result<String?, StoreError> {
        guard let entry = catalog.entry(stored.rulesFile) else {
            return .failure(StoreError("its rules file \(stored.rulesFile) is no longer offered by this server"))
        }
        let logged: GameLog.LoggedGame?
        do { logged = try loggedGame(stored, rulesPath: entry.path) } catch {
            return .failure(StoreError("its stored game cannot be read (\(error))"))
        }
        let journal = RoomJournal(room: stored.id, commits: commits, inputCount: stored.inputs.last?.n ?? 0)
        let room = Room(id: stored.id, entry: entry, params: stored.overrides, seed: stored.seed, seats: stored.seatCount,
                        deviceRolls: stored.deviceRolls, limits: limits, log: nil, journal: journal, turnSeconds: stored.turnSeconds)
        let report = await room.resume(seats: stored.seats, logged: logged, abandoned: stored.abandoned)
        if let report, !report.matched {
            let changed = report.notes.isEmpty ? "" : "its rules file \(stored.rulesFile) changed since the game started, and "
            let where_ = report.divergence.map { "the replay differs at input \($0.input) (\($0.command))" }
                ?? report.failure ?? report.stopped ?? "the replay failed"
            await room.close()
            return .failure(StoreError(changed + where_))
        }
        await lobby.adopt(room)
        guard let report, !report.notes.isEmpty else { return .success(nil) }
        return .success("resumed after replaying \(report.matchedInputs) inputs with the same events, though " + report.notes.joined(separator: "; "))
    }

    /// The stored game as a replay log: its header (the rules path as this server has it)
    /// and its inputs with the events they gave. Nil before the game started.
    static func loggedGame(_ stored: StoredRoom, rulesPath: String) throws -> GameLog.LoggedGame? {
        guard let headerText = stored.header else { return nil }
        let decoder = JSONDecoder()
        var header = try decoder.decode(GameLog.Header.self, from: Data(headerText.utf8))
        header.rules = rulesPath
        let entries = try stored.inputs.enumerated().map { index, input -> (line: Int, entry: GameLog.Entry) in
            guard let n = Int(exactly: input.n), let t = Int(exactly: input.time) else { throw StoreError("input \(input.n) is out of range") }
            let events = try decoder.decode([JSONValue].self, from: Data(input.events.utf8))
            // A typed input replays as itself; a text row as the line it was, read as
            // before quoting existed (a `"` in a name or word is an ordinary character).
            let entry = input.kind == .json ? GameLog.Entry(n: n, input: try GameInput(json: input.line), t: t, events: events, error: nil)
                : GameLog.Entry(n: n, input: input.line, t: t, events: events, error: nil)
            return (index + 2, entry)
        }
        return GameLog.LoggedGame(header: header, headerLine: 1, entries: entries)
    }
}
