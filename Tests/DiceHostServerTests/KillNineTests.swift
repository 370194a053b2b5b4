@testable import DiceHostServer
import Foundation
import Testing

/// A real `dicehost serve` process with a store, killed with SIGKILL while its rooms play
/// and started again on the same store: no input it acknowledged is missing, and every
/// event a client was sent is the replayed game's.
@Suite(.serialized)
struct KillNineTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Starts `dicehost serve` and returns it with the port it printed.
    func serve(_ arguments: [String]) throws -> (Process, Int) {
        let process = Process()
        process.executableURL = Self.packageRoot.appendingPathComponent(".build/debug/dicehost")
        process.arguments = ["serve"] + arguments + ["--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        // "dicehost serve: http://127.0.0.1:PORT/ (rules: …)"
        let port = text.split(separator: ":").dropFirst(3).first.flatMap { Int($0.prefix { $0.isNumber }) }
        guard let port else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw StoreError("serve printed no port: \(text)")
        }
        return (process, port)
    }

    struct Seat {
        let client: TestClient
        let token: String
        var acked: Int = 0
    }

    typealias RollingRoom = (id: String, seats: [Seat])

    /// `count` rooms of race.lua on the server at `port`, Ann and Bob seated.
    static func rooms(_ count: Int, port: Int) async throws -> [RollingRoom] {
        let server = TestServer(port: port, task: Task {})
        var rooms: [RollingRoom] = []
        for _ in 0..<count {
            let r = try await server.twoPlayerRoom("race.lua", fields: ["params": ["target": "100000"]])
            rooms.append((r.room, [Seat(client: r.ann, token: try #require(r.annJoined["token"] as? String)),
                                   Seat(client: r.bob, token: try #require(r.bobJoined["token"] as? String))]))
        }
        return rooms
    }

    /// Seat `seat` of `room` joins the server at `port` again with its token; its `lastSeq`
    /// must be at least the `acked` inputs it had acknowledged before.
    static func comeBack(_ room: RollingRoom, seat: Int, port: Int, acked: Int) async throws -> TestClient {
        let client = try await TestClient.connect(port: port)
        try await client.hello()
        client.send(["type": "join", "room": room.id, "token": room.seats[seat].token])
        let joined = try #require(await client.next("joined"), "room \(room.id) seat \(seat + 1) comes back")
        let lastSeq = try #require(joined["lastSeq"] as? Int)
        #expect(lastSeq >= acked, "room \(room.id) seat \(seat + 1): \(acked) inputs acknowledged, \(lastSeq) stored")
        return client
    }

    /// In each room Ann and Bob take turns rolling as fast as the acks come, until an ack
    /// does not come; each task gives the seats' last acknowledged seq.
    static func rollAsFastAsAcksCome(_ rooms: [RollingRoom], counting acks: AckCounter) -> [Task<[Int], Never>] {
        rooms.map { room in
            Task { () -> [Int] in
                var acked = [0, 0]
                for turn in 0..<10_000 {
                    let seat = turn % 2
                    let client = room.seats[seat].client
                    client.send(["type": "roll", "seq": acked[seat] + 1])
                    guard let ack = await client.next("ack", timeout: .seconds(3)), ack["seq"] as? Int == acked[seat] + 1 else { break }
                    acked[seat] += 1
                    acks.add()
                }
                return acked
            }
        }
    }

    @Test func noAcknowledgedInputIsMissingAfterTheServerIsKilled() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.packageRoot.appendingPathComponent(".build/debug/dicehost").path) else {
            Issue.record("build dicehost first (swift build): this test runs the binary")
            return
        }
        let race = try String(contentsOfFile: TestServer.repositoryRules + "/race.lua", encoding: .utf8)
        try await withRulesFolder(["race.lua": race]) { rules in
            let store = (rules as NSString).appendingPathComponent("rooms.sqlite")
            let (first, port) = try serve([rules, "--store", store])
            defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }

            // Four rooms; in each, Ann and Bob take turns rolling as fast as the acks come.
            let rooms = try await Self.rooms(4, port: port)
            let acks = AckCounter()
            let players = Self.rollAsFastAsAcksCome(rooms, counting: acks)
            // Killed while every room is sending.
            while acks.count < 60 { try await Task.sleep(for: .milliseconds(5)) }
            kill(first.processIdentifier, SIGKILL)
            first.waitUntilExit()
            var acked: [[Int]] = []
            for player in players { acked.append(await player.value) }
            #expect(acked.allSatisfy { $0[0] > 0 })

            let (second, port2) = try serve([rules, "--store", store])
            defer { kill(second.processIdentifier, SIGKILL); second.waitUntilExit() }
            for (index, room) in rooms.enumerated() {
                for seat in 0..<2 {
                    let client = try await Self.comeBack(room, seat: seat, port: port2, acked: acked[index][seat])
                    let state = try #require(await client.next("state"))
                    // Every event the seat was sent before the kill is the replayed game's, in order.
                    let replayed = try #require(state["events"] as? [[String: Any]]), from = try #require(state["first"] as? Int)
                    let seen = Self.eventTexts(room.seats[seat].client.received)
                    let count = try #require((state["state"] as? [String: Any])?["eventCount"] as? Int)
                    #expect(count >= seen.count, "room \(room.id): the seat saw \(seen.count) events, the replay has \(count)")
                    var compared = 0
                    for (offset, event) in replayed.enumerated() where from + offset < seen.count {
                        compared += 1
                        #expect(Self.canonical(event) == seen[from + offset], "room \(room.id) event \(from + offset)")
                    }
                    #expect(compared > 0, "room \(room.id): some events the seat saw are in the replayed state")
                    client.close()
                }
            }
        }
    }

    /// An event as JSON with sorted keys, to compare.
    static func canonical(_ event: [String: Any]) -> String {
        (try? JSONSerialization.data(withJSONObject: event, options: .sortedKeys)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }

    /// The events a client received, by their number in the game.
    static func eventTexts(_ messages: [[String: Any]]) -> [String] {
        var texts: [String] = []
        for message in messages where message["type"] as? String == "events" || message["type"] as? String == "state" {
            guard let first = message["first"] as? Int, let events = message["events"] as? [[String: Any]] else { continue }
            for (offset, event) in events.enumerated() {
                let index = first + offset
                let text = canonical(event)
                if index < texts.count { texts[index] = text } else if index == texts.count { texts.append(text) }
            }
        }
        return texts
    }
}

final class AckCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}
