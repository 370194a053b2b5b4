@testable import DiceHostServer
import Foundation
import Testing

/// The SQLite store's transactions as the group commit hands them in, on statements it
/// prepared once: a batch is stored whole or not at all, and a statement that failed
/// leaves the next transaction to start clean.
struct SQLiteStoreTransactionTests {
    func input(_ room: String, _ n: Int64) -> StoreWrite {
        .input(room: room, StoredInput(n: n, line: "as Ann roll", time: n, events: "[]"))
    }

    @Test func aBatchThatFailsHalfWayStoresNoneOfItsListsAndTheNextBatchIsStored() async throws {
        try await withRulesFolder([:]) { folder in
            let path = (folder as NSString).appendingPathComponent("rooms.sqlite")
            let store = try await SQLiteRoomStore.open(path: path)
            _ = try await store.commit([[.room(SQLiteStoreFormatTests.room), .seats(room: "r1", SQLiteStoreFormatTests.seats)]])
            _ = try await store.commit([[input("r1", 1)]])
            // Input 1 again: the second list fails on the (room, n) key, so the first goes too.
            await #expect(throws: StoreError.self) { _ = try await store.commit([[input("r1", 2)], [input("r1", 1)]]) }
            _ = try await store.commit([[input("r1", 2)], [input("r1", 3)]])
            let commits = GroupCommit(store: store)
            try await commits.wait(for: commits.enqueue([input("r1", 4)]))
            let rooms = try await store.unfinishedRooms()
            await store.close()
            #expect(rooms.first?.inputs.map(\.n) == [1, 2, 3, 4])
        }
    }
}
