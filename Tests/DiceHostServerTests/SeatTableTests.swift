import DiceHostServer
import Foundation
import Testing

/// The state's `table` (docs/protocol.md): the rules' `table(v, t)` for the seat, made
/// from its view; a table hook that fails is an error field, and the room plays on.
@Suite(.serialized)
struct SeatTableTests {
    static func table(_ message: [String: Any]?) -> [String: Any]? {
        (message?["state"] as? [String: Any])?["table"] as? [String: Any]
    }

    static func cups(_ table: [String: Any]?) -> [[String: Any]] { table?["cups"] as? [[String: Any]] ?? [] }

    @Test func eachSeatIsSentItsOwnTableWithTheOtherCupsHidden() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let room = try await server.twoPlayerRoom("liars-dice.lua")
        _ = await SeatViewProtocolTests.turn(of: "Ann", room.ann)
        room.ann.send(["type": "roll", "seq": 1])
        let bobSees = try #require(await SeatViewProtocolTests.turn(of: "Bob", room.bob))
        let bob = try #require(Self.table(bobSees))
        #expect(bob["headline"] as? String == "Roll your dice under the cup", "\(bob)")
        #expect((Self.cups(bob).first?["dice"] as? [String: Any])?["hidden"] as? Int == 5, "Ann's cup is hidden from Bob")
        let annSees = try #require(await room.ann.next("events"))
        let ann = try #require(Self.table(annSees))
        #expect(((Self.cups(ann).first?["dice"] as? [String: Any])?["values"] as? [Int])?.count == 5, "Ann sees her own cup")
        room.ann.close(); room.bob.close()
    }

    static let failingRules = """
        local r = rules { name = "Broken table", players = {2, 2}, dice = "1d6" }
        function r.roll(g, p, roll) g:next_turn() end
        function r.table(v, t) return {headline = {}} end
        return r
        """

    @Test func aTableOutsideTheVocabularyIsAnErrorFieldAndTheRoomPlaysOn() async throws {
        try await withRulesFolder(["broken.lua": Self.failingRules]) { folder in
            let server = try await TestServer.start(rules: folder)
            defer { server.stop() }
            let room = try await server.twoPlayerRoom("broken.lua")
            _ = await SeatViewProtocolTests.turn(of: "Ann", room.ann)
            room.ann.send(["type": "roll", "seq": 1])
            let bobSees = try #require(await SeatViewProtocolTests.turn(of: "Bob", room.bob))
            let error = try #require(Self.table(bobSees)?["error"] as? String)
            #expect(error.contains("table(v, t) returned headline = table: a string expected"), "\(error)")
            room.bob.send(["type": "roll", "seq": 1])
            _ = try #require(await SeatViewProtocolTests.turn(of: "Ann", room.ann))
            room.ann.close(); room.bob.close()
        }
    }
}
