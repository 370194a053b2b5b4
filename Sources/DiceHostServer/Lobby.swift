import DiceHost
import Foundation

/// The rooms of one server, by id. Creating a room checks the rules and params once,
/// so a room that exists can start its game.
actor Lobby {
    let catalog: RuleCatalog
    let limits: ServerLimits
    let logDirectory: String?
    /// The room store's writer (nil: rooms live in memory only).
    private(set) var commits: GroupCommit?
    private var rooms: [String: Room] = [:]
    /// Rooms the store held that could not be reopened, and why (told to whoever asks for them).
    private var closedReasons: [String: String] = [:]
    /// The SQLite store's rooms being reopened while the server listens (nil: none).
    private(set) var startup: StartupRestore?

    init(catalog: RuleCatalog, limits: ServerLimits, logDirectory: String?, commits: GroupCommit? = nil) {
        self.catalog = catalog
        self.limits = limits
        self.logDirectory = logDirectory
        self.commits = commits
    }

    /// What a client asking for a room that is not here is told.
    func missingRoomText(_ id: String) -> String {
        closedReasons[id].map { "room \(id) was closed: \($0)" } ?? "there is no room \(id)"
    }

    /// Rooms from now on are stored (the server opened its store before it listens).
    func attach(_ commits: GroupCommit) { self.commits = commits }

    /// A room reopened from the store (RoomRestorer).
    func adopt(_ room: Room) { rooms[room.id] = room }

    /// The stored rooms to reopen while the server listens: a client asking for one waits for it.
    func restoring(_ startup: StartupRestore) { self.startup = startup }

    /// A stored room that could not be reopened: closed in the store, its reason kept.
    func closeStored(_ id: String, reason: String) async {
        closedReasons[id] = reason
        if let commits { try? await commits.wait(for: commits.enqueue([.finish(room: id, reason: reason)])) }
    }

    /// Takeovers under way, so two clients asking for one room at once replay it once.
    private var takeovers: [String: Task<Room?, Error>] = [:]

    /// Room `id` if it is here. With a store several processes share, a room that is not
    /// here but stored unfinished is taken over (its lease taken when it lapsed, its game
    /// replayed); one whose lease another process holds is refused (`owned-elsewhere`).
    func room(_ id: String) async throws -> Room? {
        if rooms[id] == nil, let startup, await startup.holds(id) { await startup.restore(id) }
        if let room = rooms[id] {
            guard commits?.store is any SharedRoomStore, await room.isClosed else { return room }
            rooms[id] = nil  // it moved to another process: ask the store again
        }
        guard let store = commits?.store as? any SharedRoomStore, let commits else { return nil }
        if let running = takeovers[id] { return try await running.value }
        // A full server takes no room over (its lease stays free for another process).
        guard rooms.count < limits.rooms else {
            throw ProtocolError(.serverFull, "this server holds \(limits.rooms) rooms, the most it takes; room \(id) stays in the store for another process")
        }
        let task = Task { try await self.takeOver(id, store: store, commits: commits) }
        takeovers[id] = task
        defer { takeovers[id] = nil }
        return try await task.value
    }

    private func takeOver(_ id: String, store: any SharedRoomStore, commits: GroupCommit) async throws -> Room? {
        let outcome: Takeover
        do { outcome = try await store.takeOver(room: id) } catch {
            FileHandle.standardError.write(Data("dicehost serve: room \(id): \(error)\n".utf8))
            throw ProtocolError(.storeFailed, "the server cannot reach its room store to open room \(id) (its operator is told why); try again")
        }
        switch outcome {
        case .notStored:
            return nil
        case .finished(let reason):
            if let reason { closedReasons[id] = reason }
            return nil
        case .ownedElsewhere(let seconds):
            throw ProtocolError(.ownedElsewhere, "room \(id) is played on another server process (its lease runs \(Int(seconds.rounded(.up))) s more): "
                + "the load balancer routed you to the wrong one; reconnect (it reaches the owner, or takes the room over once the lease lapses)")
        case .taken(let stored):
            let outcome = await RoomRestorer.restore([stored], into: self, catalog: catalog, limits: limits, commits: commits)
            var report = outcome.notes.map { "dicehost serve: \($0)\n" }.joined()
            for (room, reason) in outcome.closed { report += "dicehost serve: room \(room) is closed: \(reason)\n" }
            if !report.isEmpty { FileHandle.standardError.write(Data(report.utf8)) }
            return rooms[id]
        }
    }

    /// Renews this process's leases; the rooms another process took over meanwhile are
    /// closed here and their clients sent on (`moved`).
    func renewLeases() async throws {
        guard let store = commits?.store as? any SharedRoomStore else { return }
        for id in try await store.renewLeases() {
            await rooms[id]?.moved("room \(id) is now played by another server process (this one lost its lease)")
            rooms[id] = nil
        }
    }

    func create(_ request: ClientMessage.CreateRequest) async throws -> Room {
        guard let entry = catalog.entry(request.rules) else {
            let offered = catalog.entries.map(\.file).joined(separator: ", ")
            throw ProtocolError(.unknownRules, "no rule script '\(request.rules)' on this server (it offers: \(offered))")
        }
        guard rooms.count < limits.rooms else {
            throw ProtocolError(.serverFull, "this server holds \(limits.rooms) rooms, the most it takes")
        }
        let rules = entry.rules
        let seats = request.seats ?? rules.minPlayers
        guard (rules.minPlayers...rules.maxPlayers).contains(seats) else {
            throw ProtocolError(.badField, "\(rules.name) takes \(rules.minPlayers) to \(rules.maxPlayers) players, not \(seats)")
        }
        // Loading the rules runs Lua, and hashing the file for the store reads it: on the room
        // threads, not on this connection's event loop (the lobby runs on its caller's).
        let path = entry.path, params = request.params
        let rulesSHA256: String
        do {
            rulesSHA256 = try await RoomThreadPool.shared.run {
                _ = try Game.check(rulesFile: path, params: params)
                return GameLog.sha256(ofFile: path, limit: Int.max)
            }
        } catch {
            throw ProtocolError(.badParams, PublicText.hidingPaths("\(error)", rulesDirectory: catalog.directory))
        }
        guard rooms.count < limits.rooms else {
            throw ProtocolError(.serverFull, "this server holds \(limits.rooms) rooms, the most it takes")
        }
        let id = request.room ?? newID()
        guard rooms[id] == nil, closedReasons[id] == nil else { throw ProtocolError(.roomExists, "there is already a room \(id)") }
        if let startup, await startup.holds(id) { throw ProtocolError(.roomExists, "there is already a room \(id)") }
        var log: RoomLog?
        if let logDirectory {
            do { log = try RoomLog(directory: logDirectory, room: id) } catch {
                FileHandle.standardError.write(Data("dicehost serve: cannot write room \(id)'s log: \(error)\n".utf8))
                throw ProtocolError(.serverError, "the server cannot write the room's log (its operator is told why)")
            }
        }
        let seed = request.seed ?? UInt64.random(in: 0...ServerProtocol.maxSequence.magnitude)
        var journal: RoomJournal?
        if let commits {
            // Stored before it is announced; its id is held meanwhile.
            let stored = StoredRoom(id: id, rulesFile: entry.file, rulesSHA256: rulesSHA256, params: params.map { [$0.0, $0.1] },
                                    seed: seed, seatCount: seats, deviceRolls: request.deviceRolls, created: Int64(Date().timeIntervalSince1970),
                                    turnSeconds: request.turnSeconds)
            closedReasons[id] = "it is being created"
            defer { closedReasons[id] = nil }
            do { try await commits.wait(for: commits.enqueue([.room(stored)])) } catch let refusal as StoreRefusal {
                throw ProtocolError(.roomExists, "\(refusal)")
            } catch {
                FileHandle.standardError.write(Data("dicehost serve: cannot store room \(id): \(error)\n".utf8))
                throw ProtocolError(.serverError, "the server cannot store the room (its operator is told why)")
            }
            journal = RoomJournal(room: id, commits: commits)
        }
        guard rooms[id] == nil else { throw ProtocolError(.roomExists, "there is already a room \(id)") }
        let room = Room(id: id, entry: entry, params: request.params, seed: seed,
                        seats: seats, deviceRolls: request.deviceRolls, limits: limits, log: log, journal: journal,
                        turnSeconds: request.turnSeconds)
        rooms[id] = room
        return room
    }

    /// The rooms a client may join: this process's, and with a shared store every
    /// unfinished room of every process (as stored: who sits where, whether it started).
    func list() async -> [String] {
        var out: [String] = []
        if let store = commits?.store as? any SharedRoomStore {
            do {
                for stored in try await store.listRooms(limit: 200) {
                    if let room = rooms[stored.id], await !room.isClosed { out.append(await room.summaryJSON()); continue }
                    out.append(Room.summaryJSON(stored, name: catalog.entry(stored.rulesFile)?.rules.name ?? stored.rulesFile))
                }
                return out
            } catch {
                FileHandle.standardError.write(Data("dicehost serve: \(error); the lobby lists this process's rooms only\n".utf8))
            }
        }
        for id in rooms.keys.sorted().prefix(200) {
            if let room = rooms[id] { out.append(await room.summaryJSON()) }
        }
        return out
    }

    var allRooms: [Room] { Array(rooms.values) }

    /// Closes the rooms nobody has been connected to for `limits.idleRoomSeconds`.
    func sweep() async {
        for (id, room) in rooms where await room.idleLongerThan(seconds: limits.idleRoomSeconds) {
            await room.close()
            rooms[id] = nil
            _ = commits?.enqueue([.finish(room: id, reason: "nobody was in it for \(limits.idleRoomSeconds) s")])
        }
    }

    private func newID() -> String {
        let letters = Array("abcdefghjkmnpqrstuvwxyz23456789")
        while true {
            let id = String((0..<6).map { _ in letters.randomElement() ?? "a" })
            if rooms[id] == nil, closedReasons[id] == nil { return id }
        }
    }
}
