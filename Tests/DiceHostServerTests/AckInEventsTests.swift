import Foundation
import Testing

/// Protocol version 2 (issue 32): the acting client's input is acknowledged inside the
/// `events` message that brings it its events, one frame instead of two; other seats'
/// messages carry no `ack`, and a version 1 client is answered as before.
@Suite struct AckInEventsTests {
    @Test func aVersionTwoClientsInputIsAcknowledgedInItsEventsMessageAlone() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let r = try await server.twoPlayerRoom("race.lua", versions: (ann: 2, bob: 1))
        #expect(r.annJoined["type"] as? String == "joined")
        _ = try #require(await r.ann.next("events"))
        _ = try #require(await r.bob.next("events"))

        r.ann.send(["type": "roll", "seq": 1])
        let mine = try #require(await r.ann.next("events"))
        #expect(mine["ack"] as? Int == 1, "\(mine)")
        #expect((mine["cause"] as? [String: Any])?["seq"] as? Int == 1)
        let theirs = try #require(await r.bob.next("events"))
        #expect(theirs["ack"] == nil, "another seat is told of no ack: \(theirs)")
        #expect(theirs["first"] as? Int == mine["first"] as? Int)
        // No separate ack came, before or after.
        let rest = await r.ann.drain(for: .milliseconds(500), quiet: .milliseconds(300))
        #expect(!(r.ann.received + rest).contains { $0["type"] as? String == "ack" })

        // A duplicate has no events: it is answered by an ack message, as in version 1.
        r.ann.send(["type": "roll", "seq": 1])
        let duplicate = try #require(await r.ann.next("ack"))
        #expect(duplicate["seq"] as? Int == 1 && duplicate["duplicate"] as? Bool == true)
    }

    @Test func aVersionOneClientStillGetsAnAckMessageBeforeItsEvents() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let r = try await server.twoPlayerRoom("race.lua", versions: (ann: 1, bob: 2))
        _ = try #require(await r.ann.next("events"))
        r.ann.send(["type": "roll", "seq": 1])
        var first = try #require(await r.ann.next())
        while !["ack", "events"].contains(first["type"] as? String ?? "") { first = try #require(await r.ann.next()) }
        #expect(first["type"] as? String == "ack" && first["seq"] as? Int == 1, "\(first)")
        let events = try #require(await r.ann.next("events"))
        #expect(events["ack"] == nil)
    }

    @Test func helloIsAnsweredWithTheVersionTheClientSpeaks() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        for version in [1, 2] {
            let client = try await server.client()
            #expect(try await client.hello(version: version)["version"] as? Int == version)
            client.close()
        }
    }
}
