import DiceHostServer
import Foundation
import HummingbirdWSClient
import Logging
import Testing

/// A `dicehost serve` on a free loopback port for the length of a test.
struct TestServer {
    let port: Int
    let task: Task<Void, Error>

    static let repositoryRules = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("rules").path

    static func start(rules: String = repositoryRules, logs: String? = nil, limits: ServerLimits = ServerLimits()) async throws -> TestServer {
        try await start(configuration: DiceHostServer.Configuration(rulesDirectory: rules, port: 0, logDirectory: logs, limits: limits))
    }

    static func start(configuration: DiceHostServer.Configuration) async throws -> TestServer {
        var configuration = configuration
        configuration.logLevel = "critical" // stopping the server at the end of a test is not an error
        let server = try DiceHostServer(configuration: configuration)
        let (ports, found) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await server.run { found.yield($0) } }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        return TestServer(port: port, task: task)
    }

    func stop() { task.cancel() }

    /// Stops the server and waits until it let go of its store (and its leases).
    func stopAndWait() async {
        stop()
        _ = try? await task.value
    }

    func client() async throws -> TestClient { try await TestClient.connect(port: port) }

    /// A new two-seat room of `rules` (`fields` added to the create message) with Ann and
    /// Bob seated: their clients, the room, and each one's `joined` message.
    func twoPlayerRoom(_ rules: String, fields: [String: Any] = [:], versions: (ann: Int, bob: Int) = (1, 1)) async throws -> TwoPlayerRoom {
        let ann = try await client(), bob = try await client()
        try await ann.hello(version: versions.ann)
        try await bob.hello(version: versions.bob)
        ann.send(["type": "create", "rules": rules, "seats": 2].merging(fields) { _, new in new })
        let room = try #require(await ann.next("created")?["room"] as? String)
        ann.send(["type": "join", "room": room, "name": "Ann"])
        let annJoined = try #require(await ann.next("joined"))
        bob.send(["type": "join", "room": room, "name": "Bob"])
        let bobJoined = try #require(await bob.next("joined"))
        return TwoPlayerRoom(ann: ann, bob: bob, room: room, annJoined: annJoined, bobJoined: bobJoined)
    }
}

struct TwoPlayerRoom {
    let ann: TestClient, bob: TestClient
    let room: String
    let annJoined: [String: Any], bobJoined: [String: Any]
}

/// One WebSocket client: sends text, and reads the server's messages as JSON objects.
final class TestClient: @unchecked Sendable {
    private let outgoing: AsyncStream<String>.Continuation
    private let mailbox: Mailbox
    private let task: Task<Void, Error>
    /// Every message read so far, in order.
    private(set) var received: [[String: Any]] = []
    /// The same, as the server wrote them (numbers keep their form: `20` is not `20.0`).
    private(set) var receivedTexts: [String] = []

    private init(outgoing: AsyncStream<String>.Continuation, mailbox: Mailbox, task: Task<Void, Error>) {
        self.outgoing = outgoing
        self.mailbox = mailbox
        self.task = task
    }

    /// Set when the server closed the connection (and every message before was read).
    var closed: Bool { mailbox.isEmptyAndEnded }

