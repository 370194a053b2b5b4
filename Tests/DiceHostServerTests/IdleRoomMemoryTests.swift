@testable import DiceHostServer
import DiceHost
import Foundation
import Hummingbird
import Logging
import NIOEmbedded
import Testing

/// A room nobody is connected to holds less: its game lets go of the copy of `g` kept for
/// the next input's rollback; the next input takes it again (looks never need it).
@Suite struct IdleRoomMemoryTests {
    func channel(_ id: UInt64) -> ClientChannel {
        let (_, ended) = AsyncStream.makeStream(of: Void.self)
        return ClientChannel(id: id, connection: nil, backlog: 100, ended: ended)
    }

    @Test func aRoomWhoseClientsAllLeftKeepsNoRollbackCopyUntilOneComesBack() async throws {
        let catalog = try RuleCatalog(directory: TestServer.repositoryRules)
        let entry = try #require(catalog.entry("race.lua"))
        let room = Room(id: "idle", entry: entry, params: [], seed: 7, seats: 2, deviceRolls: false,
                        limits: ServerLimits(), log: nil)
        let ann = channel(1), bob = channel(2)
        #expect(await room.join(name: "Ann", client: ann))
        #expect(await room.join(name: "Bob", client: bob))
        await room.input(.roll(values: nil, flag: .ok), seq: 1, from: 1)
        #expect(await room.game?.memoryUse.holdsRollbackCopy == true)

        await room.detach(clientID: 1, leaving: false)
        #expect(await room.game?.memoryUse.holdsRollbackCopy == true) // Bob is still here
        await room.detach(clientID: 2, leaving: false)
        #expect(await room.game?.memoryUse.holdsRollbackCopy == false)

        // Someone comes back (a spectator here): the state they are shown is drawn from a
        // read-only g, so no copy is taken for it; an input takes one, as the roll above did.
        #expect(await room.watch(client: channel(3)))
        #expect(await room.game?.memoryUse.holdsRollbackCopy == false)
    }

    @Test func aRoomWhoseClientsAllLeftKeepsOnlyTheHistoryAJoiningClientIsShown() async throws {
        let catalog = try RuleCatalog(directory: TestServer.repositoryRules)
        let entry = try #require(catalog.entry("race.lua"))
        var limits = ServerLimits()
        limits.historyEvents = 5
        let room = Room(id: "idle", entry: entry, params: [], seed: 7, seats: 2, deviceRolls: false, limits: limits, log: nil)
        #expect(await room.join(name: "Ann", client: channel(1)))
        #expect(await room.join(name: "Bob", client: channel(2)))
        // In play a room keeps between historyEvents and twice as many: play until it holds more than 5.
        var seq: Int64 = 0
        while await (room.game?.events.count ?? 0) <= 5 {
            seq += 1
            let current = await room.game?.currentPlayer
            await room.input(.roll(values: nil, flag: .ok), seq: seq, from: current == "Ann" ? 1 : 2)
            try #require(seq < 20)
        }
        await room.detach(clientID: 1, leaving: false)
        await room.detach(clientID: 2, leaving: false)
        #expect(await room.game?.events.count == 5)
    }

