@testable import DiceHostServer
import DiceHost
import Foundation
import SQLiteNIO
import Testing

/// What the room knows beside the game survives a restart on its store (format 3): the
/// creator's turn clock, a seat whose player left, a player ready for another game, a
/// skipped turn; and a format 2 file as the previous server wrote it opens and resumes.
@Suite(.serialized)
struct RoomLifecycleRestartTests {
    func configuration(_ folder: String) -> DiceHostServer.Configuration {
        var configuration = DiceHostServer.Configuration(rulesDirectory: folder, port: 0)
        configuration.store = (folder as NSString).appendingPathComponent("rooms.sqlite")
        return configuration
    }

    static let quick = """
        local q = rules { name = "Quick", players = {3, 3}, dice = "1d6" }
        function q.roll(g, p, r) g:next_turn() end
        q.actions = { win = function(g, p) g:win(p) end }
        return q
        """

    @Test func theCreatorsTurnClockALeftSeatAndAReadyPlayerSurviveARestart() async throws {
        try await withRulesFolder(["quick.lua": Self.quick]) { folder in
            let first = try await TestServer.start(configuration: configuration(folder))
            let ann = try await first.client(), bob = try await first.client(), cy = try await first.client()
            for client in [ann, bob, cy] { try await client.hello() }
            ann.send(["type": "create", "rules": "quick.lua", "seats": 3, "turnSeconds": 45])
            let room = try #require(await ann.next("created")?["room"] as? String, "\(ann.received)")
            var tokens: [String: String] = [:]
            for (name, client) in [("Ann", ann), ("Bob", bob), ("Cy", cy)] {
                client.send(["type": "join", "room": room, "name": name])
                tokens[name] = try #require(await client.next("joined")?["token"] as? String)
            }
            ann.send(["type": "action", "name": "win", "seq": 1])
            _ = try #require(await ann.next("ack"))
            cy.send(["type": "leave"])
            #expect(await cy.next("left") != nil)
            bob.send(["type": "ready", "seq": 1])
            _ = try #require(await bob.next("ack"))
            _ = await ann.drain(for: .milliseconds(300))
            await first.stopAndWait()

            let second = try await TestServer.start(configuration: configuration(folder))
            defer { second.stop() }
            let back = try await second.client()
            try await back.hello()
            back.send(["type": "join", "room": room, "token": tokens["Ann"] ?? ""])
            _ = try #require(await back.next("joined"))
            let state = try #require(await back.next("state")?["state"] as? [String: Any])
            let players = try #require(state["players"] as? [[String: Any]])
            #expect(players.first { $0["name"] as? String == "Cy" }?["left"] as? Bool == true, "\(players)")
            #expect(players.first { $0["name"] as? String == "Bob" }?["ready"] as? Bool == true, "\(players)")
            #expect(players.first { $0["name"] as? String == "Ann" }?["ready"] == nil, "\(players)")
            #expect((state["turnClock"] as? [String: Any])?["seconds"] as? Int == 45, "the creator's clock, not the default: \(state)")
            // Bob's ready was kept: Ann's completes the players still here, and the next game starts.
            back.send(["type": "ready", "seq": 2])
            let next = try #require(await back.next("events"))
            #expect((next["events"] as? [[String: Any]])?.first?["type"] as? String == "start", "\(next)")
        }
    }

    static let skippy = """
        local r = rules { name = "Skippy", players = {3, 3}, dice = "1d6", skip_absent = true }
        function r.turn(g, p) g:say("%s to play", p.name) end
        function r.roll(g, p, roll) g:next_turn() end
        return r
        """

