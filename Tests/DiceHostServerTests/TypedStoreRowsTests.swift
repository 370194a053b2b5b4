@testable import DiceHostServer
import DiceHost
import Foundation
import SQLiteNIO
import Testing

/// Every input a room stores is a typed JSON row (`inputs.kind` = `json`): a seat's rolls
/// and actions, the clock's ticks, a bot's move for a seat whose player left, a skipped
/// turn; a restart on the store replays them, as themselves, to the same game.
@Suite(.serialized)
struct TypedStoreRowsTests {
    func configuration(_ folder: String) -> DiceHostServer.Configuration {
        var configuration = DiceHostServer.Configuration(rulesDirectory: folder, port: 0)
        configuration.store = (folder as NSString).appendingPathComponent("rooms.sqlite")
        return configuration
    }

    /// A timer in every turn (the clock's ticks are inputs), a bot, and an action.
    static let ticky = """
        local t = rules { name = "Ticky", players = {3, 3}, dice = "1d6" }
        function t.turn(g, p) timer.after(20, function(g) g:say("a timer fired") end) end
        function t.roll(g, p, roll) g:next_turn() end
        t.actions = { note = function(g, p, a) g:say("%s noted %s %s", p.name, math.type(a) or type(a), tostring(a)) end }
        function t.bot(g, p) return "roll" end
        return t
        """

    static let skippy = """
        local r = rules { name = "Skippy", players = {3, 3}, dice = "1d6", skip_absent = true }
        function r.turn(g, p) g:say("%s to play", p.name) end
        function r.roll(g, p, roll) g:next_turn() end
        return r
        """

    /// The parts of a state a replay decides (not who is connected, nor the clock's readings).
    static func replayed(_ state: [String: Any]) throws -> String {
        var state = state
        for key in ["turnClock", "clock", "now", "nextTimer", "spectators", "botPlaying", "canAbandon", "connected"] { state[key] = nil }
        if let players = state["players"] as? [[String: Any]] {
            state["players"] = players.map { player in
                var player = player
                for key in ["connected", "left", "status"] { player[key] = nil }
                return player
            }
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: state, options: [.sortedKeys]), as: UTF8.self)
    }

    struct Table {
        var room: String
        var tokens: [String: String]
        var clients: [String: TestClient]
    }

    func seat(_ rules: String, on server: TestServer) async throws -> Table {
        var clients: [String: TestClient] = [:]
        for name in ["Ann", "Bob", "Cy"] {
            let client = try await server.client()
            try await client.hello()
            clients[name] = client
        }
        let ann = try #require(clients["Ann"])
        ann.send(["type": "create", "rules": rules, "seats": 3])
        let room = try #require(await ann.next("created")?["room"] as? String)
        var tokens: [String: String] = [:]
        for name in ["Ann", "Bob", "Cy"] {
            let client = try #require(clients[name])
            client.send(["type": "join", "room": room, "name": name])
            tokens[name] = try #require(await client.next("joined")?["token"] as? String)
        }
        return Table(room: room, tokens: tokens, clients: clients)
    }

    /// The last state `client` was sent.
    func lastState(_ client: TestClient) async -> [String: Any]? {
        let messages = await client.drain(for: .milliseconds(400))
        return messages.last(where: { $0["state"] is [String: Any] })?["state"] as? [String: Any]
    }

    @Test func rollsTicksABotMoveAndASkipAreStoredTypedAndReplayToTheSameGame() async throws {
        try await withRulesFolder(["ticky.lua": Self.ticky, "skippy.lua": Self.skippy]) { folder in
            let first = try await TestServer.start(configuration: configuration(folder))
            let ticky = try await seat("ticky.lua", on: first)
            let ann = try #require(ticky.clients["Ann"]), bob = try #require(ticky.clients["Bob"]), cy = try #require(ticky.clients["Cy"])
            _ = try await ann.roll(seq: 1)
            try await Task.sleep(for: .milliseconds(100))  // Bob's timer fires: a tick
            _ = try await bob.roll(seq: 1)
            _ = try await cy.roll(seq: 1)
            ann.send(["type": "action", "name": "note", "args": ["07"], "seq": 2])
            _ = try #require(await ann.next("ack"))
            bob.send(["type": "leave"])
            #expect(await bob.next("left") != nil)
            // Ann rolls: Bob's seat is played by the bot at once, then Cy's turn.
            _ = try await ann.roll(seq: 3)
            var botMoved: [String: Any]?
            while botMoved == nil, let events = await cy.next("events", timeout: .seconds(10)) {
                if (events["cause"] as? [String: Any])?["by"] as? String == "bot" { botMoved = events["state"] as? [String: Any] }
            }
            // The state after the bot's move, or after a timer that fired since.
            let tickyBefore = try #require(await lastState(cy) ?? botMoved)

            let skippy = try await seat("skippy.lua", on: first)
            _ = try await #require(skippy.clients["Ann"]).roll(seq: 1)
            let skippyBob = try #require(skippy.clients["Bob"]), skippyCy = try #require(skippy.clients["Cy"])
            skippyBob.send(["type": "leave"])
            #expect(await skippyBob.next("left") != nil)
            var skipped: [String: Any]?
            while skipped == nil, let events = await skippyCy.next("events", timeout: .seconds(10)) {
                if (events["cause"] as? [String: Any])?["by"] as? String == "skip" { skipped = events["state"] as? [String: Any] }
            }
            let skippyBefore = try #require(await lastState(skippyCy) ?? skipped)
            await first.stopAndWait()

            let path = (folder as NSString).appendingPathComponent("rooms.sqlite")
            let store = try await SQLiteConnection.open(storage: .file(path: path))
            let rows = try await store.query("SELECT room, kind, input FROM inputs ORDER BY room, n").map {
                (room: $0.column("room")?.string ?? "", kind: $0.column("kind")?.string ?? "", input: $0.column("input")?.string ?? "")
            }
            try await store.close()
            #expect(!rows.isEmpty && rows.allSatisfy { $0.kind == "json" }, "\(rows)")
            let types = Set(rows.compactMap { try? GameInput(json: $0.input) }.map { input -> String in
                switch input.kind {
                case .roll: return "roll"
                case .tick: return "tick"
                case .bot: return "bot"
                case .skip: return "skip"
                case .action(_, let arguments): return arguments == [.string("07")] ? "action 07" : "action"
                default: return "other"
                }
            })
            #expect(types == ["roll", "tick", "bot", "skip", "action 07"], "\(rows)")

            let second = try await TestServer.start(configuration: configuration(folder))
            defer { second.stop() }
            for (table, before) in [(ticky, tickyBefore), (skippy, skippyBefore)] {
                let back = try await second.client()
                try await back.hello()
                back.send(["type": "join", "room": table.room, "token": table.tokens["Cy"] ?? ""])
                #expect(try #require(await back.next("joined"))["rejoined"] as? Bool == true, "the replay gave the stored events")
                let state = try #require(await back.next("state")?["state"] as? [String: Any])
                #expect(try Self.replayed(state) == Self.replayed(before))
            }
        }
    }
}
