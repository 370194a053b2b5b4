import Foundation

/// One client's side of the protocol: the hello, the rate limit, and which room it is
/// in. It reads the client's messages one at a time (from one task) and passes inputs
/// to its room; everything the client is sent goes through its `ClientChannel`.
final class ClientConnection {
    let channel: ClientChannel
    let lobby: Lobby
    let limits: ServerLimits
    private var greeted = false
    /// The protocol version the client said hello with (it decides how inputs are acknowledged).
    private var version = ServerProtocol.version
    private var room: Room?
    private var tokens: Double
    private var lastRefill = ContinuousClock.now
    private var refusalsInARow = 0
    private var roomsCreated = 0
    /// Set when the connection should close after the current message.
    private(set) var closing = false

    init(channel: ClientChannel, lobby: Lobby, limits: ServerLimits) {
        self.channel = channel
        self.lobby = lobby
        self.limits = limits
        tokens = limits.messageBurst
    }

    /// Handles one text message from the client.
    func receive(_ text: String) async {
        guard takeToken() else {
            refusalsInARow += 1
            if refusalsInARow >= limits.refusalsBeforeClose {
                sendError(.rateLimited, "too many messages: the connection is closed", seq: ClientMessage.inputSeq(of: text))
                closing = true
            } else {
                sendError(.rateLimited, "too many messages: at most \(Int(limits.messagesPerSecond)) a second (bursts of \(Int(limits.messageBurst))); this one was dropped", seq: ClientMessage.inputSeq(of: text))
            }
            return
        }
        refusalsInARow = 0
        let message: ClientMessage
        do { message = try ClientMessage.decode(text) } catch let error as ProtocolError {
            return sendError(error.code, error.message, seq: ClientMessage.inputSeq(of: text))
        } catch {
            return sendError(.badMessage, "\(error)", seq: ClientMessage.inputSeq(of: text))
        }
        if case .hello(let version) = message {
            guard ServerProtocol.supportedVersions.contains(version) else {
                sendError(.badVersion, "this server speaks protocol versions \(ServerProtocol.supportedVersions.lowerBound) to \(ServerProtocol.supportedVersions.upperBound), not \(version)")
                closing = true
                return
            }
            greeted = true
            self.version = version
            let rules = lobby.catalog.json
            channel.send(ServerMessage(.hello, [("version", .integer(version)), ("server", .string("dicehost")),
                                                ("maxMessageBytes", .integer(ServerProtocol.maxMessageBytes)),
                                                ("messagesPerSecond", .written(Self.jsonNumber(limits.messagesPerSecond))), ("rules", .written(rules))]).text)
            return
        }
        guard greeted else {
            return sendError(.noHello, "say hello first: {\"type\":\"hello\",\"version\":\(ServerProtocol.version)}")
        }
        switch message {
        case .hello: break
        case .rules: channel.send(ServerMessage(.rules, [("rules", .written(lobby.catalog.json))]).text)
        case .rooms: channel.send(ServerMessage(.rooms, [("rooms", .written(ServerMessage.array((await lobby.list()).map { .written($0) })))]).text)
        case .create(let request):
            guard roomsCreated < limits.roomsPerConnection else {
                return sendError(.tooManyRooms, "one connection may create at most \(limits.roomsPerConnection) rooms")
            }
            do {
                let room = try await lobby.create(request)
                roomsCreated += 1
                channel.send(ServerMessage(.created, room: room.id, [("rules", .string(request.rules))]).text)
            } catch let error as ProtocolError {
                sendError(error.code, error.message)
            } catch {
                sendError(.serverError, "\(error)")
            }
        case .join(let id, let name):
            guard let room = await enter(id) else { return }
            if await room.join(name: name, client: channel) { self.room = room }
        case .rejoin(let id, let token):
            guard let room = await enter(id) else { return }
            if await room.rejoin(token: token, client: channel) { self.room = room }
        case .watch(let id):
            guard let room = await enter(id) else { return }
            if await room.watch(client: channel) { self.room = room }
        case .start(let seq): await play(.start, seq: seq)
        case .ready(let seq): await play(.ready, seq: seq)
        case .abandon(let seq): await play(.abandon, seq: seq)
        case .roll(let seq, let values, let flag): await play(.roll(values: values, flag: flag), seq: seq)
        case .action(let seq, let name, let arguments): await play(.action(name: name, arguments: arguments), seq: seq)
        case .leave:
            await room?.detach(clientID: channel.id, leaving: true)
            room = nil
            channel.send(ServerMessage(.left).text)
        case .ping(let id): channel.send(ServerMessage(.pong, [("id", .json(id.map { .integer($0) } ?? .null))]).text)
        }
    }

    /// Leaves the room the client is in (a client is in one room at a time) and finds `id`.
    private func enter(_ id: String) async -> Room? {
        let found: Room?
        do { found = try await lobby.room(id) } catch let error as ProtocolError {
            sendError(error.code, error.message)
            return nil
        } catch {
            FileHandle.standardError.write(Data("dicehost serve: room \(id) cannot be opened: \(error)\n".utf8))
            sendError(.serverError, "room \(id) cannot be opened (the server's operator is told why)")
            return nil
        }
        guard let target = found else {
            sendError(.noRoom, await lobby.missingRoomText(id))
            return nil
        }
        if let room {
            await room.detach(clientID: channel.id, leaving: true)
            self.room = nil
        }
        return target
    }

    private func play(_ input: Room.Input, seq: Int64) async {
        guard let room else {
            return sendError(.notInRoom, "join a room before playing", seq: seq)
        }
        await room.input(input, seq: seq, from: channel.id, ackInEvents: version >= 2)
    }

    /// The connection closed: the seat stays for its token.
    func disconnected() async {
        await room?.detach(clientID: channel.id, leaving: false)
        room = nil
    }

    private func takeToken() -> Bool {
        let now = ContinuousClock.now
        let elapsed = now - lastRefill
        lastRefill = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(limits.messageBurst, tokens + seconds * limits.messagesPerSecond)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// A limit as JSON: a whole number as one (`20`, not `20.0`: clients read the doc's integer).
    static func jsonNumber(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.isFinite ? "\(value)" : "0"
    }

    func sendError(_ code: ErrorCode, _ message: String, seq: Int64? = nil) {
        channel.send(ServerMessage.error(code, message, seq: seq).text)
    }
}
