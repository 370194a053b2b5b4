import NIOCore
import NIOWebSocket

/// The messages of one broadcast, handed to each event loop in one go: a room
/// sending its four seats their messages made four hops to the event loops (a task queued
/// and a wake-up each), where one per event loop (two on two cores) carries them all. Each
/// message is still its own frame to its own connection, counted against that client's
/// backlog when added; a client's messages keep their order (in the batch, and against
/// what was sent to it before, since every hop to an event loop runs in the order queued).
///
///     var batch = OutboundBatch()
///     for subscriber in subscribers { batch.add(text, to: subscriber.client) }
///     batch.send()
struct OutboundBatch {
    private struct Write: Sendable {
        let client: ClientChannel
        let connection: any Channel
        let frame: WebSocketFrame
    }

    private var loops: [(loop: any EventLoop, writes: [Write])] = []

    /// How many hops to event loops `send` makes.
    var hops: Int { loops.count }

    /// Adds `text` for `client` (nothing when its connection is closed or over its backlog).
    mutating func add(_ text: String, to client: ClientChannel) {
        add(frame: ClientChannel.frame(text), to: client)
    }

    /// Adds a message given as its UTF-8 (`ServerMessage.bytes`: no `String` made for it).
    mutating func add(bytes: [UInt8], to client: ClientChannel) {
        add(frame: ClientChannel.frame(bytes: bytes), to: client)
    }

    private mutating func add(frame: WebSocketFrame, to client: ClientChannel) {
        guard let connection = client.admit() else { return }
        let write = Write(client: client, connection: connection, frame: frame)
        if let index = loops.firstIndex(where: { $0.loop === connection.eventLoop }) {
            loops[index].writes.append(write)
        } else {
            loops.append((connection.eventLoop, [write]))
        }
    }

    /// Hands every event loop its writes, each connection flushed once after them.
    func send() {
        for (loop, writes) in loops {
            loop.execute {
                for write in writes { write.client.write(write.frame, to: write.connection) }
                for write in writes { write.connection.flush() }
            }
        }
    }
}
