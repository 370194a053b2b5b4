@testable import DiceHostServer
import Foundation
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

/// A broadcast's messages reach each event loop in one hop, each connection its own
/// message (no seat's text on another's connection), every client's messages in order.
struct OutboundBatchTests {
    /// A client channel on an embedded connection of `loop`.
    static func client(_ id: UInt64, on loop: EmbeddedEventLoop, backlog: Int = 1024) -> (ClientChannel, EmbeddedChannel) {
        let connection = EmbeddedChannel(loop: loop)
        let (_, ended) = AsyncStream.makeStream(of: Void.self)
        return (ClientChannel(id: id, connection: connection, backlog: backlog, ended: ended), connection)
    }

    static func texts(_ connection: EmbeddedChannel) throws -> [String] {
        var out: [String] = []
        while let frame = try connection.readOutbound(as: WebSocketFrame.self) {
            out.append(String(buffer: frame.unmaskedData))
        }
        return out
    }

    @Test func aBroadcastToFourClientsIsOneHopPerEventLoopAndEachGetsOnlyItsOwnMessage() throws {
        let first = EmbeddedEventLoop(), second = EmbeddedEventLoop()
        let clients = [Self.client(1, on: first), Self.client(2, on: second), Self.client(3, on: first), Self.client(4, on: second)]
        var batch = OutboundBatch()
        for (client, _) in clients { batch.add("{\"seat\":\(client.id)}", to: client) }
        #expect(batch.hops == 2)
        batch.send()
        // Nothing is written on the sending thread: only in the event loops' turn.
        for (_, connection) in clients { #expect(try Self.texts(connection).isEmpty) }
        first.run()
        second.run()
        for (client, connection) in clients { #expect(try Self.texts(connection) == ["{\"seat\":\(client.id)}"]) }
    }

    @Test func aClientsMessagesKeepTheirOrderAcrossSingleSendsAndBatches() throws {
        let loop = EmbeddedEventLoop()
        let (ann, annConnection) = Self.client(1, on: loop), (bob, bobConnection) = Self.client(2, on: loop)
        ann.send("a1")
        var batch = OutboundBatch()
        batch.add("a2", to: ann)
        batch.add("b1", to: bob)
        batch.add("a3", to: ann)
        batch.send()
        ann.send("a4")
        #expect(batch.hops == 1)
        loop.run()
        #expect(try Self.texts(annConnection) == ["a1", "a2", "a3", "a4"])
        #expect(try Self.texts(bobConnection) == ["b1"])
    }

    @Test func aClientOverItsBacklogIsCutOffNotSkipped() throws {
        let loop = EmbeddedEventLoop()
        let (slow, connection) = Self.client(1, on: loop, backlog: 2)
        let closed = ClosedFlag()
        connection.closeFuture.whenComplete { _ in closed.set() }
        var batch = OutboundBatch()
        for n in 1...3 { batch.add("m\(n)", to: slow) }
        batch.send()
        loop.run()
        // The third found two waiting and closed the connection at once (what was waiting is
        // dropped with it: the client comes back with its token and is sent the state).
        #expect(closed.value)
        var later = OutboundBatch()
        later.add("m4", to: slow)
        #expect(later.hops == 0)
    }
}

final class ClosedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.withLock { flag = true } }
    var value: Bool { lock.withLock { flag } }
}
