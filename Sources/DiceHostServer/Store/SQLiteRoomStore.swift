import Foundation
import NIOPosix
import SQLiteNIO

/// The room store in one SQLite file (`serve --store FILE`): WAL, `synchronous=FULL` so
/// a commit is on disk when it returns (a lost machine loses nothing acknowledged), and
/// an exclusive lock for as long as the server runs, so a second `serve` on the same
/// file is refused instead of writing beside the first (several processes share
/// PostgreSQL instead). Each group commit is one transaction.
///
/// SQLite runs on a thread of the store's own (a one-thread pool, not NIO's shared one),
/// which the group commit's drain prefers too (`writer`): a transaction goes from statement
/// to statement without waking another thread.
final class SQLiteRoomStore: RoomStore, StoreWithWriterThread {
    let location: String
    private let connection: SQLiteConnection
    private let threadPool: NIOThreadPool

    private init(location: String, connection: SQLiteConnection, threadPool: NIOThreadPool) {
        self.location = location
        self.connection = connection
        self.threadPool = threadPool
    }

    @available(macOS 15.0, *)
    var writer: any TaskExecutor { ThreadPoolTaskExecutor(threadPool) }

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
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: path), threadPool: threadPool, on: MultiThreadedEventLoopGroup.singleton.any())
        } catch {
            try? await threadPool.shutdownGracefully()
            throw StoreError("the room store \(path) cannot be opened: \(Self.explain(error))")
        }
        let store = SQLiteRoomStore(location: path, connection: connection, threadPool: threadPool)
        do {
            try await store.prepare()
        } catch {
            await store.close()
            if let error = error as? StoreError { throw error }
            throw StoreError("the room store \(path) cannot be used: \(Self.explain(error))")
        }
        return store
    }

    /// Pragmas, the lock, and the schema (created in an empty file, checked in one that is not).
    private func prepare() async throws {
        _ = try await connection.query("PRAGMA busy_timeout = 0")
        let tables = try await connection.query("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0.column("name")?.string }
        if !tables.isEmpty, !tables.contains(StoreSchema.markerTable) {
            throw StoreError("\(location) is an SQLite database but not a DiceHost room store (it has no \(StoreSchema.markerTable) table); name another file")
        }
        // Exclusive before WAL: the WAL index then lives in this process's memory and the
        // lock taken by the first write below is kept until the store is closed.
        _ = try await connection.query("PRAGMA locking_mode = EXCLUSIVE")
        _ = try await connection.query("PRAGMA journal_mode = WAL")
        _ = try await connection.query("PRAGMA synchronous = FULL")
        _ = try await connection.query("BEGIN IMMEDIATE")
        do {
            // An older file is brought up before the tables it lacks are created (in the
            // current format), all in this transaction: a step that fails leaves it as it was.
            if tables.contains(StoreSchema.markerTable),
               let format = try await connection.query("SELECT value FROM \(StoreSchema.markerTable) WHERE key = 'format'").first?.column("value")?.string,
               format != StoreSchema.format {
                guard let upgrade = StoreSchema.upgrade(from: format) else {
                    throw StoreError("\(location) is a DiceHost room store of format \(format); this dicehost reads format \(StoreSchema.format)")
                }
                for statement in upgrade {
                    do { _ = try await connection.query(statement) } catch {
                        throw StoreError("\(location) is a DiceHost room store of format \(format) that could not be brought to format \(StoreSchema.format) "
                            + "(\(Self.explain(error)) at: \(statement)); the file is left as it was")
                    }
                }
                _ = try await connection.query("UPDATE \(StoreSchema.markerTable) SET value = ? WHERE key = 'format'", [.text(StoreSchema.format)])
            }
            for statement in StoreSchema.create { _ = try await connection.query(statement) }
            _ = try await connection.query("INSERT OR IGNORE INTO \(StoreSchema.markerTable) (key, value) VALUES ('format', ?)", [.text(StoreSchema.format)])
            _ = try await connection.query("COMMIT")
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }

    func commit(_ batch: [[StoreWrite]]) async throws -> [Int: StoreRefusal] {
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
        // One statement is a transaction of its own (autocommit, synced as any commit):
        // without BEGIN and COMMIT, a lone input is one trip to the store's thread, not three.
        if statements.count == 1 {
            do { _ = try await connection.query(statements[0].sql, statements[0].binds) } catch { throw StoreError(Self.explain(error)) }
            return [:]
        }
        _ = try await connection.query("BEGIN IMMEDIATE")
        do {
            for statement in statements { _ = try await connection.query(statement.sql, statement.binds) }
            _ = try await connection.query("COMMIT")
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw StoreError(Self.explain(error))
        }
        return [:]
    }

    private struct Statement {
        var sql: String
        var binds: [SQLiteData]
        init(_ sql: String, _ binds: [SQLiteData]) {
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
        let rows = try await connection.query(
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
            for seat in try await connection.query("SELECT name, token_sha256, last_seq, has_left, ready FROM seats WHERE room = ? ORDER BY seat", [.text(id)]) {
                room.seats.append(StoredSeat(name: try field("seat name", seat.column("name")?.string),
                                             tokenSHA256: try field("token", seat.column("token_sha256")?.string),
                                             lastSeq: Int64(try field("last_seq", seat.column("last_seq")?.integer)),
                                             left: try field("has_left", seat.column("has_left")?.integer) != 0,
                                             ready: try field("ready", seat.column("ready")?.integer) != 0))
            }
            for input in try await connection.query("SELECT n, input, t, events, seat, seq, kind FROM inputs WHERE room = ? ORDER BY n", [.text(id)]) {
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
            rooms.append(room)
        }
        return rooms
    }

    func closedReason(room: String) async throws -> String? {
        try await connection.query("SELECT closed_reason FROM rooms WHERE id = ? AND finished IS NOT NULL", [.text(room)]).first?.column("closed_reason")?.string
    }

    func close() async {
        try? await connection.close()
        try? await threadPool.shutdownGracefully()
    }

    /// SQLite's reason in words a server's operator can act on.
    static func explain(_ error: Error) -> String {
        guard let error = error as? SQLiteError else { return "\(error)" }
        switch error.reason {
        case .busy, .locked: return "it is locked by another process (another dicehost serve uses it: one process a store file; several processes share PostgreSQL)"
        case .readOnly, .permission: return "it cannot be written (\(error.message)); check the file's and its folder's permissions"
        case .notADatabase: return "it is not an SQLite database (\(error.message)); name another file"
        case .full: return "the disk is full (\(error.message))"
        case .cantOpen: return "it cannot be opened (\(error.message)); check that its folder exists and can be written"
        default: return error.description
        }
    }
}
