import Foundation
import NIOPosix

/// The room store in one SQLite file (`serve --store FILE`): WAL, `synchronous=FULL` so
/// a commit is on disk when it returns (a lost machine loses nothing acknowledged), and
/// an exclusive lock for as long as the server runs, so a second `serve` on the same
/// file is refused instead of writing beside the first (several processes share
/// PostgreSQL instead). Each group commit is one transaction.
///
/// SQLite runs on a thread of the store's own (a one-thread pool, not NIO's shared one):
/// the group commit hands it what the rooms wrote, and it writes a whole transaction there
/// with statements prepared once (`SQLiteHandle`), then wakes the rooms that waited. While
/// it syncs, what other rooms hand in waits for the next transaction, so under load one
/// sync and one wake-up of this thread cover many inputs.
final class SQLiteRoomStore: RoomStore, StoreOnItsOwnThread {
    let location: String
    private let handle: SQLiteHandle
    private let threadPool: NIOThreadPool

    private init(location: String, handle: SQLiteHandle, threadPool: NIOThreadPool) {
        self.location = location
        self.handle = handle
        self.threadPool = threadPool
    }

    /// Opens (or creates) the store at `path`: a clear error when the file is not a
    /// DiceHost store, is locked by another process, or cannot be written.
    static func open(path: String) async throws -> SQLiteRoomStore {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard !isDirectory.boolValue else { throw StoreError("the room store \(path) is a folder; --store names a file") }
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            guard attributes?[.type] as? FileAttributeType == .typeRegular else {
                throw StoreError("the room store \(path) is not a regular file")
            }
        }
        let threadPool = NIOThreadPool(numberOfThreads: 1)
        threadPool.start()
        let handle: SQLiteHandle
        do {
            handle = try await threadPool.runIfActive { try SQLiteHandle(path: path) }
        } catch {
            try? await threadPool.shutdownGracefully()
            throw StoreError("the room store \(path) cannot be opened: \(Self.explain(error))")
        }
        let store = SQLiteRoomStore(location: path, handle: handle, threadPool: threadPool)
        do {
            try await threadPool.runIfActive { try store.prepare() }
        } catch {
            await store.close()
            if let error = error as? StoreError { throw error }
            throw StoreError("the room store \(path) cannot be used: \(Self.explain(error))")
        }
        return store
    }

    /// Pragmas, the lock, and the schema (created in an empty file, checked in one that is not).
    private func prepare() throws {
        _ = try handle.query("PRAGMA busy_timeout = 0")
        let tables = try handle.query("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0.column("name")?.string }
        if !tables.isEmpty, !tables.contains(StoreSchema.markerTable) {
            throw StoreError("\(location) is an SQLite database but not a DiceHost room store (it has no \(StoreSchema.markerTable) table); name another file")
        }
        // Exclusive before WAL: the WAL index then lives in this process's memory and the
        // lock taken by the first write below is kept until the store is closed.
        _ = try handle.query("PRAGMA locking_mode = EXCLUSIVE")
        _ = try handle.query("PRAGMA journal_mode = WAL")
        _ = try handle.query("PRAGMA synchronous = FULL")
        try handle.run("BEGIN IMMEDIATE")
        do {
            // An older file is brought up before the tables it lacks are created (in the
            // current format), all in this transaction: a step that fails leaves it as it was.
            if tables.contains(StoreSchema.markerTable),
               let format = try handle.query("SELECT value FROM \(StoreSchema.markerTable) WHERE key = 'format'").first?.column("value")?.string,
               format != StoreSchema.format {
                guard let upgrade = StoreSchema.upgrade(from: format) else {
                    throw StoreError("\(location) is a DiceHost room store of format \(format); this dicehost reads format \(StoreSchema.format)")
                }
                for statement in upgrade {
                    do { try handle.run(statement) } catch {
                        throw StoreError("\(location) is a DiceHost room store of format \(format) that could not be brought to format \(StoreSchema.format) "
                            + "(\(Self.explain(error)) at: \(statement)); the file is left as it was")
                    }
                }
                try handle.run("UPDATE \(StoreSchema.markerTable) SET value = ? WHERE key = 'format'", [.text(StoreSchema.format)])
            }
            for statement in StoreSchema.create { try handle.run(statement) }
            try handle.run("INSERT OR IGNORE INTO \(StoreSchema.markerTable) (key, value) VALUES ('format', ?)", [.text(StoreSchema.format)])
            try handle.run("COMMIT")
        } catch {
            try? handle.run("ROLLBACK")
            throw error
        }
    }

    func submit(_ work: @escaping @Sendable () -> Void) {
        threadPool.submit { _ in work() }
    }

    func commit(_ batch: [[StoreWrite]]) async throws -> [Int: StoreRefusal] {
        try await threadPool.runIfActive { try self.commitHere(batch) }
    }

    /// Writes `batch` in one transaction, on the store's thread.
    func commitHere(_ batch: [[StoreWrite]]) throws -> [Int: StoreRefusal] {
        var statements: [Statement] = []
        for writes in batch {
            // A seat's new sequence number goes into the row of the input it came with
            // (format 2): the seat's own row is not written again for each input.
            var carried: [Int: (seat: Int, seq: Int64)] = [:], folded = Set<Int>()
            for (index, write) in writes.enumerated() {
                guard case .lastSeq(let room, let seat, let seq) = write,
                      let input = writes[..<index].lastIndex(where: { if case .input(room, _) = $0 { return true } else { return false } }),
                      carried[input] == nil else { continue }
                carried[input] = (seat, seq)
                folded.insert(index)
            }
            for (index, write) in writes.enumerated() where !folded.contains(index) {
                statements += Self.statements(for: write, seat: carried[index])
            }
        }
        // One statement is a transaction of its own (autocommit, synced as any commit).
        if statements.count == 1 {
            do { try handle.run(statements[0].sql, statements[0].binds) } catch { throw StoreError(Self.explain(error)) }
            return [:]
        }
        do {
            try handle.run("BEGIN IMMEDIATE")
            do {
                for statement in statements { try handle.run(statement.sql, statement.binds) }
                try handle.run("COMMIT")
            } catch {
                try? handle.run("ROLLBACK")
                throw error
            }
        } catch {
            throw StoreError(Self.explain(error))
        }
        return [:]
    }

    private struct Statement {
        var sql: String
        var binds: [SQLiteHandle.Value]
        init(_ sql: String, _ binds: [SQLiteHandle.Value]) {
            self.sql = sql
            self.binds = binds
        }
    }

    /// The statements that make `write`; `seat`: the seat whose input it is, with its new
    /// sequence number (format 2).
    private static func statements(for write: StoreWrite, seat sender: (seat: Int, seq: Int64)?) -> [Statement] {
        switch write {
        case .room(let room):
            // An id may be taken again once its room finished: the old room's rows go first.
            return ["inputs", "seats"].map { Statement("DELETE FROM \($0) WHERE room = ?", [.text(room.id)]) } + [
                Statement("DELETE FROM rooms WHERE id = ?", [.text(room.id)]),
                Statement("INSERT INTO rooms (id, rules, rules_sha256, params, seed, seats, device_rolls, created, turn_seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                          [.text(room.id), .text(room.rulesFile), .text(room.rulesSHA256), .text(StoreSchema.paramsText(room.params)),
                           .text(String(room.seed)), .integer(room.seatCount), .integer(room.deviceRolls ? 1 : 0), .integer(Int(room.created)),
                           room.turnSeconds.map { .integer($0) } ?? .null]),
            ]
        case .seats(let room, let seats):
            return [Statement("DELETE FROM seats WHERE room = ?", [.text(room)])] + seats.enumerated().map { index, seat in
                Statement("INSERT INTO seats (room, seat, name, token_sha256, last_seq, has_left, ready) VALUES (?, ?, ?, ?, ?, ?, ?)",
                          [.text(room), .integer(index + 1), .text(seat.name), .text(seat.tokenSHA256), .integer(Int(seat.lastSeq)),
                           .integer(seat.left ? 1 : 0), .integer(seat.ready ? 1 : 0)])
            }
        case .start(let room, let header):
            return [Statement("UPDATE rooms SET header = ? WHERE id = ?", [.text(header), .text(room)])]
        case .input(let room, let input):
            return [Statement("INSERT INTO inputs (room, n, input, t, events, seat, seq, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                              [.text(room), .integer(Int(input.n)), .text(input.line), .integer(Int(input.time)), .text(input.events),
                               sender.map { .integer($0.seat + 1) } ?? .null, sender.map { .integer(Int($0.seq)) } ?? .null, .text(input.kind.rawValue)])]
        case .lastSeq(let room, let seat, let seq):
            return [Statement("UPDATE seats SET last_seq = ? WHERE room = ? AND seat = ?", [.integer(Int(seq)), .text(room), .integer(seat + 1)])]
        case .seatStatus(let room, let seat, let left, let ready):
            return [Statement("UPDATE seats SET has_left = ?, ready = ? WHERE room = ? AND seat = ?",
                              [.integer(left ? 1 : 0), .integer(ready ? 1 : 0), .text(room), .integer(seat + 1)])]
        case .abandoned(let room, let abandoned):
            return [Statement("UPDATE rooms SET abandoned = ? WHERE id = ?", [.integer(abandoned ? 1 : 0), .text(room)])]
        case .finish(let room, let reason):
            return [Statement("UPDATE rooms SET finished = ?, closed_reason = ? WHERE id = ?",
                              [.integer(Int(Date().timeIntervalSince1970)), .text(reason), .text(room)])]
        }
    }

    func unfinishedRooms() async throws -> [StoredRoom] {
        try await threadPool.runIfActive { try self.unfinishedRoomsHere(withInputs: true) }
    }

    /// Every unfinished room with its seats, without its inputs (read apart by
    /// `withInputs`): what a server starting needs before it listens, however long the
    /// rooms have played.
    func unfinishedRoomsWithoutInputs() async throws -> [StoredRoom] {
        try await threadPool.runIfActive { try self.unfinishedRoomsHere(withInputs: false) }
    }

    /// `room` (as `unfinishedRoomsWithoutInputs` read it) with its inputs, and its seats'
    /// sequence numbers as its inputs carry them.
    func withInputs(_ room: StoredRoom) async throws -> StoredRoom {
        try await threadPool.runIfActive {
            var room = room
            try self.readInputs(into: &room)
            return room
        }
    }

    private func unfinishedRoomsHere(withInputs: Bool) throws -> [StoredRoom] {
        let rows = try handle.query(
            "SELECT id, rules, rules_sha256, params, seed, seats, device_rolls, created, header, turn_seconds, abandoned FROM rooms WHERE finished IS NULL ORDER BY created, id")
        var rooms: [StoredRoom] = []
        for row in rows {
            guard let id = row.column("id")?.string else { continue }
            func field<T>(_ name: String, _ value: T?) throws -> T {
                guard let value else { throw StoreError("\(location): room \(id) has a bad \(name)") }
                return value
            }
            var room = StoredRoom(
                id: id, rulesFile: try field("rules", row.column("rules")?.string),
                rulesSHA256: try field("rules_sha256", row.column("rules_sha256")?.string),
                params: try field("params", StoreSchema.params(from: row.column("params")?.string)),
                seed: try field("seed", row.column("seed")?.string.flatMap { UInt64($0) }),
                seatCount: try field("seats", row.column("seats")?.integer),
                deviceRolls: try field("device_rolls", row.column("device_rolls")?.integer) != 0,
                created: Int64(try field("created", row.column("created")?.integer)),
                header: row.column("header")?.string)
            if let seconds = row.column("turn_seconds"), !seconds.isNull {
                room.turnSeconds = try field("turn_seconds", seconds.integer.flatMap { StoreSchema.turnSeconds($0) })
            }
            room.abandoned = try field("abandoned", row.column("abandoned")?.integer) != 0
            for seat in try handle.query("SELECT name, token_sha256, last_seq, has_left, ready FROM seats WHERE room = ? ORDER BY seat", [.text(id)]) {
                room.seats.append(StoredSeat(name: try field("seat name", seat.column("name")?.string),
                                             tokenSHA256: try field("token", seat.column("token_sha256")?.string),
                                             lastSeq: Int64(try field("last_seq", seat.column("last_seq")?.integer)),
                                             left: try field("has_left", seat.column("has_left")?.integer) != 0,
                                             ready: try field("ready", seat.column("ready")?.integer) != 0))
            }
            if withInputs { try readInputs(into: &room) }
            rooms.append(room)
        }
        return rooms
    }

    private func readInputs(into room: inout StoredRoom) throws {
        let id = room.id
        func field<T>(_ name: String, _ value: T?) throws -> T {
            guard let value else { throw StoreError("\(location): room \(id) has a bad \(name)") }
            return value
        }
        room.inputs = []
        for input in try handle.query("SELECT n, input, t, events, seat, seq, kind FROM inputs WHERE room = ? ORDER BY n", [.text(id)]) {
            let stored = StoredInput(n: Int64(try field("input n", input.column("n")?.integer)),
                                     line: try field("input", input.column("input")?.string),
                                     time: Int64(try field("input t", input.column("t")?.integer)),
                                     events: try field("events", input.column("events")?.string),
                                     kind: try field("input kind", input.column("kind")?.string.flatMap(StoredInput.Kind.init(rawValue:))))
            room.inputs.append(stored)
            // The seat's sequence number as of this input (format 2; NULL: a timer's input).
            if let seat = input.column("seat"), !seat.isNull {
                let number = try field("input \(stored.n) seat", seat.integer)
                let seq = Int64(try field("input \(stored.n) seq", input.column("seq")?.integer))
                guard let index = Int(exactly: number).map({ $0 - 1 }), room.seats.indices.contains(index) else {
                    throw StoreError("\(location): room \(id) input \(stored.n) names seat \(number); the room has \(room.seats.count)")
                }
                room.seats[index].lastSeq = max(room.seats[index].lastSeq, seq)
            }
        }
    }

    func closedReason(room: String) async throws -> String? {
        try await threadPool.runIfActive {
            try self.handle.query("SELECT closed_reason FROM rooms WHERE id = ? AND finished IS NOT NULL", [.text(room)]).first?.column("closed_reason")?.string
        }
    }

    func close() async {
        try? await threadPool.runIfActive { self.handle.close() }
        try? await threadPool.shutdownGracefully()
    }

    /// SQLite's reason in words a server's operator can act on.
    static func explain(_ error: Error) -> String {
        guard let error = error as? SQLiteFailure else { return "\(error)" }
        if error.isBusy { return "it is locked by another process (another dicehost serve uses it: one process a store file; several processes share PostgreSQL)" }
        if error.isReadOnly { return "it cannot be written (\(error.message)); check the file's and its folder's permissions" }
        if error.isNotADatabase { return "it is not an SQLite database (\(error.message)); name another file" }
        if error.isFull { return "the disk is full (\(error.message))" }
        if error.cannotOpen { return "it cannot be opened (\(error.message)); check that its folder exists and can be written" }
        return error.description
    }
}
