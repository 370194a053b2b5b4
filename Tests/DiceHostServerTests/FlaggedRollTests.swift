import Foundation
import Testing

/// A smart die's roll that did not land on a face reaches the room as a flagged roll
/// (`{"type":"roll","flag":"tilt"}`), for the rules to answer; only in a room made for
/// a smart die's rolls, and never with values.
@Suite struct FlaggedRollTests {
    func raceRoom(_ server: TestServer, deviceRolls: Bool) async throws -> (ann: TestClient, bob: TestClient) {
        let r = try await server.twoPlayerRoom("race.lua", fields: ["deviceRolls": deviceRolls])
        _ = try #require(await r.ann.next("events"))
        _ = try #require(await r.bob.next("events"))
        return (r.ann, r.bob)
    }

    @Test func aTiltReachesTheRulesAndTheTurnStays() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (ann, bob) = try await raceRoom(server, deviceRolls: true)
        ann.send(["type": "roll", "seq": 1, "flag": "sideways"])
        let unknown = try #require(await ann.next("error"))
        #expect(unknown["code"] as? String == "bad-field" && unknown["seq"] as? Int == 1, "\(unknown)")
        ann.send(["type": "roll", "seq": 2, "flag": "tilt", "values": [3]])
        let both = try #require(await ann.next("error"))
        #expect(both["code"] as? String == "bad-field" && (both["message"] as? String)?.contains("no \"values\"") == true, "\(both)")

        ann.send(["type": "roll", "seq": 3, "flag": "tilt"])
        #expect(try #require(await ann.next("ack"))["seq"] as? Int == 3)
        let seen = try #require(await bob.nextEvents(saying: "Ann: the roll did not count (tilt), roll again"))
        let events = try #require(seen["events"] as? [[String: Any]])
        #expect(events.contains { $0["type"] as? String == "roll" && $0["flag"] as? String == "tilt" && $0["player"] as? String == "Ann" })
        #expect((seen["state"] as? [String: Any])?["current"] as? String == "Ann")
        ann.send(["type": "roll", "seq": 4, "flag": "too_short"])
        #expect(try #require(await ann.next("ack"))["seq"] as? Int == 4)
        #expect(await bob.nextEvents(saying: "Ann: the roll did not count (too_short), roll again") != nil)
    }

    @Test func aRoomThatRollsItselfRefusesAFlag() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (ann, _) = try await raceRoom(server, deviceRolls: false)
        ann.send(["type": "roll", "seq": 1, "flag": "tilt"])
        let refused = try #require(await ann.next("error"))
        #expect(refused["code"] as? String == "no-device-rolls" && refused["seq"] as? Int == 1, "\(refused)")
    }
}
