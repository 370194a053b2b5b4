import DiceHost
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

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
        /// The room store, an SQLite file or a PostgreSQL address (`postgres://…`; nil: rooms
        /// live in memory only and end with the process). Every input is stored before it is
        /// acknowledged. On start the server reopens the rooms it finds unfinished in an
        /// SQLite file; with PostgreSQL, which several processes share, it reopens a room
        /// when a player asks for it and its owner's lease has lapsed.
        public var store: String?
        /// With PostgreSQL: seconds a room's lease runs unrenewed (renewed every quarter of
        /// it): how long the rooms of a process that died wait before another takes them.
        public var leaseSeconds = 5.0
        public var limits = ServerLimits()
        /// The least severe messages of the HTTP server that are logged ($LOG_LEVEL overrides).
        public var logLevel = "warning"
        /// Web origins (`https://table.example`) whose pages may open the WebSocket besides
        /// the server's own; `*` allows any. A browser's WebSocket from another origin is refused.
        public var allowedOrigins: [String] = []

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

    /// Serves until the task is cancelled (or, with `signals`, until SIGINT/SIGTERM: then
    /// new connections are refused, the store writes what it was handed, every client is
    /// closed with 1001 "server restarting", and those that do not answer within 2 s are
    /// cut off; `GoingAway`); `onStart` gets the port once the server listens.
    public func run(signals: Bool = false, onStart: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        FreedMemory.limitArenas()
        var logger = Logger(label: "dicehost-serve")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? Logger.Level(rawValue: configuration.logLevel) ?? .warning
        // HEAD answers as GET does, without the body.
        let router = Router(context: ServerRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: HTTPHygiene.SecurityHeaders())
        web.addRoutes(to: router)
        router.get("/health") { _, _ in "ok\n" }
        let lobby = self.lobby, limits = configuration.limits, counter = nextClientID, origins = configuration.allowedOrigins
        // `open`: WebSocket clients (told to go away on SIGTERM); `sockets`: every TCP
        // connection, capped below the open-files limit (HTTPHygiene.CapacityRefusal).
        let open = OpenConnections(), sockets = ConnectionGauge()
        let (store, commits, startup) = try await openStore()
        router.ws("/ws", shouldUpgrade: { request, _ in
            try HTTPHygiene.checkOrigin(of: request, allowed: origins)
            guard !open.isStopping else {
                throw HTTPError(.serviceUnavailable, message: "this server is restarting; connect again in a moment\n")
            }
            guard open.count < limits.connections else {
                throw HTTPError(.serviceUnavailable, message: "this server holds \(limits.connections) connections, the most it takes; try again later\n")
            }
            return .upgrade([:])
        }) { inbound, outbound, context in
            // Held weakly by the context (ServerRequestContext); gone only if it closed already.
            guard let channel = context.requestContext.channel else { return }
            try await ClientSocket.serve(inbound: inbound, outbound: outbound, channel: channel,
                                         id: counter.next(), lobby: lobby, limits: limits, connections: open)
        }
        // Text frames must be UTF-8 (else close 1007); a client that stops answering pings is closed.
        let webSocket = WebSocketServerConfiguration(maxFrameSize: ServerProtocol.maxMessageBytes, autoPing: .enabled(timePeriod: .seconds(30)),
                                                     closeTimeout: .seconds(5), validateUTF8: true)
        let app = Application(
            router: router,
            server: HTTPHygiene.server(webSocketRouter: router, webSocket: webSocket, limits: limits, connections: sockets),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "dicehost"),
            onServerRunning: { channel in
                // The stored rooms are reopened once the server listens (a client asking for
                // one meanwhile has it reopened first and waits for it).
                await startup?.begin(report: Self.report)
                onStart(channel.localAddress?.port ?? 0)
            },
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
                FreedMemory.giveBack()
            }
        }
        let heartbeat = (store as? any SharedRoomStore).map { shared in Task { [lobby] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(shared.leaseSeconds / 4))
                do { try await lobby.renewLeases() } catch where !Task.isCancelled {
                    FileHandle.standardError.write(Data("dicehost serve: \(error)\n".utf8))
                }
            }
        } }
        defer { watcher?.cancel(); sweeper.cancel(); heartbeat?.cancel() }
        // The store is closed (and its lock let go) before `run` returns, however it ends;
        // in a task of its own, so that closing is not cut short by this task's cancellation.
        let closeStore = {
            // Rooms still waiting to be reopened stay in the store for the next start.
            await startup?.cancel()
            if let store { await Task.detached { await store.close() }.value }
        }
        // GoingAway after the application: the group stops services in reverse order, so the
        // clients are told and let go before the HTTP server waits for its connections to close.
        let services = ServiceGroup(configuration: .init(services: [app, GoingAway(connections: open, commits: commits)],
                                                         gracefulShutdownSignals: signals ? [.sigterm, .sigint] : [], logger: logger))
        do { try await services.run() } catch {
            await closeStore()
            throw error
        }
        await closeStore()
    }
}

