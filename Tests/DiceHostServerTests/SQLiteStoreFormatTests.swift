@testable import DiceHostServer
import Foundation
import SQLiteNIO
import Testing

/// The SQLite store's format 2 (issue 32): a seat's new sequence number is written in the
/// row of the input it came with, not as an update of the seat's row, so a stored input
/// writes one page fewer to the WAL; a format 1 file is brought up to it when opened.
struct SQLiteStoreFormatTests {
    static let room = StoredRoom(id: "r1", rulesFile: "race.lua", rulesSHA256: String(repeating: "0", count: 64), params: [],
                                 seed: 7, seatCount: 2, deviceRolls: false, created: 1_700_000_000, header: nil)
    static let seats = [StoredSeat(name: "Ann", tokenSHA256: String(repeating: "a", count: 64), lastSeq: 0),
                        StoredSeat(name: "Bob", tokenSHA256: String(repeating: "b", count: 64), lastSeq: 0)]

    func input(_ n: Int64, by seat: Int) -> [StoreWrite] {
        [.input(room: "r1", StoredInput(n: n, line: "as \(Self.seats[seat].name) roll", time: 100 * n, events: "[{\"type\":\"roll\",\"n\":\(n)}]")),
         .lastSeq(room: "r1", seat: seat, seq: n)]
    }

    func walBytes(_ store: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: store + "-wal"))?[.size] as? Int) ?? 0
    }

    @Test func aStoredInputWithItsSeatsSequenceNumberAddsTwoPagesToTheWALNotThree() async throws {
        try await withRulesFolder([:]) { folder in
            let path = (folder as NSString).appendingPathComponent("rooms.sqlite")
            let store = try await SQLiteRoomStore.open(path: path)
            _ = try await store.commit([[.room(Self.room), .seats(room: "r1", Self.seats)]])
            let before = walBytes(path)
            for n in 1...20 { _ = try await store.commit([input(Int64(n), by: n % 2)]) }
            let frames = (walBytes(path) - before) / (4096 + 24)
            await store.close()
            // The inputs table's page and its (room, n) index's page; the seats table's page
            // too in format 1 (60 frames). A page split now and then adds one.
            #expect(frames <= 45, "\(frames) pages written for 20 inputs")

            let reopened = try await SQLiteRoomStore.open(path: path)
            let rooms = try await reopened.unfinishedRooms()
            await reopened.close()
            let room = try #require(rooms.first)
            #expect(room.seats.map(\.lastSeq) == [20, 19], "each seat's last sequence number, from its inputs' rows")
            #expect(room.inputs.map(\.n) == Array(1...20))
        }
    }

    @Test func aFormatOneStoreIsBroughtUpToFormatTwoWithItsSeatsSequenceNumbersKept() async throws {
        try await withRulesFolder([:]) { folder in
            let path = (folder as NSString).appendingPathComponent("rooms.sqlite")
            // A store as format 1 wrote it: last_seq in the seats' rows, inputs without seat or seq.
            let old = try await SQLiteConnection.open(storage: .file(path: path))
            for statement in [
                "CREATE TABLE dicehost_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                "CREATE TABLE rooms (id TEXT PRIMARY KEY, rules TEXT NOT NULL, rules_sha256 TEXT NOT NULL, params TEXT NOT NULL, seed TEXT NOT NULL, seats INTEGER NOT NULL, device_rolls INTEGER NOT NULL, created INTEGER NOT NULL, header TEXT, finished INTEGER, closed_reason TEXT)",
                "CREATE TABLE seats (room TEXT NOT NULL REFERENCES rooms(id), seat INTEGER NOT NULL, name TEXT NOT NULL, token_sha256 TEXT NOT NULL, last_seq INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (room, seat))",
                "CREATE TABLE inputs (room TEXT NOT NULL REFERENCES rooms(id), n INTEGER NOT NULL, input TEXT NOT NULL, t INTEGER NOT NULL, events TEXT NOT NULL, PRIMARY KEY (room, n))",
                "INSERT INTO dicehost_store VALUES ('format', '1')",
                "INSERT INTO rooms VALUES ('r1', 'race.lua', '\(Self.room.rulesSHA256)', '[]', '7', 2, 0, 1700000000, NULL, NULL, NULL)",
                "INSERT INTO seats VALUES ('r1', 1, 'Ann', '\(Self.seats[0].tokenSHA256)', 5)",
                "INSERT INTO seats VALUES ('r1', 2, 'Bob', '\(Self.seats[1].tokenSHA256)', 4)",
                "INSERT INTO inputs VALUES ('r1', 1, 'as Ann roll', 100, '[]')",
            ] { _ = try await old.query(statement) }
            try await old.close()

            let store = try await SQLiteRoomStore.open(path: path)
            #expect(try await store.unfinishedRooms().first?.seats.map(\.lastSeq) == [5, 4], "format 1's sequence numbers kept")
            _ = try await store.commit([[input(2, by: 1)[0], .lastSeq(room: "r1", seat: 1, seq: 6)]])
            await store.close()

            let reopened = try await SQLiteRoomStore.open(path: path)
            let room = try #require(try await reopened.unfinishedRooms().first)
            await reopened.close()
            #expect(room.seats.map(\.lastSeq) == [5, 6], "Bob's seq 6 from his input's row, Ann's 5 from her seat's")
            #expect(room.inputs.map(\.line) == ["as Ann roll", "as Bob roll"])
            let check = try await SQLiteConnection.open(storage: .file(path: path))
            let format = try await check.query("SELECT value FROM dicehost_store WHERE key = 'format'").first?.column("value")?.string
            try await check.close()
            #expect(format == StoreSchema.format)
        }
    }

    /// The upgrade is one transaction: when one of its steps fails (here a format 1 file
    /// that somehow has a `seq` column already, so adding it fails), the file is left as
    /// it was, format 1 without the other new column, and opening it again tries again.
    @Test func anUpgradeThatFailsHalfWayLeavesTheFormatOneFileAsItWas() async throws {
        try await withRulesFolder([:]) { folder in
            let path = (folder as NSString).appendingPathComponent("rooms.sqlite")
            let old = try await SQLiteConnection.open(storage: .file(path: path))
            for statement in [
                "CREATE TABLE dicehost_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                "CREATE TABLE inputs (room TEXT NOT NULL, n INTEGER NOT NULL, input TEXT NOT NULL, t INTEGER NOT NULL, events TEXT NOT NULL, seq INTEGER, PRIMARY KEY (room, n))",
                "INSERT INTO dicehost_store VALUES ('format', '1')",
            ] { _ = try await old.query(statement) }
            try await old.close()

            await #expect(throws: (any Error).self) { _ = try await SQLiteRoomStore.open(path: path) }

            let check = try await SQLiteConnection.open(storage: .file(path: path))
            let format = try await check.query("SELECT value FROM dicehost_store WHERE key = 'format'").first?.column("value")?.string
            let columns = try await check.query("PRAGMA table_info(inputs)").compactMap { $0.column("name")?.string }
            try await check.close()
            #expect(format == "1", "the format row is not moved on")
            #expect(!columns.contains("seat"), "the column the first step added is rolled back")
        }
    }

    @Test func aStoreOfALaterFormatIsRefusedByName() async throws {
        try await withRulesFolder([:]) { folder in
            let path = (folder as NSString).appendingPathComponent("rooms.sqlite")
            let other = try await SQLiteConnection.open(storage: .file(path: path))
            _ = try await other.query("CREATE TABLE dicehost_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            _ = try await other.query("INSERT INTO dicehost_store VALUES ('format', '9')")
            try await other.close()
            let error = await #expect(throws: StoreError.self) { _ = try await SQLiteRoomStore.open(path: path) }
            #expect(error?.description.contains("format 9") == true, "\(String(describing: error))")
        }
    }
}

