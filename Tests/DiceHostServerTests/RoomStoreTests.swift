@testable import DiceHostServer
import DiceHost
import Foundation
import SQLiteNIO
import Testing

/// The room store (`serve --store FILE`): rooms written before they are acknowledged,
/// reopened by a restarted server, and a store file that cannot be used refused by name.
@Suite(.serialized)
struct RoomStoreTests {
    /// Race to Space in a temp rules folder (so a test may edit it), with a store file beside it.
    func withRaceFolder(_ body: (_ rules: String, _ store: String) async throws -> Void) async throws {
        let race = try String(contentsOfFile: TestServer.repositoryRules + "/race.lua", encoding: .utf8)
        try await withRulesFolder(["race.lua": race]) { folder in
            try await body(folder, (folder as NSString).appendingPathComponent("rooms.sqlite"))
        }
    }

    func start(_ rules: String, store: String) async throws -> (server: TestServer, done: Task<Void, Error>) {
        var configuration = DiceHostServer.Configuration(rulesDirectory: rules, port: 0)
        configuration.store = store
        let server = try await TestServer.start(configuration: configuration)
        return (server, server.task)
    }

    @Test func aRestartedServerReopensTheRoomWithItsSeatsTokensAndGame() async throws {
        try await withRaceFolder { rules, store in
            let first = try await start(rules, store: store).server
            // The die's pulse at its slowest (every 10 s, race.lua's maximum): a pulse due
            // between the first server's stop and the second's reopening adds events the
            // players were never sent (18 where 13 were, once, with the suite running beside).
            let r = try await first.twoPlayerRoom("race.lua", fields: ["params": ["target": "1000", "pulse_ms": "10000"]])
            let annToken = try #require(r.annJoined["token"] as? String), bobToken = try #require(r.bobJoined["token"] as? String)
            _ = try await r.ann.roll(seq: 1)
            _ = try await r.bob.roll(seq: 1)
            _ = try await r.ann.roll(seq: 2)
            await first.stopAndWait()
            // All the first server sent Ann before her socket closed: the die's pulse timer
            // may have added events after her last roll on a slow machine.
            _ = await r.ann.drain(for: .seconds(30))
            let last = try #require(r.ann.received.last { $0["type"] as? String == "events" })
            let before = try #require(last["state"] as? [String: Any])
            let eventCount = try #require(before["eventCount"] as? Int)

            let second = try await start(rules, store: store).server
            defer { second.stop() }
            let ann = try await second.client(), bob = try await second.client()
            try await ann.hello()
            try await bob.hello()
            ann.send(["type": "join", "room": r.room, "token": annToken])
            let joined = try #require(await ann.next("joined"))
            #expect(joined["seat"] as? Int == 1)
            #expect(joined["lastSeq"] as? Int == 2, "Ann's sequence numbers go on")
            let state = try #require(await ann.next("state")?["state"] as? [String: Any])
            #expect(state["eventCount"] as? Int == eventCount, "the replayed game has every event the players were sent")
            #expect(state["current"] as? String == "Bob")
            #expect((state["now"] as? Int ?? -1) >= (before["now"] as? Int ?? .max), "game time goes on from where it stopped")
            bob.send(["type": "join", "room": r.room, "token": bobToken])
            #expect(try #require(await bob.next("joined"))["lastSeq"] as? Int == 1)
            // Ann's seq 2 again is a repeat; Bob's next roll is played.
            #expect(try await ann.roll(seq: 2)["duplicate"] as? Bool == true)
            #expect(try await bob.roll(seq: 2)["duplicate"] == nil)
            let events = try #require(await bob.next("events"))
            #expect(events["first"] as? Int == eventCount)
        }
    }

    /// A room of race.lua where Ann rolled once, its server stopped, race.lua rewritten by
    /// `change`, a new server on the store (returned, for the caller to stop): Ann's client
    /// asking it for her seat with her token.
    func annComingBack(_ rules: String, store: String, change: (String) -> String) async throws -> (ann: TestClient, server: TestServer) {
        let first = try await start(rules, store: store).server
        let r = try await first.twoPlayerRoom("race.lua")
        let token = try #require(r.annJoined["token"] as? String)
        _ = try await r.ann.roll(seq: 1)
        await first.stopAndWait()
        let path = (rules as NSString).appendingPathComponent("race.lua")
        try change(String(contentsOfFile: path, encoding: .utf8)).write(toFile: path, atomically: true, encoding: .utf8)
        let second = try await start(rules, store: store).server
        let ann = try await second.client()
        try await ann.hello()
        ann.send(["type": "join", "room": r.room, "token": token])
        return (ann, second)
    }

