/// Where rooms outlive the process: every input of a served room is written here before
/// it is acknowledged or its events sent, and a server that starts reopens the rooms it
/// finds unfinished by replaying their inputs (`RoomRestorer`).
protocol RoomStore: Sendable {
    /// The file or database, for messages.
    var location: String { get }
    /// Writes the lists in one transaction, in order: all of them or (thrown) none.
    func commit(_ batch: [[StoreWrite]]) async throws
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