/// Format 3: the room's turn clock, a game abandoned, who left and who is ready are kept
/// (and an input's kind); a format 2 file is brought up, or left as it was when that fails.
struct SQLiteStoreFormatThreeTests {
    static let formatTwo = [
        "CREATE TABLE dicehost_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE rooms (id TEXT PRIMARY KEY, rules TEXT NOT NULL, rules_sha256 TEXT NOT NULL, params TEXT NOT NULL, seed TEXT NOT NULL, seats INTEGER NOT NULL, device_rolls INTEGER NOT NULL, created INTEGER NOT NULL, header TEXT, finished INTEGER, closed_reason TEXT)",
        "CREATE TABLE inputs (room TEXT NOT NULL REFERENCES rooms(id), n INTEGER NOT NULL, input TEXT NOT NULL, t INTEGER NOT NULL, events TEXT NOT NULL, seat INTEGER, seq INTEGER, PRIMARY KEY (room, n))",
        "INSERT INTO dicehost_store VALUES ('format', '2')",
    ]

    @Test func theTurnClockLeftReadyAndAbandonedAreReadBackAsWritten() async throws {
        try await withRulesFolder([:]) { folder in
            let path = (folder as NSString).appendingPathComponent("rooms.sqlite")
            let store = try await SQLiteRoomStore.open(path: path)
            var room = SQLiteStoreFormatTests.room
            room.turnSeconds = 45
            _ = try await store.commit([[.room(room), .seats(room: "r1", SQLiteStoreFormatTests.seats)]])
            _ = try await store.commit([[.seatStatus(room: "r1", seat: 1, left: true, ready: false),
                                         .seatStatus(room: "r1", seat: 0, left: false, ready: true), .abandoned(room: "r1", true)]])
            await store.close()
            let reopened = try await SQLiteRoomStore.open(path: path)
            let read = try #require(try await reopened.unfinishedRooms().first)
            await reopened.close()
            #expect(read.turnSeconds == 45 && read.abandoned)
            #expect(read.seats.map(\.left) == [false, true] && read.seats.map(\.ready) == [true, false])
        }
    }

    @Test func aConversionOfAFormatTwoFileThatFailsLeavesItAsItWas() async throws {
        try await withRulesFolder([:]) { folder in
            let path = (folder as NSString).appendingPathComponent("rooms.sqlite")
            let old = try await SQLiteConnection.open(storage: .file(path: path))
            // A seats table that has a `ready` column already: adding it fails half-way.
            for statement in Self.formatTwo + [
                "CREATE TABLE seats (room TEXT NOT NULL, seat INTEGER NOT NULL, name TEXT NOT NULL, token_sha256 TEXT NOT NULL, last_seq INTEGER NOT NULL DEFAULT 0, ready TEXT, PRIMARY KEY (room, seat))",
            ] { _ = try await old.query(statement) }
            try await old.close()

            let error = await #expect(throws: StoreError.self) { _ = try await SQLiteRoomStore.open(path: path) }
            #expect(error?.description.contains("left as it was") == true, "\(String(describing: error))")

            let check = try await SQLiteConnection.open(storage: .file(path: path))
            let format = try await check.query("SELECT value FROM dicehost_store WHERE key = 'format'").first?.column("value")?.string
            let columns = try await check.query("PRAGMA table_info(rooms)").compactMap { $0.column("name")?.string }
            try await check.close()
            #expect(format == "2")
            #expect(!columns.contains("turn_seconds"), "the columns the first steps added are rolled back: \(columns)")
        }
    }
}