    @Test func aRoomWhoseRulesChangedAndPlayDifferentlyIsClosedAndAPlayerComingBackIsToldWhy() async throws {
        try await withRaceFolder { rules, store in
            let (ann, second) = try await annComingBack(rules, store: store) { $0.replacingOccurrences(of: "g:say(\"scores: %s\"", with: "g:say(\"points: %s\"") }
            defer { second.stop() }
            let refused = try #require(await ann.next("error"))
            #expect(refused["code"] as? String == "no-room")
            let text = refused["message"] as? String ?? ""
            #expect(text.contains("race.lua changed") && text.contains("differs at input"), "told why: \(text)")
        }
    }

    @Test func aRoomWhoseRulesChangedButPlayTheSameIsResumed() async throws {
        try await withRaceFolder { rules, store in
            let (ann, second) = try await annComingBack(rules, store: store) { $0 + "\n-- a comment changes the hash, not the play\n" }
            defer { second.stop() }
            #expect(try #require(await ann.next("joined"))["lastSeq"] as? Int == 1)
        }
    }

    @Test func aRoomWhoseRulesFileVanishedIsClosedAndTheOthersReopen() async throws {
        try await withRaceFolder { rules, store in
            let copy = (rules as NSString).appendingPathComponent("race-copy.lua")
            try FileManager.default.copyItem(atPath: (rules as NSString).appendingPathComponent("race.lua"), toPath: copy)
            let first = try await start(rules, store: store).server
            let gone = try await first.twoPlayerRoom("race-copy.lua")
            let kept = try await first.twoPlayerRoom("race.lua")
            _ = try await gone.ann.roll(seq: 1)
            _ = try await kept.ann.roll(seq: 1)
            await first.stopAndWait()
            try FileManager.default.removeItem(atPath: copy)

            let second = try await start(rules, store: store).server
            defer { second.stop() }
            let ann = try await second.client()
            try await ann.hello()
            ann.send(["type": "join", "room": gone.room, "token": try #require(gone.annJoined["token"] as? String)])
            let refused = try #require(await ann.next("error"))
            #expect(refused["code"] as? String == "no-room")
            #expect((refused["message"] as? String)?.contains("race-copy.lua is no longer offered") == true, "\(refused)")
            ann.send(["type": "join", "room": kept.room, "token": try #require(kept.annJoined["token"] as? String)])
            #expect(try #require(await ann.next("joined"))["lastSeq"] as? Int == 1)
        }
    }

    @Test func aStoreFileThatIsNotARoomStoreIsRefusedByName() async throws {
        try await withRaceFolder { rules, store in
            try Data("these are not the rooms you are looking for\n".utf8).write(to: URL(fileURLWithPath: store))
            var configuration = DiceHostServer.Configuration(rulesDirectory: rules, port: 0)
            configuration.store = store
            let error = await #expect(throws: StoreError.self) { try await DiceHostServer(configuration: configuration).run() }
            #expect(error?.description.contains(store) == true && error?.description.contains("not an SQLite database") == true, "\(String(describing: error))")

            try FileManager.default.removeItem(atPath: store)
            let other = try await SQLiteConnection.open(storage: .file(path: store))
            _ = try await other.query("CREATE TABLE notes (text TEXT)")
            try await other.close()
            let notOurs = await #expect(throws: StoreError.self) { try await DiceHostServer(configuration: configuration).run() }
            #expect(notOurs?.description.contains("not a DiceHost room store") == true, "\(String(describing: notOurs))")
        }
    }

    @Test func aSecondServerOnTheSameStoreIsRefusedWhileTheFirstRuns() async throws {
        try await withRaceFolder { rules, store in
            let first = try await start(rules, store: store).server
            defer { first.stop() }
            var configuration = DiceHostServer.Configuration(rulesDirectory: rules, port: 0)
            configuration.store = store
            let error = await #expect(throws: StoreError.self) { try await DiceHostServer(configuration: configuration).run() }
            #expect(error?.description.contains("locked by another process") == true, "\(String(describing: error))")
        }
    }

    @Test func aRoomsInputsAreReadBackInOrderWithTheirSeatsAndHashedTokens() async throws {
        try await withRaceFolder { rules, store in
            let server = try await start(rules, store: store).server
            let r = try await server.twoPlayerRoom("race.lua", fields: ["params": ["target": "1000"]])
            let token = try #require(r.annJoined["token"] as? String)
            for seq in 1...3 {
                _ = try await r.ann.roll(seq: seq)
                _ = try await r.bob.roll(seq: seq)
            }
            await server.stopAndWait()
            let opened = try await SQLiteRoomStore.open(path: store)
            let rooms = try await opened.unfinishedRooms()
            await opened.close()
            let room = try #require(rooms.first { $0.id == r.room })
            #expect(room.params == [["target", "1000"]])
            #expect(room.seats.map(\.name) == ["Ann", "Bob"])
            #expect(room.seats.map(\.lastSeq) == [3, 3])
            #expect(room.seats[0].tokenSHA256 == Room.tokenHash(token) && room.seats[0].tokenSHA256 != token, "the token is stored hashed")
            #expect(room.inputs.map(\.n) == Array(1...Int64(room.inputs.count)))
            #expect(room.inputs.allSatisfy { $0.kind == .json }, "every input is stored typed")
            let rolls = room.inputs.compactMap { try? GameInput(json: $0.line) }.filter { $0.kind == .roll(.random) }
            #expect(rolls.map(\.line) == Array(repeating: ["as Ann roll", "as Bob roll"], count: 3).flatMap { $0 })
            #expect(room.header != nil)
        }
    }
}

/// Group commit against a store that holds its first transaction until told.
@Suite struct GroupCommitTests {
    actor GatedStore: RoomStore {
        nonisolated let location = "gated"
        private var gate: CheckedContinuation<Void, Never>?
        private var opened = false
        private var entered: CheckedContinuation<Void, Never>?
        private(set) var batches: [[[StoreWrite]]] = []
        var failing = false

        func commit(_ batch: [[StoreWrite]]) async throws -> [Int: StoreRefusal] {
            if batches.isEmpty, !opened {
                entered?.resume()
                entered = nil
                await withCheckedContinuation { gate = $0 }
            }
            if failing { throw StoreError("disk full") }
            batches.append(batch)
            return [:]
        }
        /// Returns once the first commit is waiting at the gate.
        func waitUntilHeld() async {
            if gate != nil { return }
            await withCheckedContinuation { entered = $0 }
        }
        func open() { opened = true; gate?.resume(); gate = nil }
        func fail() { failing = true }
        func unfinishedRooms() async throws -> [StoredRoom] { [] }
        func closedReason(room: String) async throws -> String? { nil }
        func close() async {}
    }

    func input(_ room: String, _ n: Int64) -> StoreWrite {
        .input(room: room, StoredInput(n: n, line: "as Ann roll", time: 0, events: "[]"))
    }

    @Test func theListsOfManyRoomsWaitingMeanwhileAreStoredInOneTransaction() async throws {
        let store = GatedStore()
        let commits = GroupCommit(store: store)
        let first = commits.enqueue([input("a", 1)])
        await store.waitUntilHeld()
        let tickets = (1...20).map { commits.enqueue([input("room\($0)", 1), .lastSeq(room: "room\($0)", seat: 0, seq: 1)]) }
        await store.open()
        try await commits.wait(for: first)
        for ticket in tickets { try await commits.wait(for: ticket) }
        let batches = await store.batches
        #expect(batches.count == 2, "one transaction for the first list, one for the twenty that came while it was written")
        #expect(batches.last?.count == 20)
        #expect(batches.last?.allSatisfy { $0.count == 2 } == true, "a list is never split")
    }

    @Test func whenTheStoreCannotWriteEveryWaitingTicketFailsWithTheStoresReason() async throws {
        let store = GatedStore()
        let commits = GroupCommit(store: store)
        let first = commits.enqueue([input("a", 1)])
        await store.waitUntilHeld()
        await store.fail()
        let second = commits.enqueue([input("b", 1)])
        await store.open()
        await #expect(throws: StoreError.self) { try await commits.wait(for: first) }
        let error = await #expect(throws: StoreError.self) { try await commits.wait(for: second) }
        #expect(error?.description.contains("disk full") == true)
    }
}
