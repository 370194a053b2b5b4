@testable import DiceHostServer
import Foundation
import Testing

/// Another game once one is over: when every player still seated is ready (`restart` is
/// read as `ready`), or when the play-again clock runs out with enough players ready.
@Suite(.serialized)
struct PlayAgainTests {
    @Test func theNextGameWaitsUntilEveryPlayerIsReadyAndRestartIsReadAsReady() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let r = try await server.twoPlayerRoom("race.lua", fields: ["params": ["target": "1"]])
        _ = try await r.ann.roll(seq: 1)
        let over = try #require(await r.ann.next("events")?["state"] as? [String: Any])
        #expect(over["phase"] as? String == "over")
        let wait = try #require(over["turnClock"] as? [String: Any], "the play-again wait is timed: \(over)")
        #expect(wait["player"] is NSNull && wait["seconds"] as? Int == 60, "\(wait)")

        _ = await r.ann.drain(for: .milliseconds(100))
        r.ann.send(["type": "ready", "seq": 2])
        _ = try #require(await r.ann.next("ack"))
        let waiting = try #require(await r.ann.next("state")?["state"] as? [String: Any])
        #expect(waiting["phase"] as? String == "over", "Bob is not ready yet")
        let players = try #require(waiting["players"] as? [[String: Any]])
        #expect(players.map { $0["ready"] as? Bool ?? false } == [true, false], "\(players)")

        r.bob.send(["type": "restart", "seq": 1])
        _ = try #require(await r.bob.next("ack"))
        let next = try #require(await r.bob.next("events"))
        #expect((next["events"] as? [[String: Any]])?.first?["type"] as? String == "start", "a fresh log: the new game's first event is its start")
        let state = try #require(next["state"] as? [String: Any])
        #expect(state["phase"] as? String == "playing")
        #expect((state["players"] as? [[String: Any]])?.allSatisfy { $0["ready"] == nil } == true, "ready is for one game")
    }

    @Test func thePlayAgainClockStartsTheNextGameWithTheRulesMinimumReady() async throws {
        let server = try await TestServer.start(limits: AbsentPlayerTests.quickClock)
        defer { server.stop() }
        let ann = try await server.client(), bob = try await server.client(), cy = try await server.client()
        for client in [ann, bob, cy] { try await client.hello() }
        ann.send(["type": "create", "rules": "race.lua", "seats": 3, "params": ["target": "1"]])
        let room = try #require(await ann.next("created")?["room"] as? String)
        for (name, client) in [("Ann", ann), ("Bob", bob), ("Cy", cy)] {
            client.send(["type": "join", "room": room, "name": name])
            _ = try #require(await client.next("joined"))
        }
        // Ann rolls (or, on a slow machine, the bot for her after a second): the first roll wins.
        ann.send(["type": "roll", "seq": 1])
        var over = false
        while !over, let message = await bob.next(timeout: .seconds(15)) {
            over = (message["state"] as? [String: Any])?["phase"] as? String == "over"
        }
        #expect(over)
        ann.send(["type": "ready", "seq": 2])
        bob.send(["type": "ready", "seq": 1])
        // Cy never says ready; two are the rules' minimum, and after a second the next game starts.
        var started: [String: Any]?
        while started == nil, let events = await cy.next("events", timeout: .seconds(15)) {
            if (events["events"] as? [[String: Any]])?.contains(where: { $0["type"] as? String == "start" }) == true { started = events }
        }
        #expect((started?["state"] as? [String: Any])?["phase"] as? String == "playing")
    }

    @Test func createTakesTurnSecondsInItsRangeAndNoClockWithZero() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ann = try await server.client()
        try await ann.hello()
        for bad in [5, 3601, -1] {
            ann.send(["type": "create", "rules": "race.lua", "turnSeconds": bad])
            let error = try #require(await ann.next("error"))
            #expect(error["code"] as? String == "bad-field" && (error["message"] as? String)?.contains("turnSeconds") == true, "\(error)")
        }
        let r = try await server.twoPlayerRoom("race.lua", fields: ["turnSeconds": 0])
        let state = try #require(await r.bob.next("events")?["state"] as? [String: Any])
        #expect(state["phase"] as? String == "playing" && state["turnClock"] == nil, "\(state)")
        let timed = try await server.twoPlayerRoom("race.lua", fields: ["turnSeconds": 90])
        let clock = try #require((await timed.bob.next("events")?["state"] as? [String: Any])?["turnClock"] as? [String: Any])
        #expect(clock["seconds"] as? Int == 90 && clock["player"] as? String == "Ann", "\(clock)")
    }

    @Test func readyAndItsOldNameRestartDecodeAlike() {
        #expect(ClientMessage.decodesReady("{\"type\":\"restart\",\"seq\":3}"))
        #expect(ClientMessage.decodesReady("{\"type\":\"ready\",\"seq\":3}"))
    }

    @Test func aRuleTableDeclaresItsTurnClockAndTheCreatorMaySetAnother() async throws {
        let race = try String(contentsOfFile: TestServer.repositoryRules + "/race.lua", encoding: .utf8)
        let slow = race.replacingOccurrences(of: "name = \"Race to Space\",", with: "name = \"Race to Space\", turn_seconds = 20,")
        #expect(slow != race)
        try await withRulesFolder(["race.lua": slow]) { folder in
            let server = try await TestServer.start(rules: folder)
            defer { server.stop() }
            let declared = try await server.twoPlayerRoom("race.lua")
            let clock = try #require((await declared.bob.next("events")?["state"] as? [String: Any])?["turnClock"] as? [String: Any])
            #expect(clock["seconds"] as? Int == 20, "\(clock)")
            let set = try await server.twoPlayerRoom("race.lua", fields: ["turnSeconds": 30])
            let other = try #require((await set.bob.next("events")?["state"] as? [String: Any])?["turnClock"] as? [String: Any])
            #expect(other["seconds"] as? Int == 30, "\(other)")
        }
    }
}

extension ClientMessage {
    static func decodesReady(_ text: String) -> Bool { (try? decode(text)) == .ready(seq: 3) }
}
