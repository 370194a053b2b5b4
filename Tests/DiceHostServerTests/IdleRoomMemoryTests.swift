@testable import DiceHostServer
import DiceHost
import Foundation
import Testing

/// A room nobody is connected to holds less (issue 32): its game lets go of the copy of
/// `g` kept for the next input's rollback; it is taken again when someone comes back.
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

        // Someone comes back (a spectator here): the state they are shown takes the copy again.
        #expect(await room.watch(client: channel(3)))
        #expect(await room.game?.memoryUse.holdsRollbackCopy == true)
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
}
