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

    /// A stored room that could not be reopened: closed in the store, its reason kept.
    func closeStored(_ id: String, reason: String) async {
        closedReasons[id] = reason
        if let commits { try? await commits.wait(for: commits.enqueue([.finish(room: id, reason: reason)])) }
    }

    func room(_ id: String) -> Room? { rooms[id] }

    func create(_ request: ClientMessage.CreateRequest) async throws -> Room {
        guard let entry = catalog.entry(request.rules) else {
            let offered = catalog.entries.map(\.file).joined(separator: ", ")
            throw ProtocolError("unknown-rules", "no rule script '\(request.rules)' on this server (it offers: \(offered))")
        }
        guard rooms.count < limits.rooms else {
            throw ProtocolError("server-full", "this server holds \(limits.rooms) rooms, the most it takes")
        }
        let rules = entry.rules
        let seats = request.seats ?? rules.minPlayers
        guard (rules.minPlayers...rules.maxPlayers).contains(seats) else {
            throw ProtocolError("bad-field", "\(rules.name) takes \(rules.minPlayers) to \(rules.maxPlayers) players, not \(seats)")
        }
        // Loading the rules runs Lua: on the room threads, not this connection's.
        let path = entry.path, params = request.params
        do { _ = try await RoomThreadPool.shared.run { try Game.check(rulesFile: path, params: params) } } catch {
            throw ProtocolError("bad-params", PublicText.hidingPaths("\(error)", rulesDirectory: catalog.directory))
        }
        guard rooms.count < limits.rooms else {
            throw ProtocolError("server-full", "this server holds \(limits.rooms) rooms, the most it takes")
        }
        let id = request.room ?? newID()
        guard rooms[id] == nil, closedReasons[id] == nil else { throw ProtocolError("room-exists", "there is already a room \(id)") }
        var log: RoomLog?
        if let logDirectory {
            do { log = try RoomLog(directory: logDirectory, room: id) } catch {
                FileHandle.standardError.write(Data("dicehost serve: cannot write room \(id)'s log: \(error)\n".utf8))
                throw ProtocolError("server-error", "the server cannot write the room's log (its operator is told why)")
            }
        }
        let seed = request.seed ?? UInt64.random(in: 0...ServerProtocol.maxSequence.magnitude)
        var journal: RoomJournal?
        if let commits {
            // Stored before it is announced; its id is held meanwhile.
            let stored = StoredRoom(id: id, rulesFile: entry.file, rulesSHA256: GameLog.sha256(ofFile: entry.path, limit: Int.max), params: params.map { [$0.0, $0.1] },
                                    seed: seed, seatCount: seats, deviceRolls: request.deviceRolls, created: Int64(Date().timeIntervalSince1970))
            closedReasons[id] = "it is being created"
            defer { closedReasons[id] = nil }
            do { try await commits.wait(for: commits.enqueue([.room(stored)])) } catch {
                FileHandle.standardError.write(Data("dicehost serve: cannot store room \(id): \(error)\n".utf8))
                throw ProtocolError("server-error", "the server cannot store the room (its operator is told why)")
            }
            journal = RoomJournal(room: id, commits: commits)
        }
        guard rooms[id] == nil else { throw ProtocolError("room-exists", "there is already a room \(id)") }
        let room = Room(id: id, entry: entry, params: request.params, seed: seed,
                        seats: seats, deviceRolls: request.deviceRolls, limits: limits, log: log, journal: journal)
        rooms[id] = room
        return room
    }

    func list() async -> [String] {
        var out: [String] = []
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
            commits?.enqueue([.finish(room: id, reason: "nobody was in it for \(limits.idleRoomSeconds) s")])
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
