/// One change to the store. A room hands the store a list of them that belong together
/// (an input and its seat's new sequence number): the list is written in one transaction
/// with the lists of other rooms (group commit), never in part.
enum StoreWrite: Sendable, Equatable {
    /// A new room (its seats and inputs are written by the writes that follow).
    case room(StoredRoom)
    /// The seats of a room as they are now (before the game starts players come and go).
    case seats(room: String, [StoredSeat])
    /// The game started: its log header.
    case start(room: String, header: String)
    case input(room: String, StoredInput)
    /// A seat's last applied sequence number.
    case lastSeq(room: String, seat: Int, seq: Int64)
    /// Whether a seat's player left the game, and whether they are ready for another.
    case seatStatus(room: String, seat: Int, left: Bool, ready: Bool)
    /// Whether the players abandoned the game a seat blocked.
    case abandoned(room: String, Bool)
    /// The room is closed: it is not reopened on restart.
    case finish(room: String, reason: String)
}

extension StoreWrite {
    /// The room the write is for.
    var room: String {
        switch self {
        case .room(let room): return room.id
        case .seats(let room, _), .start(let room, _), .input(let room, _), .lastSeq(let room, _, _), .finish(let room, _),
             .seatStatus(let room, _, _, _), .abandoned(let room, _): return room
        }
    }
}
