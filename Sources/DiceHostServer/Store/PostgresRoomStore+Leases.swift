import Foundation
import Logging
import PostgresNIO

/// A room's lease in the PostgreSQL store: taken over from a process whose lease lapsed
/// (its epoch one more, so that process's writes are refused from then on), renewed while
/// this process runs, and the list of what this process holds.
extension PostgresRoomStore {
    func takeOver(room id: String) async throws -> Takeover {
        let owner = self.owner, logger = self.logger, leaseSeconds = self.leaseSeconds
        do {
            let client = self.client
            let (outcome, epoch) = try await StoreDeadline.run(seconds: Self.writeDeadlineSeconds, "the room store \(address)") {
                try await client.withTransaction(logger: logger) { connection -> (Takeover, Int64?) in
                    var state: (finished: Int64?, reason: String?)?
                    for try await (finished, reason) in try await connection.query(
                        "SELECT finished, closed_reason FROM rooms WHERE id = \(id)", logger: logger).decode((Int64?, String?).self) {
                        state = (finished, reason)
                    }
                    guard let state else { return (.notStored, nil) }
                    if state.finished != nil { return (.finished(reason: state.reason), nil) }
                    // Free, lapsed, or already this process's (a room it closed here): a new epoch.
                    var epoch: Int64?
                    for try await value in try await connection.query("""
                        INSERT INTO room_leases (room, owner, epoch, expires_at) VALUES (\(id), \(owner), 1, now() + make_interval(secs => \(leaseSeconds)))
                        ON CONFLICT (room) DO UPDATE SET owner = EXCLUDED.owner, epoch = room_leases.epoch + 1, expires_at = EXCLUDED.expires_at
                        WHERE room_leases.expires_at < now() OR room_leases.owner = EXCLUDED.owner
                        RETURNING epoch
                        """, logger: logger).decode(Int64.self) { epoch = value }
                    guard let epoch else {
                        var left = 0.0
                        for try await seconds in try await connection.query(
                            "SELECT EXTRACT(EPOCH FROM expires_at - now())::float8 FROM room_leases WHERE room = \(id)", logger: logger).decode(Double.self) {
                            left = max(0, seconds)
                        }
                        return (.ownedElsewhere(seconds: left), nil)
                    }
                    // Read after the lease is ours: a write of the old owner that held the row's
                    // lock has committed before this, any later one is refused by its epoch.
                    guard let room = try await self.read(room: id, on: connection) else { return (.notStored, nil) }
                    return (.taken(room), epoch)
                }
            }
            if let epoch { lock.withLock { epochs[id] = epoch } }
            return outcome
        } catch {
            if let error = error as? StoreError { throw error }
            throw StoreError("the room store \(address) could not take room \(id) over: \(Self.explain(error, password: address.password))")
        }
    }

    func renewLeases() async throws -> [String] {
        let held = lock.withLock { epochs }
        guard !held.isEmpty else { return [] }
        var renewed: [String: Int64] = [:]
        do {
            // One statement for every room; the rows locked in one order (no deadlock with a commit).
            let rows = try await client.query("""
                UPDATE room_leases SET expires_at = now() + make_interval(secs => \(leaseSeconds))
                WHERE room IN (SELECT room FROM room_leases WHERE owner = \(owner) ORDER BY room FOR UPDATE) AND owner = \(owner)
                RETURNING room, epoch
                """, logger: logger)
            for try await (room, epoch) in rows.decode((String, Int64).self) { renewed[room] = epoch }
        } catch {
            throw StoreError("the room store \(address) could not renew this process's leases: \(Self.explain(error, password: address.password))")
        }
        let lost = held.filter { renewed[$0.key] != $0.value }.map(\.key).sorted()
        lock.withLock {
            for room in lost where epochs[room] == held[room] { epochs[room] = nil }
        }
        return lost
    }

    /// The rooms whose lease this process holds, and their epochs (for tests and the operator).
    var heldLeases: [String: Int64] { lock.withLock { epochs } }
}
