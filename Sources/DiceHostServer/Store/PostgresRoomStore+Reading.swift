import Foundation
import Logging
import PostgresNIO

/// Reading the PostgreSQL store: the lobby's list, the unfinished rooms a process reopens,
/// one room with its seats and inputs, and why a room closed.
extension PostgresRoomStore {
    func listRooms(limit: Int) async throws -> [StoredRoomSummary] {
        let client = self.client, logger = self.logger
        do {
            return try await StoreDeadline.run(seconds: Self.writeDeadlineSeconds, "the room store \(address)") {
                var rooms: [StoredRoomSummary] = []
                let rows = try await client.query("""
                    SELECT r.id, r.rules, r.seats, r.header IS NOT NULL, ARRAY(SELECT s.name FROM seats s WHERE s.room = r.id ORDER BY s.seat)
                    FROM rooms r WHERE r.finished IS NULL ORDER BY r.id LIMIT \(Int64(max(0, limit)))
                    """, logger: logger)
                for try await (id, rules, seats, started, players) in rows.decode((String, String, Int64, Bool, [String]).self) {
                    guard let seatCount = Int(exactly: seats) else { continue }
                    rooms.append(StoredRoomSummary(id: id, rulesFile: rules, seatCount: seatCount, players: players, started: started))
                }
                return rooms
            }
        } catch {
            throw StoreError("the room store \(address) cannot list its rooms: \(Self.explain(error, password: address.password))")
        }
    }

    func unfinishedRooms() async throws -> [StoredRoom] {
        let logger = self.logger
        do {
            return try await client.withConnection { connection in
                var ids: [String] = []
                for try await id in try await connection.query("SELECT id FROM rooms WHERE finished IS NULL ORDER BY created, id", logger: logger).decode(String.self) {
                    ids.append(id)
                }
                var rooms: [StoredRoom] = []
                for id in ids { if let room = try await self.read(room: id, on: connection) { rooms.append(room) } }
                return rooms
            }
        } catch {
            if let error = error as? StoreError { throw error }
            throw StoreError(Self.explain(error, password: address.password))
        }
    }

    /// Room `id` with its seats and inputs in order (nil: no such room).
    func read(room id: String, on connection: PostgresConnection) async throws -> StoredRoom? {
        var room: StoredRoom?
        let rows = try await connection.query(
            "SELECT rules, rules_sha256, params, seed, seats, device_rolls, created, header, turn_seconds, abandoned FROM rooms WHERE id = \(id)", logger: logger)
        for try await (rules, sha, params, seed, seats, deviceRolls, created, header, turnSeconds, abandoned)
            in rows.decode((String, String, String, String, Int64, Bool, Int64, String?, Int64?, Bool).self) {
            guard let params = StoreSchema.params(from: params) else { throw StoreError("\(location): room \(id) has bad params") }
            guard let seed = UInt64(seed) else { throw StoreError("\(location): room \(id) has a bad seed") }
            guard let seatCount = Int(exactly: seats), seatCount > 0 else { throw StoreError("\(location): room \(id) has a bad seat count") }
            room = StoredRoom(id: id, rulesFile: rules, rulesSHA256: sha, params: params, seed: seed, seatCount: seatCount,
                              deviceRolls: deviceRolls, created: created, header: header)
            if let turnSeconds {
                guard let seconds = Int(exactly: turnSeconds).flatMap(StoreSchema.turnSeconds) else {
                    throw StoreError("\(location): room \(id) has a bad turn_seconds")
                }
                room?.turnSeconds = seconds
            }
            room?.abandoned = abandoned
        }
        guard var room else { return nil }
        for try await (name, token, lastSeq, left, ready) in try await connection.query(
            "SELECT name, token_sha256, last_seq, has_left, ready FROM seats WHERE room = \(id) ORDER BY seat", logger: logger)
            .decode((String, String, Int64, Bool, Bool).self) {
            room.seats.append(StoredSeat(name: name, tokenSHA256: token, lastSeq: lastSeq, left: left, ready: ready))
        }
        for try await (n, line, time, events, kind) in try await connection.query(
            "SELECT n, input, t, events, kind FROM inputs WHERE room = \(id) ORDER BY n", logger: logger).decode((Int64, String, Int64, String, String).self) {
            guard let kind = StoredInput.Kind(rawValue: kind) else { throw StoreError("\(location): room \(id) input \(n) has an unknown kind \(kind)") }
            room.inputs.append(StoredInput(n: n, line: line, time: time, events: events, kind: kind))
        }
        return room
    }

    func closedReason(room: String) async throws -> String? {
        for try await reason in try await client.query(
            "SELECT closed_reason FROM rooms WHERE id = \(room) AND finished IS NOT NULL", logger: logger).decode(String?.self) {
            return reason
        }
        return nil
    }
}
