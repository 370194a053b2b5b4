import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// Mode `nio`: the same rooms with plain SwiftNIO: NIOHTTP1 and NIOWebSocket's server
/// upgrader, then one `ChannelHandler` per connection that answers each text message on
/// the connection's event loop. No async sequence, no Swift concurrency on the path.
enum NIOFloor {
    static func run(host: String, port: Int, broadcast: Broadcast) async throws {
        let rooms = Rooms()
        let group = MultiThreadedEventLoopGroup.singleton
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: 1 << 16,
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, head in
                let room = room(in: head.uri)
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 1, maxAccumulatedFrameCount: 16,
                                                                    maxAccumulatedFrameSize: 1 << 16))
                    try sync.addHandler(RoomHandler(room: room, rooms: rooms, broadcast: broadcast))
                }
            }
        )
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
            }
        let server = try await bootstrap.bind(host: host, port: port).get()
        Listening.say(host: host, port: server.localAddress?.port ?? 0)
        try await server.closeFuture.get()
    }

    /// `NAME` of `/ws?room=NAME` ("" without one).
    static func room(in uri: String) -> String {
        guard let query = uri.split(separator: "?", maxSplits: 1).dropFirst().first else { return "" }
        for pair in query.split(separator: "&") where pair.hasPrefix("room=") {
            return String(pair.dropFirst("room=".count))
        }
        return ""
    }
}

/// One connection of a room: joins on becoming active in the pipeline, answers each text
/// message with a broadcast to the room, answers a close and a ping as RFC 6455 asks.
final class RoomHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let room: String
    private let rooms: Rooms
    private let broadcast: Broadcast
    private var id: UInt64?
    private var closing = false

    init(room: String, rooms: Rooms, broadcast: Broadcast) {
        self.room = room
        self.rooms = rooms
        self.broadcast = broadcast
    }

    func handlerAdded(context: ChannelHandlerContext) {
        id = rooms.join(room, channel: context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        leave()
    }

    func channelInactive(context: ChannelHandlerContext) {
        leave()
        context.fireChannelInactive()
    }

    private func leave() {
        if let id { rooms.leave(room, id: id) }
        id = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            let text = String(buffer: frame.unmaskedData)
            Broadcast.send(broadcast.frame(answering: text), to: rooms.members(of: room))
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            leave()
            guard !closing else { return }
            closing = true
            var data = frame.unmaskedData
            let code = data.readSlice(length: 2) ?? ByteBuffer()
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: code)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        leave()
        context.close(promise: nil)
    }
}
