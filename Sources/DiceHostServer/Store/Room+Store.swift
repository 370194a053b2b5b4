import DiceHost

extension Room {
    /// The seats as the store keeps them.
    var storedSeats: [StoredSeat] {
        seats.map { StoredSeat(name: $0.name, tokenSHA256: $0.tokenHash, lastSeq: $0.lastSeq, left: $0.left, ready: $0.ready) }
    }

    /// Stages a seat's `left` and `ready` for the store's next commit (they outlive a restart).
    func journalSeatStatus(_ seat: Int) {
        guard seats.indices.contains(seat) else { return }
        journal?.stage(.seatStatus(room: id, seat: seat, left: seats[seat].left, ready: seats[seat].ready))
    }

    /// Stages whether the game is abandoned for the store's next commit.
    func journalAbandoned() {
        journal?.stage(.abandoned(room: id, abandoned))
    }
}

extension Room {
    /// What the lobby lists for a room another process holds (as stored: spectators and
    /// connections are that process's to know: the fields are left out).
    static func summaryJSON(_ stored: StoredRoomSummary, name: String) -> String {
        ServerMessage.object([
            ("room", .string(stored.id)), ("rules", .string(stored.rulesFile)), ("name", .string(name)), ("seats", .integer(stored.seatCount)),
            ("players", .written(ServerMessage.array(stored.players.map { .string($0) }))), ("phase", .string(stored.started ? "playing" : "waiting")),
        ])
    }
}
