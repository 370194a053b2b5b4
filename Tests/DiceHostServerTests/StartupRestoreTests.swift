import DiceHost
@testable import DiceHostServer
import Foundation
import Testing

/// A server on an SQLite store listens before it reopens the rooms it holds (each replayed
/// from every input it had), so its start does not grow with the rooms' age; a client asking
/// for a room not reopened yet has it reopened first and waits for it.
@Suite(.serialized)
struct StartupRestoreTests {
    /// A Race to Space game of Ann and Bob that went on for `ticks` seconds of clock catch-ups
    /// (the die's pulse every 2 s, a turn passed every 30 s): its header, its inputs as the
    /// room writes them, and its event count.
    static func history(rules: String, ticks: Int) throws -> (header: String, inputs: [StoredInput], events: Int) {
        let game = try Game(rulesFile: rules, players: ["Ann", "Bob"], seed: 7)
        game.keepsUndoHistory = false
        let header = GameLog.line(GameLog.Header(game: game))
        var inputs: [StoredInput] = []
        for n in 1...ticks {
            let before = game.events.count
            try game.advance(by: 1000)
            inputs.append(StoredInput(n: Int64(n), line: "tick 1000ms", time: Int64(game.now),
                                      events: GameLog.line(game.events[before...].map(GameLog.json))))
        }
        return (header, inputs, game.forgottenEvents + game.events.count)
    }

    /// Writes `rooms` rooms (`r1`…) of that history into a new store at `path`, Ann's token
    /// in room `rN` being `ann-N`; the game's event count.
    @discardableResult
    static func writeStore(_ path: String, rules: String, rooms: Int, ticks: Int) async throws -> Int {
        let (header, inputs, events) = try history(rules: rules, ticks: ticks)
        let store = try await SQLiteRoomStore.open(path: path)
        for index in 1...rooms {
            let id = "r\(index)"
            let room = StoredRoom(id: id, rulesFile: "race.lua", rulesSHA256: GameLog.sha256(ofFile: rules, limit: Int.max), params: [],
                                  seed: 7, seatCount: 2, deviceRolls: false, created: 1_700_000_000 + Int64(index), header: nil)
            let seats = [StoredSeat(name: "Ann", tokenSHA256: Room.tokenHash("ann-\(index)"), lastSeq: 0),
                         StoredSeat(name: "Bob", tokenSHA256: Room.tokenHash("bob-\(index)"), lastSeq: 0)]
            _ = try await store.commit([[.room(room), .seats(room: id, seats), .start(room: id, header: header)]])
            for chunk in stride(from: 0, to: inputs.count, by: 5000) {
                _ = try await store.commit([inputs[chunk..<min(chunk + 5000, inputs.count)].map { .input(room: id, $0) }])
            }
        }
        await store.close()
        return events
    }

    /// A server on `store`; it and its port once it listens.
    static func start(rules: String, store: String) async throws -> (server: DiceHostServer, port: Int, task: Task<Void, Error>) {
        var configuration = DiceHostServer.Configuration(rulesDirectory: rules, port: 0)
        configuration.store = store
        configuration.logLevel = "critical"
        let server = try DiceHostServer(configuration: configuration)
        let (ports, found) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await server.run { found.yield($0) } }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        return (server, port, task)
    }

    @Test func theServerListensBeforeItReopensItsStoredRoomsAndAClientJoiningOneGetsItsWholeGame() async throws {
        let race = try String(contentsOfFile: TestServer.repositoryRules + "/race.lua", encoding: .utf8)
        try await withRulesFolder(["race.lua": race]) { folder in
            let path = (folder as NSString).appendingPathComponent("rooms.sqlite")
            let events = try await Self.writeStore(path, rules: (folder as NSString).appendingPathComponent("race.lua"), rooms: 3, ticks: 90)
            let (server, port, task) = try await Self.start(rules: folder, store: path)
            defer { task.cancel() }
            let ann = try await TestClient.connect(port: port)
            try await ann.hello()
            ann.send(["type": "join", "room": "r3", "token": "ann-3"])
            let joined = try #require(await ann.next("joined"))
            #expect(joined["seat"] as? Int == 1)
            let stateMessage = await ann.next("state")
            let state = try #require(stateMessage?["state"] as? [String: Any], "\(ann.received.map { $0["type"] ?? "?" }) \(String(describing: stateMessage))")
            #expect(state["eventCount"] as? Int ?? 0 >= events, "the room was replayed whole before Ann was let in")
            let startup = try #require(await server.lobby.startup)
            await startup.finished()
            let log = await startup.log
            #expect(log.first == "listening", "\(log)")
            #expect(Set(log.dropFirst()) == ["reopened r1", "reopened r2", "reopened r3"], "each room reopened once, after the server listened: \(log)")
            #expect(await server.lobby.allRooms.count == 3)
        }
    }

    /// Holds each room's reopening until the test lets it go.
    actor Gates {
        private var open: Set<String> = []
        private var waiting: [String: CheckedContinuation<Void, Never>] = [:]
        func pass(_ id: String) async {
            if open.contains(id) { return }
            await withCheckedContinuation { waiting[id] = $0 }
        }
        func release(_ id: String) {
            open.insert(id)
            waiting.removeValue(forKey: id)?.resume()
        }
        func isWaiting(_ id: String) -> Bool { waiting[id] != nil }
    }

    static func head(_ id: String) -> StoredRoom {
        StoredRoom(id: id, rulesFile: "race.lua", rulesSHA256: "", params: [], seed: 1, seatCount: 2, deviceRolls: false, created: 0, header: nil)
    }

    @Test func aRoomAskedForWhileOthersAreReopenedIsReopenedAtOnceAndItsAskerWaitsForIt() async throws {
        let gates = Gates()
        let startup = StartupRestore(rooms: ["r1", "r2", "r3"].map(Self.head)) { room in
            await gates.pass(room.id)
            return RoomRestorer.Outcome(resumed: [room.id])
        }
        #expect(await startup.holds("r3"))
        await startup.begin { _ in }
        // The background reopening holds at r1; r3 is asked for meanwhile.
        while await !gates.isWaiting("r1") { await Task.yield() }
        let asker = Task { await startup.restore("r3"); return await startup.log }
        while await !gates.isWaiting("r3") { await Task.yield() }
        #expect(await startup.holds("r3"), "being reopened, r3 is not there yet")
        await gates.release("r3")
        let seenByAsker = await asker.value
        #expect(seenByAsker == ["listening", "reopened r3"], "the asker returns once its room is reopened, before r1")
        #expect(await !startup.holds("r3"))
        await gates.release("r1")
        await gates.release("r2")
        await startup.finished()
        #expect(await startup.log == ["listening", "reopened r3", "reopened r1", "reopened r2"], "r3 once, the others in order")
    }
}
