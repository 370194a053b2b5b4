import DiceHost
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// `dicehost serve`: the rooms of a rules folder over WebSocket at `/ws`, and the
/// browser table at `/`.
///
///     let server = try DiceHostServer(configuration: .init(rulesDirectory: "rules", port: 8080))
///     try await server.run { port in print("listening on \(port)") }
public final class DiceHostServer: Sendable {
    public struct Configuration: Sendable {
        public var rulesDirectory: String
        public var host = "127.0.0.1"
        /// 0 picks a free port (`run` reports which).
        public var port = 8080
        /// A folder each room writes its log to (one JSON Lines file a room); nil: none.
        public var logDirectory: String?
        public var limits = ServerLimits()
        /// The least severe messages of the HTTP server that are logged ($LOG_LEVEL overrides).
        public var logLevel = "warning"

        public init(rulesDirectory: String, host: String = "127.0.0.1", port: Int = 8080, logDirectory: String? = nil, limits: ServerLimits = ServerLimits()) {
            self.rulesDirectory = rulesDirectory
            self.host = host
            self.port = port
            self.logDirectory = logDirectory
            self.limits = limits
        }
    }

    public let configuration: Configuration
    public let catalog: RuleCatalog
    let lobby: Lobby
    let web: WebAssets
    private let nextClientID = ClientCounter()

    public init(configuration: Configuration) throws {
        self.configuration = configuration
        catalog = try RuleCatalog(directory: configuration.rulesDirectory)
        lobby = Lobby(catalog: catalog, limits: configuration.limits, logDirectory: configuration.logDirectory)
        web = WebAssets()
    }

    /// Serves until the task is cancelled (or, with `signals`, until SIGINT/SIGTERM);
    /// `onStart` gets the port once the server listens.
    public func run(signals: Bool = false, onStart: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        var logger = Logger(label: "dicehost-serve")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? Logger.Level(rawValue: configuration.logLevel) ?? .warning
        let router = Router(context: BasicWebSocketRequestContext.self)
        web.addRoutes(to: router)
        router.get("/health") { _, _ in "ok\n" }
        let lobby = self.lobby, limits = configuration.limits, counter = nextClientID
        router.ws("/ws") { inbound, outbound, _ in
            let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(limits.outboundBacklog))
            let channel = ClientChannel(id: counter.next(), continuation: continuation)
            let connection = ClientConnection(channel: channel, lobby: lobby, limits: limits)
            let writer = Task {
                for await text in stream {
                    do { try await outbound.write(.text(text)) } catch { break }
                }
            }
            do {
                for try await message in inbound.messages(maxSize: ServerProtocol.maxMessageBytes) {
                    switch message {
                    case .text(let text): await connection.receive(text)
                    case .binary: connection.sendError("bad-message", "binary messages are not part of the protocol; send JSON text")
                    }
                    if connection.closing { break }
                }
            } catch {
                // A message over the size limit, or a broken connection: it closes.
            }
            await connection.disconnected()
            channel.finish()
            await writer.value
        }
        let webSocket = WebSocketServerConfiguration(maxFrameSize: ServerProtocol.maxMessageBytes, autoPing: .enabled(timePeriod: .seconds(30)))
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(ws: webSocket)),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "dicehost"),
            onServerRunning: { channel in onStart(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let watcher: Task<Void, Never>? = limits.watchRules ? Task { [lobby] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(limits.watchIntervalMilliseconds))
                for room in await lobby.allRooms { await room.pollRules() }
            }
        } : nil
        let sweeper = Task { [lobby] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(30))
                await lobby.sweep()
            }
        }
        defer { watcher?.cancel(); sweeper.cancel() }
        try await app.runService(gracefulShutdownSignals: signals ? [.sigterm, .sigint] : [])
    }
}

/// Hands out connection ids.
final class ClientCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value: UInt64 = 0
    func next() -> UInt64 { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}
