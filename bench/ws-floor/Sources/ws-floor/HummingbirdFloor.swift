import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket

/// Hummingbird's request context plus the connection's NIO channel (as DiceHost's
/// `ServerRequestContext`), so that frames go straight to the channel.
struct FloorRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}

/// Modes `hummingbird` and `hummingbird-eventloop`: `router.ws("/ws")` shaped like
/// DiceHost's `ClientSocket` (the inbound messages read in a task with
/// `inbound.messages(maxSize:)`, the answers written straight to the NIO channels).
enum HummingbirdFloor {
    static func run(host: String, port: Int, broadcast: Broadcast, onEventLoop: Bool) async throws {
        let rooms = Rooms()
        let router = Router(context: FloorRequestContext.self)
        router.ws("/ws") { inbound, _, context in
            let room = context.request.uri.queryParameters.get("room") ?? ""
            let channel = context.requestContext.channel
            let id = rooms.join(room, channel: channel)
            defer { rooms.leave(room, id: id) }
            if onEventLoop {
                // The reader isolated to the connection's event loop, and the task's
                // nonisolated steps (the inbound iterator's `next()`) preferring it too.
                let reader = EventLoopReader(loop: channel.eventLoop)
                try await withTaskExecutorPreference(EventLoopTaskExecutor(loop: channel.eventLoop)) {
                    try await reader.read(inbound, room: room, rooms: rooms, broadcast: broadcast)
                }
            } else {
                try await read(inbound, room: room, rooms: rooms, broadcast: broadcast)
            }
        }
        // DiceHost's settings (DiceHostServer.run): UTF-8 checked, pings every 30 s.
        let webSocket = WebSocketServerConfiguration(maxFrameSize: 1 << 16, autoPing: .enabled(timePeriod: .seconds(30)),
                                                     closeTimeout: .seconds(5), validateUTF8: true)
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(ws: webSocket)),
            configuration: .init(address: .hostname(host, port: port), serverName: "ws-floor"),
            onServerRunning: { channel in Listening.say(host: host, port: channel.localAddress?.port ?? 0) }
        )
        try await app.runService()
    }

    /// The reader of `ClientSocket.read`: each text message answered by one broadcast.
    static func read(_ inbound: WebSocketInboundStream, room: String, rooms: Rooms, broadcast: Broadcast) async throws {
        for try await message in inbound.messages(maxSize: 1 << 16) {
            guard case .text(let text) = message else { continue }
            Broadcast.send(broadcast.frame(answering: text), to: rooms.members(of: room))
        }
    }
}

/// A reader whose isolation is the connection's event loop (NIO 2.101's event loops are
/// serial executors): what moving DiceHost's reader off the global executor saves at most.
actor EventLoopReader {
    let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        loop.executor.asUnownedSerialExecutor()
    }

    func read(_ inbound: WebSocketInboundStream, room: String, rooms: Rooms, broadcast: Broadcast) async throws {
        for try await message in inbound.messages(maxSize: 1 << 16) {
            guard case .text(let text) = message else { continue }
            Broadcast.send(broadcast.frame(answering: text), to: rooms.members(of: room))
        }
    }
}

/// An event loop as a task executor: the inbound iterator's `next()` is nonisolated (it has
/// no `next(isolation:)`), so without a preference each message would hop to the global
/// executor and back to the actor.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
