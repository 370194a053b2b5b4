import DiceHostServer
import Foundation
import Testing

/// The state's `moves` (docs/protocol.md): each seat is sent the argument lists it may
/// give each listable action now - the bid picker's raises in Liar's Dice - from the
/// rules' `choices`; off-turn seats get none, spectators no `moves` at all.
@Suite(.serialized)
struct SeatMovesTests {
    static func moves(_ message: [String: Any]?) -> [String: [[Any]]]? {
        ((message?["state"] as? [String: Any])?["moves"] as? [String: Any])?.compactMapValues { $0 as? [[Any]] }
    }

    static func pairs(_ lists: [[Any]]?) -> [[Int]] { (lists ?? []).map { $0.compactMap { $0 as? Int } } }

    @Test func theSeatWhoseTurnItIsGetsEveryRaiseAndTheOthersNone() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let room = try await server.twoPlayerRoom("liars-dice.lua", fields: ["params": ["start_dice": 2]])
        let eve = try await server.client()
        try await eve.hello()
        eve.send(["type": "watch", "room": room.room])
        _ = try #require(await eve.next("watching"))
        _ = await SeatViewProtocolTests.turn(of: "Ann", room.ann)
        room.ann.send(["type": "roll", "seq": 1])
        _ = try #require(await SeatViewProtocolTests.turn(of: "Bob", room.bob))
        room.bob.send(["type": "roll", "seq": 1])
        _ = try #require(await SeatViewProtocolTests.turn(of: "Ann", room.ann))
        room.ann.send(["type": "action", "seq": 2, "name": "bid", "args": [1, 2]])

        let bobSees = try #require(await SeatViewProtocolTests.turn(of: "Bob", room.bob))
        let bob = try #require(Self.moves(bobSees))
        let bids = Self.pairs(bob["bid"])
        // 4 dice in play: one die of a face above 2, or 2 to 4 dice of any face.
        #expect(bids.count == 4 + 3 * 6, "\(bids)")
        #expect(bids.contains([1, 3]) && bids.contains([2, 1]) && bids.contains([4, 6]))
        #expect(!bids.contains([1, 2]) && !bids.contains([1, 1]) && !bids.contains([5, 1]), "not a raise, or more dice than in play")
        #expect(Self.pairs(bob["liar"]) == [[]])

        let annSees = try #require(await room.ann.next("events"))
        let ann = try #require(Self.moves(annSees))
        #expect(ann["bid"]?.isEmpty == true && ann["liar"]?.isEmpty == true, "off-turn: \(ann)")

        let eveSees = try #require(await SeatViewProtocolTests.events(of: "say", eve))
        #expect((eveSees["state"] as? [String: Any])?["moves"] == nil, "a spectator makes no moves")
        for c in [room.ann, room.bob, eve] { c.close() }
    }

    static let rules = """
        local r = rules { name = "Moves", players = {2, 2}, dice = "1d6", anytime = {"shout"} }
        function r.setup(g) g:next_turn(g.players[1]) end
        function r.roll(g, p, roll) end
        r.actions = {
          shout = function(g, p) end,
          pick = function(g, p, n) end,
          word = function(g, p, w) end,
          broken = function(g, p, n) end,
        }
        r.choices = { pick = {1, 2, 3}, broken = function(g, p) error("no list today", 0) end }
        return r
        """

    @Test func anytimeActionsAreEverySeatsAndUnlistableOrFailingListsAreLeftOut() async throws {
        try await withRulesFolder(["moves.lua": Self.rules]) { folder in
            let server = try await TestServer.start(rules: folder)
            defer { server.stop() }
            let room = try await server.twoPlayerRoom("moves.lua")
            let annSees = try #require(await SeatViewProtocolTests.turn(of: "Ann", room.ann))
            let bobSees = try #require(await SeatViewProtocolTests.turn(of: "Ann", room.bob))
            let ann = try #require(Self.moves(annSees)), bob = try #require(Self.moves(bobSees))
            #expect(Self.pairs(ann["pick"]) == [[1], [2], [3]] && bob["pick"]?.isEmpty == true)
            #expect(Self.pairs(ann["shout"]) == [[]] && Self.pairs(bob["shout"]) == [[]], "anytime: every seat")
            // word cannot be listed (free text for both); broken's list failed for Ann (free
            // text) and is not Bob's to make now.
            #expect(Set(ann.keys) == ["pick", "shout"], "\(ann)")
            #expect(Set(bob.keys) == ["pick", "shout", "broken"] && bob["broken"]?.isEmpty == true, "\(bob)")
            room.ann.close(); room.bob.close()
        }
    }
}
