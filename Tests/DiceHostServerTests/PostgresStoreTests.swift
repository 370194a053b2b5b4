@testable import DiceHostServer
import Foundation
import Testing

/// The PostgreSQL room store (`serve --store postgres://…`) that several processes share,
/// against a real PostgreSQL (a throwaway server, one for the test process, a database a
/// test): one owner a room through a lease with a fencing epoch, takeover by replaying,
/// the lobby of every process, and clear messages for an address that cannot be used.
@Suite(.serialized, .enabled(if: ThrowawayPostgres.isInstalled, Comment(rawValue: ThrowawayPostgres.notInstalled)))
struct PostgresStoreTests {
    func start(store: String, lease: Double = 5) async throws -> TestServer {
        var configuration = DiceHostServer.Configuration(rulesDirectory: TestServer.repositoryRules, port: 0)
        configuration.store = store
        configuration.leaseSeconds = lease
        return try await TestServer.start(configuration: configuration)
    }

    func header(_ id: String) -> StoredRoom {
        StoredRoom(id: id, rulesFile: "race.lua", rulesSHA256: "00", params: [], seed: 1, seatCount: 2, deviceRolls: false, created: 0)
    }

    func input(_ room: String, _ n: Int64) -> StoreWrite {
        .input(room: room, StoredInput(n: n, line: "as Ann roll", time: n * 10, events: "[]"))
    }

    @Test func aRoomPlayedOnOneProcessIsTakenOverByAnotherWithItsTokensAndGameOnceTheFirstStops() async throws {
        let url = try await ThrowawayPostgres.database()
        let first = try await start(store: url), second = try await start(store: url)
        defer { second.stop() }
        let r = try await first.twoPlayerRoom("race.lua", fields: ["params": ["target": "1000"]])
        let annToken = try #require(r.annJoined["token"] as? String)
        _ = try await r.ann.roll(seq: 1)
        _ = try await r.bob.roll(seq: 1)
        _ = try await r.ann.roll(seq: 2)

        // While the first process owns the room, the second refuses it: the balancer erred.
        let early = try await second.client()
        try await early.hello()
        early.send(["type": "join", "room": r.room, "token": annToken])
        let refused = try #require(await early.next("error"))
        #expect(refused["code"] as? String == "owned-elsewhere", "\(refused)")

        await first.stopAndWait()  // lets go of its leases: the room is free at once
        // All the first process sent Ann before its socket closed: the die's pulse timer may
        // have added events after her last roll on a slow machine.
        _ = await r.ann.drain(for: .seconds(30))
        let last = try #require(r.ann.received.last { $0["type"] as? String == "events" })
        let eventCount = try #require((last["state"] as? [String: Any])?["eventCount"] as? Int)
        let ann = try await second.client()
        try await ann.hello()
        ann.send(["type": "join", "room": r.room, "token": annToken])
        let joined = try #require(await ann.next("joined"))
        #expect(joined["seat"] as? Int == 1 && joined["lastSeq"] as? Int == 2, "the token works on the other process: \(joined)")
        let state = try #require(await ann.next("state")?["state"] as? [String: Any])
        #expect(state["eventCount"] as? Int == eventCount, "the replayed game has every event the players were sent")
        #expect(state["current"] as? String == "Bob")
        let rows = try await ThrowawayPostgres.query(url, "SELECT DISTINCT epoch::text FROM inputs WHERE room = '\(r.room)' ORDER BY 1")
        #expect(rows == ["1"], "every input so far written under the first owner's epoch")
    }