    #if canImport(Glibc)
    /// HummingbirdWebSocket keeps a connection's request context for good (a cycle between
    /// the context and its handler reference), so what the context holds must not be the
    /// connection's channel: that kept every closed connection's buffers and pipeline.
    @Test func aRequestContextDoesNotKeepItsConnectionsChannel() throws {
        var channel: EmbeddedChannel? = EmbeddedChannel()
        weak let probe = channel
        let context = ServerRequestContext(source: ApplicationRequestContextSource(channel: try #require(channel), logger: Logger(label: "test")))
        #expect(context.channel != nil, "while the connection is open its context reaches it")
        _ = try channel?.finish()
        channel = nil
        #expect(probe == nil, "the context outlives its closed channel without keeping it")
        #expect(context.channel == nil)
    }

    @Test func serveAsksGlibcForAtMostTwoMallocArenasACore() {
        // What glibc answers: the arenas themselves cannot be counted from inside a test
        // process whose threads made theirs long before (bench/idle-rooms.py measures the effect).
        #expect(FreedMemory.limitArenas(cores: 2) == 4)
        #expect(FreedMemory.limitArenas(cores: 0) == 2)
        // Back to what this test process had (glibc's default: eight a core).
        #expect(FreedMemory.limitArenas(cores: 4 * ProcessInfo.processInfo.activeProcessorCount) != nil)
    }
    #endif
}

/// What a room lets go of when it goes idle changes nothing its players see (issue 32:
/// an idle room's memory): a player coming back sees the history and table they left,
/// plays on, and a rule error still reads as the rules raised it.
@Suite(.serialized) struct IdleRoomComesBackTests {
    /// Two seats, a view (each player sees only their own score), and an action that fails.
    static let rules = [
        "idle.lua": """
            local r = rules { name = "Idle", players = {2, 2}, dice = "1d6" }
            function r.setup(g) for _, p in ipairs(g.players) do p.score = 0 end end
            function r.roll(g, p, roll) p.score = p.score + roll.total; g:next_turn() end
            function r.view(g, viewer) return { mine = viewer and viewer.score or false } end
            r.actions = { boom = function(g, p) error("boom from " .. p.name) end }
            return r
            """,
    ]

    /// What a state message shows of the game (not who is connected, nor the server's clock).
    static func gameShown(_ message: [String: Any]) -> String {
        let state = message["state"] as? [String: Any] ?? [:]
        let kept: [String: Any] = ["first": message["first"] ?? NSNull(), "events": message["events"] ?? NSNull(),
                                   "view": state["view"] ?? NSNull(), "table": state["table"] ?? NSNull(),
                                   "now": state["now"] ?? NSNull(), "current": state["current"] ?? NSNull(),
                                   "eventCount": state["eventCount"] ?? NSNull(), "lastRoll": state["lastRoll"] ?? NSNull()]
        let data = (try? JSONSerialization.data(withJSONObject: kept, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Asks the lobby until nobody is connected to `room` (the room has gone idle).
    static func waitUntilIdle(_ room: String, asking client: TestClient) async throws {
        for _ in 0..<200 {
            client.send(["type": "rooms"])
            let rooms = try #require(await client.next("rooms"))["rooms"] as? [[String: Any]] ?? []
            if rooms.first(where: { $0["room"] as? String == room })?["connected"] as? Int == 0 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("room \(room) never went idle")
    }

    /// Comes back to `room` with `token`: the `state` it is shown.
    static func comeBack(_ server: TestServer, _ room: String, token: String) async throws -> (TestClient, [String: Any]) {
        let client = try await server.client()
        try await client.hello()
        client.send(["type": "join", "room": room, "token": token])
        _ = try #require(await client.next("joined"))
        return (client, try #require(await client.next("state")))
    }

    @Test func aPlayerComingBackToAnIdleRoomSeesWhatTheyLeftAndPlaysOn() async throws {
        try await withRulesFolder(Self.rules) { folder in
            let server = try await TestServer.start(rules: folder)
            defer { server.stop() }
            let r = try await server.twoPlayerRoom("idle.lua")
            let annToken = try #require(r.annJoined["token"] as? String)
            let bobToken = try #require(r.bobJoined["token"] as? String)
            #expect(try await r.ann.roll(seq: 1)["seq"] as? Int == 1)
            #expect(try await r.bob.roll(seq: 1)["seq"] as? Int == 1)
            // Shown while the room is in play (Bob still here): Ann's seat, replaced by a new connection.
            let (annAgain, before) = try await Self.comeBack(server, r.room, token: annToken)
            annAgain.close()
            r.ann.close()
            r.bob.close()
            let lobby = try await server.client()
            try await lobby.hello()
            try await Self.waitUntilIdle(r.room, asking: lobby)

            let (ann, after) = try await Self.comeBack(server, r.room, token: annToken)
            #expect(Self.gameShown(after) == Self.gameShown(before))
            #expect(((after["state"] as? [String: Any])?["view"] as? [String: Any])?["mine"] is Int)

            // An input after the idle spell plays on, and the others see it.
            let (bob, _) = try await Self.comeBack(server, r.room, token: bobToken)
            #expect(try await ann.roll(seq: 2)["seq"] as? Int == 2)
            let events = try #require(await bob.next("events"))
            #expect((events["events"] as? [[String: Any]])?.contains { $0["type"] as? String == "roll" && $0["player"] as? String == "Ann" } == true)

            // A rule error in a room that went idle is still the rules' own message (clients
            // are not shown the server's paths; the file and line after an idle spell:
            // IdleMemoryTests.aFailingInputAfterTheCopyWasLetGoLeavesTheGameAsItWas).
            bob.close()
            ann.close()
            try await Self.waitUntilIdle(r.room, asking: lobby)
            let (bobLast, _) = try await Self.comeBack(server, r.room, token: bobToken)
            bobLast.send(["type": "action", "name": "boom", "seq": 2])
            let error = try #require(await bobLast.next("error"))
            #expect(error["code"] as? String == "rule-error")
            #expect(error["message"] as? String == "boom from Bob", "\(error)")
        }
    }
}