    @Test func rulesWithoutABotSkipASeatWhosePlayerLeftAndARestartReplaysTheSkip() async throws {
        try await withRulesFolder(["skippy.lua": Self.skippy]) { folder in
            let first = try await TestServer.start(configuration: configuration(folder))
            let ann = try await first.client(), bob = try await first.client(), cy = try await first.client()
            for client in [ann, bob, cy] { try await client.hello() }
            ann.send(["type": "create", "rules": "skippy.lua", "seats": 3])
            let room = try #require(await ann.next("created")?["room"] as? String)
            var tokens: [String: String] = [:]
            for (name, client) in [("Ann", ann), ("Bob", bob), ("Cy", cy)] {
                client.send(["type": "join", "room": room, "name": name])
                tokens[name] = try #require(await client.next("joined")?["token"] as? String)
            }
            _ = try await ann.roll(seq: 1)
            bob.send(["type": "leave"])
            #expect(await bob.next("left") != nil)
            var skipped: [String: Any]?
            while skipped == nil, let events = await cy.next("events", timeout: .seconds(5)) {
                if (events["cause"] as? [String: Any])?["by"] as? String == "skip" { skipped = events }
            }
            let cause = try #require(skipped?["cause"] as? [String: Any])
            #expect(cause["player"] as? String == "Bob" && cause["input"] as? String == "skip", "\(cause)")
            let after = try #require(skipped?["state"] as? [String: Any])
            #expect(after["current"] as? String == "Cy")
            let texts = (skipped?["events"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
            #expect(texts.contains("Bob's turn is skipped"), "\(skipped ?? [:])")
            let eventCount = try #require(after["eventCount"] as? Int)
            await first.stopAndWait()

            let second = try await TestServer.start(configuration: configuration(folder))
            defer { second.stop() }
            let back = try await second.client()
            try await back.hello()
            back.send(["type": "join", "room": room, "token": tokens["Cy"] ?? ""])
            #expect(try #require(await back.next("joined"))["rejoined"] as? Bool == true, "the replay gave the stored events")
            let state = try #require(await back.next("state")?["state"] as? [String: Any])
            #expect(state["eventCount"] as? Int == eventCount)
            #expect(state["current"] as? String == "Cy")
        }
    }

    /// A format 2 file as the server before format 3 wrote it (its tables, a Race game of two
    /// inputs with the events the game gave): opened, brought to format 3, and its room resumed.
    @Test func aFormatTwoStoreOpensAsFormatThreeAndItsRoomResumes() async throws {
        let race = try String(contentsOfFile: TestServer.repositoryRules + "/race.lua", encoding: .utf8)
        try await withRulesFolder(["race.lua": race]) { folder in
            let rulesPath = (folder as NSString).appendingPathComponent("race.lua")
            let path = (folder as NSString).appendingPathComponent("rooms.sqlite")
            let game = try Game(rulesFile: rulesPath, players: ["Ann", "Bob"], seed: 7, params: [("target", "1000")])
            let header = GameLog.line(GameLog.Header(game: game))
            var inputs: [(line: String, t: Int, events: String, seat: Int)] = []
            for (seat, name) in [(1, "Ann"), (2, "Bob"), (1, "Ann")] {
                let before = game.events.count
                try game.roll(by: name)
                inputs.append(("as \(name) roll", game.now, GameLog.line(game.events[before...].map(GameLog.json)), seat))
            }
            let sha = SHA256.hex(of: Array(race.utf8))
            let old = try await SQLiteConnection.open(storage: .file(path: path))
            for statement in [
                "CREATE TABLE dicehost_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                "CREATE TABLE rooms (id TEXT PRIMARY KEY, rules TEXT NOT NULL, rules_sha256 TEXT NOT NULL, params TEXT NOT NULL, seed TEXT NOT NULL, seats INTEGER NOT NULL, device_rolls INTEGER NOT NULL, created INTEGER NOT NULL, header TEXT, finished INTEGER, closed_reason TEXT)",
                "CREATE TABLE seats (room TEXT NOT NULL REFERENCES rooms(id), seat INTEGER NOT NULL, name TEXT NOT NULL, token_sha256 TEXT NOT NULL, last_seq INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (room, seat))",
                "CREATE TABLE inputs (room TEXT NOT NULL REFERENCES rooms(id), n INTEGER NOT NULL, input TEXT NOT NULL, t INTEGER NOT NULL, events TEXT NOT NULL, seat INTEGER, seq INTEGER, PRIMARY KEY (room, n))",
                "INSERT INTO dicehost_store VALUES ('format', '2')",
            ] { _ = try await old.query(statement) }
            _ = try await old.query("INSERT INTO rooms VALUES ('old', 'race.lua', ?, '[[\"target\",\"1000\"]]', '7', 2, 0, 1700000000, ?, NULL, NULL)",
                                    [.text(sha), .text(header)])
            for (seat, name) in [(1, "Ann"), (2, "Bob")] {
                _ = try await old.query("INSERT INTO seats VALUES ('old', ?, ?, ?, 0)",
                                        [.integer(seat), .text(name), .text(Room.tokenHash(String(repeating: name.prefix(1).lowercased(), count: 32)))])
            }
            var seqs = [1: 0, 2: 0]
            for (n, input) in inputs.enumerated() {
                seqs[input.seat, default: 0] += 1
                _ = try await old.query("INSERT INTO inputs VALUES ('old', ?, ?, ?, ?, ?, ?)",
                                        [.integer(n + 1), .text(input.line), .integer(input.t), .text(input.events), .integer(input.seat), .integer(seqs[input.seat] ?? 0)])
            }
            try await old.close()

            let server = try await TestServer.start(configuration: configuration(folder))
            let ann = try await server.client()
            try await ann.hello()
            ann.send(["type": "join", "room": "old", "token": String(repeating: "a", count: 32)])
            let joined = try #require(await ann.next("joined"))
            #expect(joined["lastSeq"] as? Int == 2, "\(joined)")
            let state = try #require(await ann.next("state")?["state"] as? [String: Any])
            #expect(state["eventCount"] as? Int == game.events.count, "\(state)")
            #expect(state["current"] as? String == game.currentPlayer)
            await server.stopAndWait()

            let check = try await SQLiteConnection.open(storage: .file(path: path))
            let format = try await check.query("SELECT value FROM dicehost_store WHERE key = 'format'").first?.column("value")?.string
            let kinds = try await check.query("SELECT DISTINCT kind FROM inputs").compactMap { $0.column("kind")?.string }
            try await check.close()
            #expect(format == "3")
            #expect(kinds == ["line"], "the rows written in format 2 are REPL lines")
        }
    }
}
