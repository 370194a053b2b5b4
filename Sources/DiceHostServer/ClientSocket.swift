import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket

/// The request context of `dicehost serve`: Hummingbird's WebSocket context plus the
/// connection's channel, so a client that stopped reading can be cut off under its
/// blocked writer.
///
/// The channel is held weakly: HummingbirdWebSocket 2.8.1 keeps the context in its
/// `webSocket` reference's box and the box in the context, a cycle never broken, so a
/// strong channel here kept every closed connection's NIO channel, buffers and pipeline
/// alive for good (about 5.3 KiB each; 1.4 KiB remain in Hummingbird's own cycle). While
/// the connection is served, NIO holds its channel.
struct ServerRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    weak var channel: (any Channel)?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}

/// One WebSocket connection at `/ws`: a reader that hands each text message to the
/// `ClientConnection`, and a writer that sends what the client's `ClientChannel` queues.
/// Whichever ends first ends the other: the client went away, the server closed the
/// connection (a newer connection took the seat, the rate limit), or the client fell
/// behind its backlog (then the socket is closed at once).
///
/// Both run with the connection's event loop as their preferred executor
/// (`EventLoopTaskExecutor`): a frame is handled on the thread that read it, without a hop
/// to Swift's global executor and back for each message.
enum ClientSocket {
    static func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel nioChannel: any Channel,
                      id: UInt64, lobby: Lobby, limits: ServerLimits, connections: OpenConnections) async throws {
        try await onEventLoop(nioChannel.eventLoop) {
            try await run(inbound: inbound, outbound: outbound, channel: nioChannel, id: id, lobby: lobby, limits: limits, connections: connections)
        }
    }

    /// Runs `body` preferring `loop` as its executor: its nonisolated code, and that of the
    /// child tasks it makes, runs on the loop, also after an `await` on an actor (a room).
    static func onEventLoop<T: Sendable>(_ loop: any EventLoop, _ body: @Sendable () async throws -> T) async throws -> T {
        if #available(macOS 15.0, *) {
            return try await withTaskExecutorPreference(EventLoopTaskExecutor(loop), operation: body)
        }
        return try await body()
    }

    private static func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel nioChannel: any Channel,
                            id: UInt64, lobby: Lobby, limits: ServerLimits, connections: OpenConnections) async throws {
        let (end, ended) = AsyncStream.makeStream(of: Void.self)
        let channel = ClientChannel(id: id, connection: nioChannel, backlog: limits.outboundBacklog, ended: ended)
        // Upgraded just as the server began to stop: told at once, as the others are.
        if !connections.add(channel) { channel.close(code: GoingAway.closeCode, reason: GoingAway.reason) }
        // Counted until its socket is closed, not only until this returns: after the server's
        // close frame the WebSocket layer waits for the client's answer, and a stopping
        // server cuts off those that do not answer.
        nioChannel.closeFuture.whenComplete { _ in connections.remove(id) }
        let failure: Error? = await withTaskGroup(of: Error?.self) { group in
            group.addTask {
                // Messages go to the NIO channel directly (ClientChannel); this task waits
                // for the end. Told why (the last message written before), the client gets
                // the close frame; its answering close frame ends the reader.
                for await _ in end {}
                if let (code, reason) = channel.closeReason {
                    try? await outbound.close(WebSocketErrorCode(codeNumber: Int(code)), reason: reason)
                }
                return nil
            }
            group.addTask {
                // The connection belongs to the reader: made, fed and told of the end in
                // this one task (it is not Sendable and never crosses to another).
                let connection = ClientConnection(channel: channel, lobby: lobby, limits: limits)
                let failure = await read(inbound, into: connection, channel: channel)
                await connection.disconnected()
                return failure
            }
            // The first to end (reader or writer) ends the other.
            let first = await group.next() ?? nil
            group.cancelAll()
            var failure = first
            while let next = await group.next() { failure = failure ?? next }
            return failure
        }
        if let failure, !(failure is CancellationError) { throw failure }
    }

    /// Hands each text message to the connection until the client or the server ends it.
    private static func read(_ inbound: WebSocketInboundStream, into connection: ClientConnection, channel: ClientChannel) async -> Error? {
        do {
            for try await message in inbound.messages(maxSize: ServerProtocol.maxMessageBytes) {
                switch message {
                case .text(let text): await connection.receive(text)
                case .binary: connection.sendError(.badMessage, "binary messages are not part of the protocol; send JSON text")
                }
                if connection.closing || channel.closeReason != nil { break }
            }
        } catch {
            // Invalid UTF-8 (1007), a fragmented message over the limit (1009), a
            // broken connection: the WebSocket layer closes with the error's code.
            channel.finish()
            return error
        }
        channel.finish()
        return nil
    }
}
