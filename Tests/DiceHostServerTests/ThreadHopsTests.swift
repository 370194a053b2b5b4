@testable import DiceHostServer
import Foundation
import NIOCore
import NIOPosix
import Testing

/// Where a served input's work runs (issue 32): a connection's reader on its own event
/// loop, before and after its room answers; the group commit's drain on the SQLite store's
/// own thread, between the store's statements.
struct ThreadHopsTests {
    /// An actor on a room executor (the room thread pool), as a `Room` is.
    actor RoomLike {
        nonisolated let executor = RoomExecutor(limits: ServerLimits())
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        func answer(_ loop: any EventLoop) -> Bool { loop.inEventLoop }
    }

    @Test func aConnectionsReaderRunsOnItsEventLoopAndComesBackToItAfterItsRoomAnswers() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loop = group.next()
        let room = RoomLike()
        let seen = try await ClientSocket.onEventLoop(loop) { () -> [Bool] in
            let first = loop.inEventLoop
            let inRoom = await room.answer(loop)
            let afterRoom = loop.inEventLoop
            // A child task (the socket's reader and writer are two) prefers the loop too.
            let child = await withTaskGroup(of: Bool.self) { tasks in
                tasks.addTask { _ = await room.answer(loop); return loop.inEventLoop }
                return await tasks.next() ?? false
            }
            return [first, inRoom, afterRoom, child]
        }
        #expect(seen == [true, false, true, true], "on the loop, the room on its own thread, back on the loop, a child task on the loop")
        try await group.shutdownGracefully()
    }
}
