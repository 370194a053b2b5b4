import Foundation
import Testing

/// A name that looks like a seated player's is taken: every event names its player.
@Suite struct LookAlikeNameTests {
    @Test func aNameThatLooksLikeASeatedOneIsTaken() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ann = try await server.client()
        try await ann.hello()
        ann.send(["type": "create", "rules": "snap.lua", "seats": 3])
        let room = try #require(await ann.next("created")?["room"] as? String)
        ann.send(["type": "join", "room": room, "name": "Ann"])
        _ = try #require(await ann.next("joined"))
        let other = try await server.client()
        try await other.hello()
        // Cyrillic А, fullwidth Ａ, mathematical bold 𝐀, Greek Α (and capitals).
        for alike in ["\u{0410}nn", "\u{FF21}nn", "\u{1D400}nn", "\u{0391}NN"] {
            other.send(["type": "join", "room": room, "name": alike])
            let error = try #require(await other.next("error"))
            #expect(error["code"] as? String == "name-taken", "\(alike.unicodeScalars.map { String($0.value, radix: 16) }): \(error)")
        }
        other.send(["type": "join", "room": room, "name": "Anna"])
        #expect(try #require(await other.next())["type"] as? String == "joined")
    }
}
