import Foundation
import Logging
import PostgresNIO

/// The room store in PostgreSQL (`serve --store postgres://…`), shared by several server
/// processes. Each room has one owner at a time: a row of `room_leases` names the process
/// (`owner`, random each start), the lease's fencing `epoch` (one more at every takeover)
/// and when it lapses (`expires_at`, the database's clock). A group commit is one
/// transaction that first locks the lease rows of its rooms (`FOR UPDATE`) and writes only
/// the lists of rooms whose current epoch this process holds, so a process that was
/// paused or cut off while another took its room over never writes to it again: its
/// lists are refused (`StoreRefusal.moved`) and the room closes here.
final class PostgresRoomStore: SharedRoomStore, @unchecked Sendable {
    let location: String
    let address: PostgresAddress
    /// This process, in the lease rows it holds and the inputs it writes.
    let owner: String
    let leaseSeconds: Double
    let client: PostgresClient
    private let runner: Task<Void, Never>
    let logger = Logger(label: "dicehost-store", factory: { _ in SwiftLogNoOpLogHandler() })
    // A lock, not an actor: read and written around the store's queries, never across one.
    let lock = NSLock()
    /// The rooms whose lease this process holds, and the epoch of each.
    var epochs: [String: Int64] = [:]

    private init(address: PostgresAddress, leaseSeconds: Double) {
        self.address = address
        location = address.description
        owner = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max)) }.joined()
        self.leaseSeconds = leaseSeconds
        // A transaction left open by a process that stopped (SIGSTOP, a lost network) holds
        // its lease rows' locks: PostgreSQL ends it after twice the lease (at least 10 s,
        // so a busy process between two statements of its own transaction is not cut
        // off), and a takeover waits for the lock a little longer than that.
        let idle = Int((max(10, 2 * leaseSeconds) * 1000).rounded())
        client = PostgresClient(configuration: address.clientConfiguration(parameters: [
            ("idle_in_transaction_session_timeout", String(idle)), ("lock_timeout", String(idle + 5000)),
            ("application_name", "dicehost serve"),
        ]))
        let client = self.client
        runner = Task { await client.run() }
    }

    /// Connects to `text` (postgres://USER:PASSWORD@HOST:PORT/DATABASE), then creates the
    /// schema if it is absent or checks it: a clear error naming the address (never its
    /// password) when it does not parse, cannot be reached, refuses the login, or holds
    /// tables of our names that are not a DiceHost store's.
    static func open(address text: String, leaseSeconds: Double = 5) async throws -> PostgresRoomStore {
        let address = try PostgresAddress(text)
        guard leaseSeconds.isFinite, leaseSeconds >= 0.5, leaseSeconds <= 3600 else {
            throw StoreError("the lease of \(address) must be from 0.5 to 3600 seconds, not \(leaseSeconds)")
        }
        let logger = Logger(label: "dicehost-store", factory: { _ in SwiftLogNoOpLogHandler() })
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: try address.connectionConfiguration(), id: 1, logger: logger)
        } catch {
            throw StoreError("the room store \(address) cannot be reached: \(explain(error, password: address.password))")
        }
        do {
            try await prepare(connection, address: address, logger: logger)
            try? await connection.close()
        } catch {
            try? await connection.close()
            if let error = error as? StoreError { throw error }
            throw StoreError("the room store \(address) cannot be used: \(explain(error, password: address.password))")
        }
        return PostgresRoomStore(address: address, leaseSeconds: leaseSeconds)
    }

    /// The schema: created where absent, checked where present, under an advisory lock.
    private static func prepare(_ connection: PostgresConnection, address: PostgresAddress, logger: Logger) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresStoreSchema.advisoryLock))", logger: logger)
            let tables = Array(PostgresStoreSchema.columns.keys)
            var present: [String: Set<String>] = [:]
            let rows = try await connection.query(
                "SELECT table_name::text, column_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ANY(\(tables))",
                logger: logger)
            for try await (table, column) in rows.decode((String, String).self) { present[table, default: []].insert(column) }
            for (table, columns) in PostgresStoreSchema.columns.sorted(by: { $0.key < $1.key }) {
                guard let found = present[table] else { continue }
                let missing = columns.filter { !found.contains($0) }
                guard missing.isEmpty else {
                    throw StoreError("the database \(address) has a table \(table) that is not a DiceHost room store's (it lacks \(missing.joined(separator: ", "))); name another database")
                }
            }
            if !present.isEmpty, present["dicehost_store"] == nil {
                let ours = present.keys.sorted().joined(separator: ", ")
                throw StoreError("the database \(address) has tables named as a DiceHost store's (\(ours)) but no dicehost_store table; name another database")
            }
            for statement in PostgresStoreSchema.create { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            let format = try await connection.query("SELECT value FROM dicehost_store WHERE key = 'format'", logger: logger)
            var found: String?
            for try await value in format.decode(String.self) { found = value }
            if let found, found != StoreSchema.format {
                // Brought up in this transaction: a step that fails leaves the database as it was.
                guard let upgrade = PostgresStoreSchema.upgrade(from: found) else {
                    throw StoreError("\(address) is a DiceHost room store of format \(found); this dicehost reads format \(StoreSchema.format)")
                }
                for statement in upgrade { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await connection.query("UPDATE dicehost_store SET value = \(StoreSchema.format) WHERE key = 'format'", logger: logger)
            }
            try await connection.query("INSERT INTO dicehost_store (key, value) VALUES ('format', \(StoreSchema.format)) ON CONFLICT (key) DO NOTHING", logger: logger)
        }
    }

    // MARK: Writing

    /// How long a commit, a takeover or the lobby's list may wait for the database (a
    /// connection, its locks, the statements) before it fails (`store-failed`).
    static let writeDeadlineSeconds = 10.0

    func commit(_ batch: [[StoreWrite]]) async throws -> [Int: StoreRefusal] {
        let held = lock.withLock { epochs }
        let owner = self.owner, logger = self.logger
        do {
            let client = self.client
            let (refused, now) = try await StoreDeadline.run(seconds: Self.writeDeadlineSeconds, "the room store \(address)") {
                try await client.withTransaction(logger: logger) { connection -> ([Int: StoreRefusal], [String: Int64?]) in
                    // The lease rows of the batch's rooms, locked (in one order: no deadlock with
                    // the heartbeat) until the commit, so no takeover slips in between the epoch
                    // check and the writes.
                    let rooms = Set(batch.flatMap { $0.map(\.room) }).filter { held[$0] != nil }.sorted()
                    var current: [String: Int64] = [:]
                    if !rooms.isEmpty {
                        let rows = try await connection.query(
                            "SELECT room, epoch FROM room_leases WHERE room = ANY(\(rooms)) AND owner = \(owner) ORDER BY room FOR UPDATE", logger: logger)
                        for try await (room, epoch) in rows.decode((String, Int64).self) where held[room] == epoch { current[room] = epoch }
                    }
                    var refused: [Int: StoreRefusal] = [:]
                    var changed: [String: Int64?] = [:]
                    var rows = BulkRows()
                    for (index, writes) in batch.enumerated() {
                        guard let room = writes.first?.room else { continue }
                        if case .room(let stored) = writes.first {
                            try await self.flush(&rows, on: connection)
                            guard let epoch = try await self.create(stored, on: connection) else {
                                refused[index] = StoreRefusal(room: room, kind: .exists)
                                continue
                            }
                            current[room] = epoch
                            changed[room] = epoch
                            for write in writes.dropFirst() { try await self.apply(write, epoch: epoch, rows: &rows, on: connection) }
                            continue
                        }
                        guard let epoch = current[room] else {
                            refused[index] = StoreRefusal(room: room, kind: .moved)
                            continue
                        }
                        for write in writes {
                            try await self.apply(write, epoch: epoch, rows: &rows, on: connection)
                            if case .finish = write {
                                current[room] = nil
                                changed[room] = .some(nil)
                            }
                        }
                    }
                    try await self.flush(&rows, on: connection)
                    for refusal in refused.values where refusal.kind == .moved { changed[refusal.room] = .some(nil) }
                    return (refused, changed)
                }
            }
            lock.withLock {
                for (room, epoch) in now { epochs[room] = epoch }
            }
            return refused
        } catch {
            throw StoreError(Self.explain(error, password: address.password))
        }
    }

    /// A new room and its lease (epoch one more than any before it under that id). Nil when
    /// an unfinished room of that id is in the store (another process's).
    private func create(_ room: StoredRoom, on connection: PostgresConnection) async throws -> Int64? {
        // An id may be taken again once its room finished: the old room's rows go first.
        try await connection.query("DELETE FROM rooms WHERE id = \(room.id) AND finished IS NOT NULL", logger: logger)
        let inserted = try await connection.query("""
            INSERT INTO rooms (id, rules, rules_sha256, params, seed, seats, device_rolls, created, turn_seconds)
            VALUES (\(room.id), \(room.rulesFile), \(room.rulesSHA256), \(StoreSchema.paramsText(room.params)), \(String(room.seed)),
                    \(Int64(room.seatCount)), \(room.deviceRolls), \(room.created), \(room.turnSeconds.map(Int64.init)))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """, logger: logger)
        var created = false
        for try await _ in inserted.decode(String.self) { created = true }
        guard created else { return nil }
        let lease = try await connection.query("""
            INSERT INTO room_leases (room, owner, epoch, expires_at) VALUES (\(room.id), \(owner), 1, now() + make_interval(secs => \(leaseSeconds)))
            ON CONFLICT (room) DO UPDATE SET owner = EXCLUDED.owner, epoch = room_leases.epoch + 1, expires_at = EXCLUDED.expires_at
            RETURNING epoch
            """, logger: logger)
        for try await epoch in lease.decode(Int64.self) { return epoch }
        throw StoreError("the lease of room \(room.id) was not written")
    }

    /// The inputs and sequence numbers of a transaction, written in one statement each
    /// (`unnest` of arrays) instead of one round trip a row: the hot path of a busy server.
    private struct BulkRows {
        var rooms: [String] = [], ns: [Int64] = [], lines: [String] = [], times: [Int64] = [], events: [String] = [], kinds: [String] = [], epochs: [Int64] = []
        /// The highest sequence number of each (room, seat).
        var seqs: [SeatKey: Int64] = [:]
        struct SeatKey: Hashable { var room: String, seat: Int64 }
        var isEmpty: Bool { rooms.isEmpty && seqs.isEmpty }
    }

    /// Writes what `rows` holds, before any write it must come before (a room's seats or
    /// rows replaced, a room closed) and at the end of the transaction.
    private func flush(_ rows: inout BulkRows, on connection: PostgresConnection) async throws {
        guard !rows.isEmpty else { return }
        if !rows.rooms.isEmpty {
            try await connection.query("""
                INSERT INTO inputs (room, n, input, t, events, kind, epoch, owner)
                SELECT r, n, i, t, e, k, ep, \(owner)
                FROM unnest(\(rows.rooms)::text[], \(rows.ns)::int8[], \(rows.lines)::text[], \(rows.times)::int8[], \(rows.events)::text[],
                            \(rows.kinds)::text[], \(rows.epochs)::int8[])
                    AS u(r, n, i, t, e, k, ep)
                """, logger: logger)
        }
        if !rows.seqs.isEmpty {
            let keys = Array(rows.seqs.keys)
            try await connection.query("""
                UPDATE seats SET last_seq = GREATEST(seats.last_seq, u.q)
                FROM unnest(\(keys.map(\.room))::text[], \(keys.map(\.seat))::int8[], \(keys.map { rows.seqs[$0] ?? 0 })::int8[]) AS u(r, k, q)
                WHERE seats.room = u.r AND seats.seat = u.k
                """, logger: logger)
        }
        rows = BulkRows()
    }

    private func apply(_ write: StoreWrite, epoch: Int64, rows: inout BulkRows, on connection: PostgresConnection) async throws {
        switch write {
        case .room:
            throw StoreError("a new room can only begin a list of writes")
        case .seats(let room, let seats):
            try await flush(&rows, on: connection)
            try await connection.query("DELETE FROM seats WHERE room = \(room)", logger: logger)
            for (index, seat) in seats.enumerated() {
                try await connection.query("""
                    INSERT INTO seats (room, seat, name, token_sha256, last_seq, has_left, ready)
                    VALUES (\(room), \(Int64(index + 1)), \(seat.name), \(seat.tokenSHA256), \(seat.lastSeq), \(seat.left), \(seat.ready))
                    """, logger: logger)
            }
        case .start(let room, let header):
            try await connection.query("UPDATE rooms SET header = \(header) WHERE id = \(room)", logger: logger)
        case .input(let room, let input):
            rows.rooms.append(room)
            rows.ns.append(input.n)
            rows.lines.append(input.line)
            rows.times.append(input.time)
            rows.events.append(input.events)
            rows.kinds.append(input.kind.rawValue)
            rows.epochs.append(epoch)
        case .lastSeq(let room, let seat, let seq):
            let key = BulkRows.SeatKey(room: room, seat: Int64(seat + 1))
            rows.seqs[key] = max(rows.seqs[key] ?? seq, seq)
        case .seatStatus(let room, let seat, let left, let ready):
            try await flush(&rows, on: connection)
            try await connection.query("UPDATE seats SET has_left = \(left), ready = \(ready) WHERE room = \(room) AND seat = \(Int64(seat + 1))", logger: logger)
        case .abandoned(let room, let abandoned):
            try await connection.query("UPDATE rooms SET abandoned = \(abandoned) WHERE id = \(room)", logger: logger)
        case .finish(let room, let reason):
            try await flush(&rows, on: connection)
            try await connection.query("""
                UPDATE rooms SET finished = \(Int64(Date().timeIntervalSince1970)), closed_reason = \(reason) WHERE id = \(room)
                """, logger: logger)
            // Let go, keeping the row: epochs only ever grow for an id.
            try await connection.query("UPDATE room_leases SET expires_at = '-infinity' WHERE room = \(room) AND owner = \(owner)", logger: logger)
        }
    }

    /// Lets go of this process's leases (a restart's rooms are free at once, not after
    /// they lapse; the rows stay, so a room's epochs only ever grow) and closes the connections.
    func close() async {
        if !lock.withLock({ epochs.isEmpty }) {
            _ = try? await client.query("UPDATE room_leases SET expires_at = '-infinity' WHERE owner = \(owner)", logger: logger)
            lock.withLock { epochs = [:] }
        }
        runner.cancel()
        await runner.value
    }

    /// PostgreSQL's or the network's reason in words an operator can act on (never the password).
    static func explain(_ error: Error, password: String?) -> String {
        var text: String
        if let error = error as? PostgresTransactionError {
            return explain(error.beginError ?? error.closureError ?? error.commitError ?? error.rollbackError ?? StoreError("a transaction failed"), password: password)
        } else if let error = error as? StoreError {
            text = error.description
        } else if let error = error as? PSQLError {
            switch error.code {
            case .server:
                let message = error.serverInfo?[.message] ?? "the server refused"
                let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                text = message + state
                if error.serverInfo?[.sqlState] == "28P01" { text += "; check the user and password in the address" }
            case .connectionError:
                text = "cannot connect (\(error.underlying.map { "\($0)" } ?? "no reason given")); check the host and port, and that PostgreSQL runs there"
            case .authMechanismRequiresPassword:
                text = "the server asks for a password: put it in the address (postgres://USER:PASSWORD@HOST:PORT/DATABASE)"
            case .serverClosedConnection, .clientClosedConnection:
                text = "the connection closed (\(error.underlying.map { "\($0)" } ?? "PostgreSQL went away"))"
            default:
                text = String(reflecting: error)
            }
        } else {
            text = "\(error)"
        }
        if let password, !password.isEmpty { text = text.replacingOccurrences(of: password, with: "***") }
        return text
    }
}
