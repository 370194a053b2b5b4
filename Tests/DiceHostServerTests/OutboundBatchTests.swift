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

    /// A broadcast sends a message's bytes as they were written, no `String` made of them:
    /// the frame is the same text, byte for byte, as the message's own text would be, also
    /// with what JSON escapes and with text beyond ASCII; and a client's frames given as
    /// bytes keep their order among those given as text.
    @Test func aMessageSentAsItsBytesIsTheFrameItsTextWouldBeInOrder() throws {
        let message = ServerMessage(.events, ack: 7, room: "Ann’s table", [
            ("cause", .written("{\"input\":\"snap\"}")), ("say", .string("Bob \"called\" snap — ♠ 10\n\u{1}")),
            ("state", .written("{\"viewer\":\"Zoë\"}")),
        ])
        let loop = EmbeddedEventLoop()
        let (ann, connection) = Self.client(1, on: loop)
        ann.send("first")
        var batch = OutboundBatch()
        batch.add(bytes: message.bytes, to: ann)
        batch.add("third", to: ann)
        batch.send()
        ann.send("fourth ✓")
        loop.run()
        var frames: [[UInt8]] = []
        while let frame = try connection.readOutbound(as: WebSocketFrame.self) {
            frames.append(Array(frame.unmaskedData.readableBytesView))
        }
        #expect(frames == [Array("first".utf8), message.bytes, Array("third".utf8), Array("fourth ✓".utf8)])
        // What the client reads: the message's fields, escapes and all, as JSON.
        let object = try JSONSerialization.jsonObject(with: Data(frames[1])) as? [String: Any]
        #expect(object?["type"] as? String == "events")
        #expect(object?["ack"] as? Int == 7)
        #expect(object?["room"] as? String == "Ann’s table")
        #expect(object?["say"] as? String == "Bob \"called\" snap — ♠ 10\n\u{1}")
        #expect((object?["cause"] as? [String: Any])?["input"] as? String == "snap")
        #expect((object?["state"] as? [String: Any])?["viewer"] as? String == "Zoë")
        #expect(String(validating: frames[1], as: UTF8.self) == message.text)
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
