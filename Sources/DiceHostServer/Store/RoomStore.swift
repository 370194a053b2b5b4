/// Where rooms outlive the process: every input of a served room is written here before
/// it is acknowledged or its events sent, and a server that starts reopens the rooms it
/// finds unfinished by replaying their inputs (`RoomRestorer`).
protocol RoomStore: Sendable {
    /// The file or database, for messages.
    var location: String { get }
    /// Writes the lists in one transaction, in order: all of them or (thrown) none, except
    /// the lists a shared store refuses (by their index in `batch`), which it leaves out.
    func commit(_ batch: [[StoreWrite]]) async throws -> [Int: StoreRefusal]
    /// Every room not finished, with its seats and inputs in order.
    func unfinishedRooms() async throws -> [StoredRoom]
    /// Why a finished room was closed (nil: no such room, or not closed with a reason).
    func closedReason(room: String) async throws -> String?
    func close() async
}

/// A store that cannot be used: a message naming the file and what is wrong.
struct StoreError: Error, CustomStringConvertible, Equatable {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A list of writes the store would not make, while it wrote the others of the same
/// transaction: the room is owned by another process now (`moved`), or a new room's id is
/// taken by an unfinished room of another process (`exists`).
struct StoreRefusal: Error, CustomStringConvertible, Equatable, Sendable {
    enum Kind: Sendable { case moved, exists }
    var room: String
    var kind: Kind

    var description: String {
        switch kind {
        case .moved: return "room \(room) is now played by another server process (its lease was taken over)"
        case .exists: return "there is already a room \(room)"
        }
    }
}

/// A store several server processes share (PostgreSQL): each room has one owner at a
/// time, through a lease with a fencing epoch. A process writes only rooms whose current
/// epoch it holds, renews its leases while it runs, and takes a room over from the store
/// (replaying it) when a player asks for it and its lease has lapsed.
protocol SharedRoomStore: RoomStore {
    /// Seconds a lease runs without being renewed.
    var leaseSeconds: Double { get }
    /// Takes room `id`'s lease when it is free or has lapsed, and reads the room.
    func takeOver(room id: String) async throws -> Takeover
    /// Renews the leases of every room this process owns (one statement); returns the
    /// rooms whose lease another process took meanwhile.
    func renewLeases() async throws -> [String]
    /// The unfinished rooms of every process, for the lobby (at most `limit`).
    func listRooms(limit: Int) async throws -> [StoredRoomSummary]
}

enum Takeover: Sendable, Equatable {
    /// The lease is this process's now (a new epoch); the room as stored, to replay.
    case taken(StoredRoom)
    /// Another process holds the lease for `seconds` more.
    case ownedElsewhere(seconds: Double)
    /// No such room in the store.
    case notStored
    /// The room was closed, with its reason.
    case finished(reason: String?)
}

/// A room as the lobby of any process lists it.
struct StoredRoomSummary: Sendable, Equatable {
    var id: String
    var rulesFile: String
    var seatCount: Int
    var players: [String]
    var started: Bool
}