    @Test func twoStoresRacingForOneRoomExactlyOneWinsTheLease() async throws {
        let url = try await ThrowawayPostgres.database()
        let creator = try await PostgresRoomStore.open(address: url)
        #expect(try await creator.commit([[.room(header("race1"))], [input("race1", 1)]]).isEmpty)
        await creator.close()  // the room is stored, its lease free
        let a = try await PostgresRoomStore.open(address: url), b = try await PostgresRoomStore.open(address: url)
        async let first = a.takeOver(room: "race1")
        async let second = b.takeOver(room: "race1")
        let outcomes = try await [first, second]
        let taken = outcomes.filter { if case .taken = $0 { return true } else { return false } }
        let refused = outcomes.filter { if case .ownedElsewhere = $0 { return true } else { return false } }
        #expect(taken.count == 1 && refused.count == 1, "\(outcomes)")
        if case .taken(let room) = taken.first { #expect(room.inputs.map(\.n) == [1]) }
        #expect(try await ThrowawayPostgres.query(url, "SELECT epoch::text FROM room_leases WHERE room = 'race1'") == ["2"])
        await a.close()
        await b.close()
    }

    @Test func aStoreWhoseLeaseWasTakenOverHasItsNextAppendRefusedAndWritesNothing() async throws {
        let url = try await ThrowawayPostgres.database()
        // The first owner's heartbeat is stopped (a paused process): its lease lapses.
        let paused = try await PostgresRoomStore.open(address: url, leaseSeconds: 0.5)
        #expect(try await paused.commit([[.room(header("fence"))], [input("fence", 1)], [.room(header("kept"))]]).isEmpty)
        let successor = try await PostgresRoomStore.open(address: url, leaseSeconds: 0.5)
        var outcome = try await successor.takeOver(room: "fence")
        if case .ownedElsewhere = outcome {
            try await Task.sleep(for: .milliseconds(700))
            outcome = try await successor.takeOver(room: "fence")
        }
        guard case .taken(let room) = outcome else { Issue.record("the lapsed lease was not taken: \(outcome)"); return }
        #expect(room.inputs.map(\.n) == [1])

        // The paused process wakes up and appends: refused by the epoch check, nothing written;
        // its room nobody took over (its lease lapsed too) is written in the same transaction.
        let refused = try await paused.commit([[input("kept", 1)], [input("fence", 2)], [input("never-held", 1)]])
        #expect(refused == [1: StoreRefusal(room: "fence", kind: .moved), 2: StoreRefusal(room: "never-held", kind: .moved)])
        #expect(try await ThrowawayPostgres.query(url, "SELECT n::text FROM inputs WHERE room = 'kept'") == ["1"])
        #expect(paused.heldLeases["fence"] == nil)
        #expect(try await successor.commit([[input("fence", 2)]]).isEmpty, "the new owner appends")
        let rows = try await ThrowawayPostgres.query(url, "SELECT n || ' ' || epoch || ' ' || (owner = '\(successor.owner)') FROM inputs WHERE room = 'fence' ORDER BY n")
        #expect(rows == ["1 1 false", "2 2 true"], "no row of the stale epoch after the takeover")
        #expect(try await paused.renewLeases().isEmpty, "fence was already counted lost; kept is renewed")
        #expect(paused.heldLeases == ["kept": 1])
        await paused.close()
        await successor.close()
    }

    @Test func aServerWhoseRoomWasTakenOverClosesItAndTellsItsPlayersItMoved() async throws {
        let url = try await ThrowawayPostgres.database()
        let server = try await start(store: url, lease: 60)
        defer { server.stop() }
        let r = try await server.twoPlayerRoom("race.lua", fields: ["params": ["target": "1000"]])
        _ = try await r.ann.roll(seq: 1)
        // Another process took the lease over (as after a pause longer than the lease).
        try await ThrowawayPostgres.query(url, "UPDATE room_leases SET owner = 'elsewhere', epoch = epoch + 1 RETURNING room")
        r.bob.send(["type": "roll", "seq": 1])
        let moved = try #require(await r.bob.next("error"))
        #expect(moved["code"] as? String == "moved", "\(moved)")
        #expect(r.bob.received.contains { $0["type"] as? String == "ack" } == false, "the refused input is not acknowledged")
        let rows = try await ThrowawayPostgres.query(url, "SELECT (input::json)->>'seat' FROM inputs WHERE room = '\(r.room)' AND kind = 'json' AND (input::json)->>'type' = 'roll' ORDER BY n")
        #expect(rows == ["Ann"], "Bob's roll was not written under the lost epoch")
        // The same room asked for again here: another process owns it now.
        let again = try await server.client()
        try await again.hello()
        again.send(["type": "watch", "room": r.room])
        #expect(try #require(await again.next("error"))["code"] as? String == "owned-elsewhere")
    }

    @Test func aServerFindsAtItsNextHeartbeatThatItsRoomWasTakenOverAndSendsItsPlayersOn() async throws {
        let url = try await ThrowawayPostgres.database()
        let server = try await start(store: url, lease: 2)
        defer { server.stop() }
        let r = try await server.twoPlayerRoom("race.lua", fields: ["params": ["target": "1000"]])
        _ = try await r.ann.roll(seq: 1)
        try await ThrowawayPostgres.query(url, "UPDATE room_leases SET owner = 'elsewhere', epoch = epoch + 1 RETURNING room")
        // Nobody plays: the heartbeat (every half second here) finds the lease gone.
        let moved = try #require(await r.ann.next("error"))
        #expect(moved["code"] as? String == "moved", "\(moved)")
        _ = await r.ann.drain(for: .milliseconds(500))
        #expect(r.ann.closed, "the connection is closed so the client reconnects")
    }

    @Test func theLobbyListsTheRoomsOfEveryProcess() async throws {
        let url = try await ThrowawayPostgres.database()
        let first = try await start(store: url), second = try await start(store: url)
        defer { first.stop(); second.stop() }
        let a = try await first.twoPlayerRoom("race.lua")
        let b = try await second.twoPlayerRoom("snap.lua")
        _ = try #require(await b.bob.next("events"), "the game started (its start is stored before its events are sent)")
        let lobby = try await first.client()
        try await lobby.hello()
        lobby.send(["type": "rooms"])
        let rooms = try #require(await lobby.next("rooms")?["rooms"] as? [[String: Any]])
        #expect(Set(rooms.compactMap { $0["room"] as? String }) == [a.room, b.room])
        let other = try #require(rooms.first { $0["room"] as? String == b.room })
        #expect(other["rules"] as? String == "snap.lua" && other["players"] as? [String] == ["Ann", "Bob"] && other["phase"] as? String == "playing")
    }

    @Test func aRoomIdAnotherProcessHoldsCannotBeCreatedAgain() async throws {
        let url = try await ThrowawayPostgres.database()
        let first = try await start(store: url), second = try await start(store: url)
        defer { first.stop(); second.stop() }
        let creator = try await first.client(), other = try await second.client()
        try await creator.hello()
        try await other.hello()
        creator.send(["type": "create", "rules": "race.lua", "room": "same"])
        _ = try #require(await creator.next("created"))
        other.send(["type": "create", "rules": "race.lua", "room": "same"])
        #expect(try #require(await other.next("error"))["code"] as? String == "room-exists")
    }

    @Test func aFullServerTakesNoRoomOverAndLeavesItsLeaseFree() async throws {
        let url = try await ThrowawayPostgres.database()
        let first = try await start(store: url)
        var configuration = DiceHostServer.Configuration(rulesDirectory: TestServer.repositoryRules, port: 0)
        configuration.store = url
        configuration.limits.rooms = 1
        let full = try await TestServer.start(configuration: configuration)
        defer { full.stop() }
        let r = try await first.twoPlayerRoom("race.lua", fields: ["params": ["target": "1000"]])
        let annToken = try #require(r.annJoined["token"] as? String)
        _ = try await r.ann.roll(seq: 1)
        let own = try await full.client()
        try await own.hello()
        own.send(["type": "create", "rules": "race.lua", "room": "its-own"])
        _ = try #require(await own.next("created"))
        await first.stopAndWait()  // lets go of its leases: the room is free at once
        // All the first process sent Ann before its socket closed: the die's pulse timer may
        // have added events after her last roll on a slow machine.
        _ = await r.ann.drain(for: .seconds(30))
        let last = try #require(r.ann.received.last { $0["type"] as? String == "events" })
        let eventCount = try #require((last["state"] as? [String: Any])?["eventCount"] as? Int)

        let ann = try await full.client()
        try await ann.hello()
        ann.send(["type": "join", "room": r.room, "token": annToken])
        let refused = try #require(await ann.next("error"))
        #expect(refused["code"] as? String == "server-full", "\(refused)")
        let epochs = try await ThrowawayPostgres.query(url, "SELECT epoch::text FROM room_leases WHERE room = '\(r.room)'")
        #expect(epochs == ["1"], "the full server took no lease: \(epochs)")
    }

    @Test func aDatabaseThatGoesAwayMidGameClosesTheRoomUnacknowledgedAndTheServerPlaysOnOnceItIsBack() async throws {
        let url = try await ThrowawayPostgres.database()
        let database = String(url[url.index(after: try #require(url.lastIndex(of: "/")))...])
        let admin = String(url.dropLast(database.count)) + "dicehost"  // the server's first database
        let server = try await start(store: url, lease: 60)
        defer { server.stop() }
        let r = try await server.twoPlayerRoom("race.lua", fields: ["params": ["target": "1000"]])
        _ = try await r.ann.roll(seq: 1)

        // The database goes away: no new connections, and the server's are cut.
        try await ThrowawayPostgres.query(admin, "ALTER DATABASE \(database) ALLOW_CONNECTIONS false")
        try await ThrowawayPostgres.query(admin, "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE datname = '\(database)'")
        r.bob.send(["type": "roll", "seq": 1])
        let failed = try #require(await r.bob.next("error", timeout: .seconds(30)))
        #expect(failed["code"] as? String == "store-failed", "\(failed)")
        #expect(!r.bob.received.contains { $0["type"] as? String == "ack" || $0["ack"] != nil },
                "an input the store could not write is never acknowledged")

        // The process keeps running and answers (the lobby lists its own rooms meanwhile);
        // once the database is back, play goes on.
        let later = try await server.client()
        try await later.hello()
        later.send(["type": "rooms"])
        #expect(await later.next("rooms", timeout: .seconds(30)) != nil, "the lobby answers while the database is away")
        try await ThrowawayPostgres.query(admin, "ALTER DATABASE \(database) ALLOW_CONNECTIONS true")
        let again = try await server.twoPlayerRoom("race.lua", fields: ["params": ["target": "1000"]])
        _ = try await again.ann.roll(seq: 1)
        // Bob's roll was never acknowledged; the store may have it after all (the write went
        // on once the database was back), but only whole: with his sequence number.
        let rows = try await ThrowawayPostgres.query(url, "SELECT (input::json)->>'seat' FROM inputs WHERE room = '\(r.room)' AND kind = 'json' AND (input::json)->>'type' = 'roll' ORDER BY n")
        let bobSeq = try await ThrowawayPostgres.query(url, "SELECT last_seq::text FROM seats WHERE room = '\(r.room)' AND name = 'Bob'")
        #expect(rows == ["Ann"] && bobSeq == ["0"] || rows == ["Ann", "Bob"] && bobSeq == ["1"], "\(rows) \(bobSeq)")
    }

    @Test func anAddressThatCannotBeUsedIsRefusedNamingItWithoutThePassword() async throws {
        let url = try await ThrowawayPostgres.database()
        let address = try PostgresAddress(url)
        let password = try #require(address.password)
        for (text, expected) in [("postgres://", "names no user"), ("postgres://ann@/db", "names no host"),
                                 ("postgres://ann:pw@localhost:5432", "names no database"), ("postgres://ann@h/db?sslmode=maybe", "sslmode")] {
            let error = await #expect(throws: StoreError.self) { try await PostgresRoomStore.open(address: text) }
            #expect(error?.description.contains(expected) == true, "\(text): \(String(describing: error))")
        }
        var wrong = address
        wrong.password = "not-" + password
        let refused = await #expect(throws: StoreError.self) {
            try await PostgresRoomStore.open(address: "postgres://\(wrong.user):\(wrong.password ?? "")@\(wrong.host):\(wrong.port)/\(wrong.database)")
        }
        let text = refused?.description ?? ""
        #expect(text.contains("password authentication failed") && text.contains(address.description), "\(text)")
        #expect(!text.contains(password), "the password is never shown")
        // Nothing listens on a port just freed.
        let closed = freePort()
        let unreachable = await #expect(throws: StoreError.self) {
            try await PostgresRoomStore.open(address: "postgres://ann:secret@127.0.0.1:\(closed)/db")
        }
        let unreachableText = unreachable?.description ?? ""
        #expect(unreachableText.contains("postgres://ann@127.0.0.1:\(closed)/db") && unreachableText.contains("cannot be reached"), "\(unreachableText)")
        #expect(!unreachableText.contains("secret"))
    }

    @Test func aDatabaseWithTablesOfOurNamesButAnotherSchemaIsRefusedNamingTheTable() async throws {
        let url = try await ThrowawayPostgres.database()
        try await ThrowawayPostgres.query(url, "CREATE TABLE rooms (id integer, title text)")
        let error = await #expect(throws: StoreError.self) { try await PostgresRoomStore.open(address: url) }
        let text = error?.description ?? ""
        #expect(text.contains("table rooms") && text.contains("not a DiceHost room store"), "\(text)")
    }

    /// A loopback port nothing listens on (bound, then let go).
    func freePort() -> String {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return String(UInt16(bigEndian: address.sin_port))
    }
}

/// `--store postgres://…` addresses, read without a database.
@Suite struct PostgresAddressTests {
    @Test func bothSchemesAndPercentEncodedCredentialsAreReadAndThePasswordIsNeverShown() throws {
        let address = try PostgresAddress("postgresql://dice%40host:p%3Ass@db.example:6543/rooms?sslmode=require")
        #expect(address.user == "dice@host" && address.password == "p:ss" && address.host == "db.example")
        #expect(address.port == 6543 && address.database == "rooms" && address.sslMode == "require")
        #expect(address.description == "postgres://dice@host@db.example:6543/rooms")
        #expect(try PostgresAddress("postgres://ann@localhost/games").port == 5432, "the default port")
        #expect(PostgresAddress.isPostgres("rooms.sqlite") == false && PostgresAddress.isPostgres("POSTGRES://a@b/c"))
    }

    @Test func aBadAddressNamesWhatIsWrongWithoutThePassword() {
        for (text, expected) in [("postgres://ann:hunter2@db.example/", "names no database"), ("postgres://ann:hunter2@db.example:0/x", "port"),
                                 ("postgres://ann:hunter2@db.example/x?timeout=3", "unknown option 'timeout'"),
                                 ("postgres://ann:hunter2@db.example/a/b", "more than one path part")] {
            #expect {
                try PostgresAddress(text)
            } throws: { error in
                let message = "\(error)"
                return message.contains(expected) && !message.contains("hunter2") && message.contains("ann:***@db.example")
            }
        }
    }
}
