import DiceHost
import DiceHostServer
import Foundation
import Testing

/// Per-seat messages (docs/protocol.md): each connection receives its seat's view and the
/// events addressed to it or to everyone; spectators the public view; a reconnect with
/// the token replays only what that seat may see.
@Suite(.serialized)
struct SeatViewProtocolTests {
    /// Every message a client read, as text, to search for what must not be there.
    static func texts(_ client: TestClient) -> [String] {
        client.received.compactMap { object in
            (try? JSONSerialization.data(withJSONObject: object)).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// The events a client received, in order.
    static func events(_ client: TestClient) -> [[String: Any]] {
        client.received.flatMap { ($0["events"] as? [[String: Any]]) ?? [] }
    }

    /// The cup a view shows for `player`.
    static func cup(in state: [String: Any]?, of player: String) -> [String: Any]? {
        let players = ((state?["view"] as? [String: Any])?["players"] as? [[String: Any]]) ?? []
        return players.first { $0["name"] as? String == player }?["cup"] as? [String: Any]
    }

    /// Reads until an `events` message in which it becomes `player`'s turn.
    static func turn(of player: String, _ client: TestClient) async -> [String: Any]? {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, let message = await client.next("events", timeout: deadline - ContinuousClock.now) {
            let events = (message["events"] as? [[String: Any]]) ?? []
            if events.contains(where: { $0["type"] as? String == "turn" && $0["player"] as? String == player }) { return message }
        }
        return nil
    }

    /// Reads until an `events` message holding an event of `type`.
    static func events(of type: String, _ client: TestClient) async -> [String: Any]? {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, let message = await client.next("events", timeout: deadline - ContinuousClock.now) {
            if ((message["events"] as? [[String: Any]]) ?? []).contains(where: { $0["type"] as? String == type }) { return message }
        }
        return nil
    }

    @Test func eachSeatSeesOnlyItsOwnCupAndSpectatorsNone() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ann = try await server.client(), bob = try await server.client(), eve = try await server.client()
        for c in [ann, bob, eve] { try await c.hello() }
        ann.send(["type": "create", "rules": "liars-dice.lua", "seats": 2])
        let room = try #require(await ann.next("created")?["room"] as? String)
        ann.send(["type": "join", "room": room, "name": "Ann"])
        let token = try #require(await ann.next("joined")?["token"] as? String)
        eve.send(["type": "watch", "room": room])
        _ = try #require(await eve.next("watching"))
        bob.send(["type": "join", "room": room, "name": "Bob"])
        _ = try #require(await bob.next("joined"))
        _ = await Self.turn(of: "Ann", ann)

        ann.send(["type": "roll", "seq": 1])
        let annSees = try #require(await ann.next("events"))
        let annRoll = try #require((annSees["events"] as? [[String: Any]])?.first { $0["type"] as? String == "roll" })
        let values = try #require(annRoll["values"] as? [Int])
        #expect(values.count == 5 && annRoll["to"] as? [String] == ["Ann"])
        #expect(Self.cup(in: annSees["state"] as? [String: Any], of: "Ann")?["kind"] as? String == "roll")

        for other in [bob, eve] {
            let seen = try #require(await Self.events(of: "roll", other))
            let roll = try #require((seen["events"] as? [[String: Any]])?.first { $0["type"] as? String == "roll" })
            #expect(roll["hidden"] as? Bool == true && roll["dice"] as? Int == 5 && roll["values"] == nil)
            #expect(Self.cup(in: seen["state"] as? [String: Any], of: "Ann")?["kind"] as? String == "hidden")
            #expect((seen["state"] as? [String: Any])?["lastRoll"].flatMap { ($0 as? [String: Any])?["values"] } == nil)
            #expect(!Self.texts(other).contains { $0.contains("your cup") })
        }

        bob.send(["type": "roll", "seq": 1])
        let bobSees = try #require(await bob.next("events"))
        #expect(Self.cup(in: bobSees["state"] as? [String: Any], of: "Bob")?["kind"] as? String == "roll")
        #expect(Self.cup(in: bobSees["state"] as? [String: Any], of: "Ann")?["kind"] as? String == "hidden")
        _ = await ann.next("events")
        _ = await eve.next("events")

        // Ann comes back with her token: the replay holds her cup, never Bob's.
        ann.close()
        let again = try await server.client()
        try await again.hello()
        again.send(["type": "join", "room": room, "token": token])
        _ = try #require(await again.next("joined"))
        let replay = try #require(await again.next("state"))
        let replayed = (replay["events"] as? [[String: Any]]) ?? []
        let rolls = replayed.filter { $0["type"] as? String == "roll" }
        #expect(rolls.count == 2)
        #expect(rolls.first { $0["player"] as? String == "Ann" }?["values"] as? [Int] == values)
        #expect(rolls.first { $0["player"] as? String == "Bob" }?["hidden"] as? Bool == true)
        #expect(rolls.first { $0["player"] as? String == "Bob" }?["values"] == nil)
        #expect(Self.cup(in: replay["state"] as? [String: Any], of: "Bob")?["kind"] as? String == "hidden")
        #expect(replayed.filter { $0["to"] != nil }.allSatisfy { ($0["to"] as? [String])?.contains("Ann") == true })

        // Bids and a call: the reveal is public, so every seat sees every cup in its events;
        // the rules keep no history in g, so the next round's view has no cup yet.
        again.send(["type": "action", "seq": 2, "name": "bid", "args": [1, 2]])
        _ = try #require(await Self.turn(of: "Bob", bob))
        bob.send(["type": "action", "seq": 2, "name": "liar", "args": []])
        let shown = try #require(await Self.events(of: "reveal", eve))
        let reveals = (shown["events"] as? [[String: Any]])?.filter { $0["type"] as? String == "reveal" } ?? []
        #expect(reveals.count == 2)
        #expect(reveals.first { $0["player"] as? String == "Ann" }?["values"] as? [Int] == values.sorted())
        #expect(reveals.first { $0["player"] as? String == "Bob" }?["values"] as? [Int] != nil)
        let annAfter = ((shown["state"] as? [String: Any])?["view"] as? [String: Any])?["players"] as? [[String: Any]]
        #expect(annAfter?.first { $0["name"] as? String == "Ann" }?["rolled"] as? Bool == false)
        #expect(Self.cup(in: shown["state"] as? [String: Any], of: "Ann") == nil)
        // No state a spectator received ever held the designer's `summary` of every table.
        #expect(!Self.texts(eve).contains { $0.contains("\"summary\"") })
        for c in [again, bob, eve] { c.close() }
    }

    /// Secret rolls and no view hook: the state's view (the host's default, g.state and
    /// the players) shows another seat's `last_roll` as a hidden cup, never its values.
    @Test func withoutAViewHookAServedSeatNeverReceivesAnotherSeatsSecretRoll() async throws {
        let rules = """
            local r = rules { name = "Open cup", players = {2, 2}, dice = "3d6", secret_rolls = true }
            function r.roll(g, p, r) g.state.rolls = (g.state.rolls or 0) + 1; g:next_turn() end
            return r
            """
        try await withRulesFolder(["open-cup.lua": rules]) { folder in
            let server = try await TestServer.start(rules: folder)
            defer { server.stop() }
            let table = try await server.twoPlayerRoom("open-cup.lua")
            let eve = try await server.client()
            try await eve.hello()
            eve.send(["type": "watch", "room": table.room])
            _ = try #require(await eve.next("watching"))
            _ = await Self.turn(of: "Ann", table.ann)
            table.ann.send(["type": "roll", "seq": 1])
            let annSees = try #require(await table.ann.next("events"))
            let annState = annSees["state"] as? [String: Any]
            let annPlayers = ((annState?["view"] as? [String: Any])?["players"] as? [[String: Any]]) ?? []
            let own = try #require(annPlayers.first?["last_roll"] as? [String: Any])
            #expect(own["kind"] as? String == "roll" && (own["values"] as? [Int])?.count == 3)

            for other in [table.bob, eve] {
                let seen = try #require(await Self.events(of: "roll", other))
                let state = seen["state"] as? [String: Any]
                let players = ((state?["view"] as? [String: Any])?["players"] as? [[String: Any]]) ?? []
                let cup = try #require(players.first?["last_roll"] as? [String: Any])
                #expect(cup["kind"] as? String == "hidden" && cup["what"] as? String == "dice" && cup["count"] as? Int == 3)
                #expect(((state?["view"] as? [String: Any])?["state"] as? [String: Any])?["rolls"] as? Int == 1)
                // No roll of Ann's with its values anywhere in what this client read.
                #expect(!Self.texts(other).contains { $0.contains("\"kind\":\"roll\"") || $0.contains("\"values\"") })
            }
            table.ann.close(); table.bob.close(); eve.close()
        }
    }

    @Test func aGameWithoutDiceSaysSoAndSnapStacksAreCountsOnly() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let seated = try await server.twoPlayerRoom("snap.lua")
        let (ann, bob) = (seated.ann, seated.bob)
        let started = try #require(await Self.turn(of: "Ann", bob))
        let state = try #require(started["state"] as? [String: Any])
        #expect((state["rules"] as? [String: Any])?["hasDice"] as? Bool == false)
        let stack = ((state["view"] as? [String: Any])?["players"] as? [[String: Any]])?.first?["stack"] as? [String: Any]
        #expect(stack?["kind"] as? String == "hidden" && stack?["what"] as? String == "cards" && stack?["count"] as? Int == 26)
        // Nothing a client received lists a face-down card.
        #expect(!Self.texts(bob).contains { $0.contains("\"rank\"") })
        ann.close(); bob.close()
    }
}