extension DiceHostServer {
    /// Opens the room store. An SQLite store's unfinished rooms are read without their inputs
    /// here, before the server listens, and reopened after it does (`StartupRestore`).
    private func openStore() async throws -> (store: (any RoomStore)?, commits: GroupCommit?, startup: StartupRestore?) {
        guard let path = configuration.store else { return (nil, nil, nil) }
        if PostgresAddress.isPostgres(path) {
            // Shared by several processes: rooms are reopened when a player asks for one
            // whose owner's lease lapsed (Lobby.room), not all at start.
            let store = try await PostgresRoomStore.open(address: path, leaseSeconds: configuration.leaseSeconds)
            let commits = GroupCommit(store: store)
            await lobby.attach(commits)
            return (store, commits, nil)
        }
        let store = try await SQLiteRoomStore.open(path: path)
        let commits = GroupCommit(store: store)
        let stored: [StoredRoom]
        do { stored = try await store.unfinishedRoomsWithoutInputs() } catch {
            await store.close()
            throw StoreError("the room store \(path) cannot be read: \(error)")
        }
        await lobby.attach(commits)
        guard !stored.isEmpty else { return (store, commits, nil) }
        let lobby = self.lobby, catalog = self.catalog, limits = configuration.limits
        let startup = StartupRestore(rooms: stored) { head in
            let room: StoredRoom
            do { room = try await store.withInputs(head) } catch {
                FileHandle.standardError.write(Data("dicehost serve: room \(head.id) cannot be read from \(path) (\(error)); it stays in the store\n".utf8))
                return RoomRestorer.Outcome()
            }
            return await RoomRestorer.restore([room], into: lobby, catalog: catalog, limits: limits, commits: commits)
        }
        await lobby.restoring(startup)
        return (store, commits, startup)
    }

    /// Tells the operator which stored rooms were reopened and which were closed, and why.
    @Sendable static func report(_ outcome: RoomRestorer.Outcome) {
        var report = ""
        if !outcome.resumed.isEmpty { report += "dicehost serve: \(outcome.resumed.count) room\(outcome.resumed.count == 1 ? "" : "s") reopened from the store\n" }
        for note in outcome.notes { report += "dicehost serve: \(note)\n" }
        for (room, reason) in outcome.closed { report += "dicehost serve: room \(room) is closed: \(reason)\n" }
        if !report.isEmpty { FileHandle.standardError.write(Data(report.utf8)) }
    }
}

/// Counts the open TCP connections (HTTPHygiene's cap). `@unchecked Sendable`: `value` is read and
/// written only with `lock` held.
final class ConnectionGauge: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.lock(); defer { lock.unlock() }; return value }
    func add(_ delta: Int) { lock.lock(); value += delta; lock.unlock() }
    /// Counts one more unless `limit` are open already; whether it did.
    func take(upTo limit: Int) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard value < limit else { return false }
        value += 1
        return true
    }
}

/// Hands out connection ids. `@unchecked Sendable`: `value` is read and written only with
/// `lock` held.
final class ClientCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value: UInt64 = 0
    func next() -> UInt64 { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}