    /// A client connected to the server at `port`. A refused connection is tried again
    /// until 30 s have passed (a server just started on a loaded machine); its error is
    /// kept for the failure's message, not printed (a passing run stays quiet, and a
    /// client whose server is killed on purpose is reset).
    static func connect(port: Int, path: String = "/ws") async throws -> TestClient {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let (toServer, outgoing) = AsyncStream.makeStream(of: String.self)
            let mailbox = Mailbox()
            let task = Task {
                defer { mailbox.end() }
                do { try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)\(path)", logger: Logger(label: "test-client")) { inbound, outbound, _ in
                    mailbox.open()
                    let writer = Task { for await text in toServer { try await outbound.write(.text(text)) } }
                    defer { writer.cancel() }
                    for try await message in inbound.messages(maxSize: 1 << 24) {
                        if case .text(let text) = message { mailbox.put(text) }
                    }
                } } catch {
                    mailbox.fail(error)
                    throw error
                }
            }
            while !mailbox.isOpen && !mailbox.hasEnded && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            if mailbox.isOpen { return TestClient(outgoing: outgoing, mailbox: mailbox, task: task) }
            task.cancel()
            guard ContinuousClock.now < deadline else {
                throw TestFailure("could not connect to port \(port)" + (mailbox.failure.map { ": \($0)" } ?? ""))
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func send(_ text: String) { outgoing.yield(text) }

    func send(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object) else { return }
        send(String(decoding: data, as: UTF8.self))
    }

    /// The next message from the server (nil when the connection closed or nothing came in time).
    func next(timeout: Duration = .seconds(30)) async -> [String: Any]? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let text = mailbox.take() {
                let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? ["type": "not-json", "text": text]
                received.append(object)
                receivedTexts.append(text)
                return object
            }
            if mailbox.hasEnded || ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Reads messages until one of type `type` (or nil when none comes in time).
    func next(_ type: String, timeout: Duration = .seconds(30)) async -> [String: Any]? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let message = await next(timeout: deadline - ContinuousClock.now) else { return nil }
            if message["type"] as? String == type { return message }
        }
        return nil
    }

    /// Reads what arrives until nothing comes for `quiet`, or for at most `time`.
    func drain(for time: Duration = .milliseconds(300), quiet: Duration? = nil) async -> [[String: Any]] {
        var out: [[String: Any]] = []
        let deadline = ContinuousClock.now + time
        while ContinuousClock.now < deadline, let message = await next(timeout: min(quiet ?? time, deadline - ContinuousClock.now)) {
            out.append(message)
        }
        return out
    }

    /// Reads until an `events` message with an event whose text is `text`.
    func nextEvents(saying text: String, timeout: Duration = .seconds(30)) async -> [String: Any]? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, let message = await next("events", timeout: deadline - ContinuousClock.now) {
            if (message["events"] as? [[String: Any]])?.contains(where: { $0["text"] as? String == text }) == true { return message }
        }
        return nil
    }

    /// Sends hello and reads the server's hello (version 1 unless told: a separate `ack`
    /// for every input; 2 acknowledges an input in its `events` message).
    @discardableResult
    func hello(version: Int = 1) async throws -> [String: Any] {
        send(["type": "hello", "version": version])
        return try #require(await next("hello"))
    }

    func close() { outgoing.finish(); task.cancel() }
}

/// Messages from the server, waiting to be read.
final class Mailbox: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []
    private var opened = false, ended = false
    private var error: String?
    /// Why the connection failed or ended with an error (nil: it did not).
    var failure: String? { lock.lock(); defer { lock.unlock() }; return error }
    func fail(_ failure: Error) { lock.lock(); error = "\(failure)"; lock.unlock() }

    func put(_ text: String) { lock.lock(); messages.append(text); lock.unlock() }
    func take() -> String? { lock.lock(); defer { lock.unlock() }; return messages.isEmpty ? nil : messages.removeFirst() }
    func open() { lock.lock(); opened = true; lock.unlock() }
    func end() { lock.lock(); ended = true; lock.unlock() }
    var isOpen: Bool { lock.lock(); defer { lock.unlock() }; return opened }
    var hasEnded: Bool { lock.lock(); defer { lock.unlock() }; return ended }
    var isEmptyAndEnded: Bool { lock.lock(); defer { lock.unlock() }; return ended && messages.isEmpty }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A folder of rule scripts made for one test, removed after it.
func withRulesFolder(_ files: [String: String], _ body: (String) async throws -> Void) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dicehost-serve-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    for (name, text) in files { try text.write(toFile: (folder as NSString).appendingPathComponent(name), atomically: true, encoding: .utf8) }
    try await body(folder)
}

extension TestClient {
    /// Rolls with `seq` and returns the ack.
    func roll(seq: Int) async throws -> [String: Any] {
        send(["type": "roll", "seq": seq])
        return try #require(await next("ack"))
    }
}
