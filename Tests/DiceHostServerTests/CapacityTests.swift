import DiceHostServer
import Foundation
import Testing

/// A server under more load than it has CPU for (issue 32): overload slows a game, never
/// corrupts or drops what a client is told; a long game's history is bounded.
@Suite(.serialized)
struct CapacityTests {
    /// Two seats; `note` may be sent by either at any time: one event for everyone, one
    /// for the sender only (so the seats' event lists differ).
    static let noteRules = """
        local r = rules { name = "Notes", players = {2, 2}, dice = "1d6" }
        function r.roll(g, p, roll) end
        r.anytime = { "note" }
        r.actions = {
          note = function(g, p)
            g.state.notes = (g.state.notes or 0) + 1
            g:say("%s noted (%d)", p.name, g.state.notes)
            g:tell(p, "your note %d is in", g.state.notes)
          end,
        }
        return r
        """

    /// One seat's part in a room: its client, its name, and what it was sent.
    final class Seat: @unchecked Sendable {
        let client: TestClient
        let name: String
        var events: [String] = []
        var problems: [String] = []
        var acks = 0
        /// The game's event count after the last message: where the next `events` must start.
        var nextFirst: Int?
        init(client: TestClient, name: String) {
            self.client = client
            self.name = name
        }
    }

    /// An event as JSON with sorted keys, without the room log's one-line `text`.
    static func canonical(_ event: [String: Any]) -> String {
        var event = event
        event["text"] = nil
        guard let data = try? JSONSerialization.data(withJSONObject: event, options: [.sortedKeys]) else { return "?" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The events of a room's log file as seat `name` receives them (all of them: nil), of
    /// the last `last` events of the game only if given.
    static func loggedEvents(in folder: String, room: String, seenBy name: String?, last: Int? = nil) throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("room-\(room)-") }
        let file = try #require(files.first, "no log file for room \(room)")
        var events: [[String: Any]] = []
        for line in try String(contentsOfFile: (folder as NSString).appendingPathComponent(file), encoding: .utf8).split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            events += object["events"] as? [[String: Any]] ?? []
        }
        return events.suffix(last ?? events.count).filter { event in
            guard let name, let audience = event["to"] as? [String] else { return true }
            return audience.contains(name)
        }.map(canonical)
    }

    /// Reads a seat's messages until it has `inputs` acks and its events reach the game's
    /// `events`-th (or the time is up), checking that events arrive numbered on from what
    /// it has, with no gap and no repeat.
    static func collect(_ seat: Seat, inputs: Int, events: Int, timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        while seat.acks < inputs || (seat.nextFirst ?? 0) < events, ContinuousClock.now < deadline {
            guard let message = await seat.client.next(timeout: .seconds(30)) else { break }
            take(message, into: seat)
        }
    }

    static func take(_ message: [String: Any], into seat: Seat) {
        switch message["type"] as? String {
        case "ack": seat.acks += 1
        case "error": seat.problems.append("error: \(message["code"] ?? "?") \(message["message"] ?? "")")
        case "events", "state":
            guard let events = message["events"] as? [[String: Any]], let first = message["first"] as? Int else { return }
            let count = (message["state"] as? [String: Any])?["eventCount"] as? Int
            // `events` must start where the last message's state ended (the events for
            // other seats are counted, not sent); a `state` is the joining client's start.
            if message["type"] as? String == "events", first != seat.nextFirst ?? 0 {
                seat.problems.append("events numbered from \(first), expected \(seat.nextFirst ?? 0)")
            }
            if message["type"] as? String == "events" || seat.events.isEmpty { seat.events += events.map(canonical) }
            if let count { seat.nextFirst = count }
        default: break
        }
    }

    @Test func overloadedRoomsSlowDownButEveryClientGetsExactlyItsRoomsLog() async throws {
        try await withRulesFolder(["notes.lua": Self.noteRules]) { folder in
            let logs = (folder as NSString).appendingPathComponent("logs")
            try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
            var limits = ServerLimits()
            // A tiny share of CPU a room (1% of a core, a 5 ms burst): every room is slowed
            // almost at once, and its inputs wait their turn; none is suspended here.
            limits.roomCPUShare = 0.01
            limits.roomCPUBurstSeconds = 0.005
            limits.roomSuspendAfterSeconds = 3_600
            limits.messagesPerSecond = 1_000
            limits.messageBurst = 1_000
            let server = try await TestServer.start(rules: folder, logs: logs, limits: limits)
            defer { server.stop() }
            let roomCount = 12, inputs = 15
            var rooms: [(id: String, seats: [Seat])] = []
            for _ in 0..<roomCount {
                let room = try await server.twoPlayerRoom("notes.lua")
                rooms.append((room.room, [Seat(client: room.ann, name: "Ann"), Seat(client: room.bob, name: "Bob")]))
            }
            // Every seat sends all its inputs at once, far faster than its room may run them.
            for (_, seats) in rooms {
                for seat in seats {
                    for seq in 1...inputs { seat.client.send(["type": "action", "seq": seq, "name": "note"]) }
                }
            }
            await withTaskGroup(of: Void.self) { group in
                for (_, seats) in rooms {
                    // Both seats' inputs: 2 events each, after the start and the first turn.
                    for seat in seats { group.addTask { await Self.collect(seat, inputs: inputs, events: 2 + 4 * inputs, timeout: .seconds(240)) } }
                }
            }
            for (id, seats) in rooms {
                for seat in seats {
                    #expect(seat.problems.isEmpty, "room \(id), \(seat.name): \(seat.problems.prefix(3))")
                    #expect(seat.acks == inputs, "room \(id), \(seat.name): \(seat.acks) of \(inputs) inputs acknowledged")
                    let logged = try Self.loggedEvents(in: logs, room: id, seenBy: seat.name)
                    // A seat sees both seats' says and its own tells, after the start and the turn.
                    #expect(logged.count == 2 + 3 * inputs)
                    #expect(seat.events == logged, "room \(id), \(seat.name): \(seat.events.count) events received, \(logged.count) in the log")
                    seat.client.close()
                }
            }
        }
    }

    @Test func aLongGameKeepsABoundedHistoryAndNumbersItsEventsOnWithoutAGap() async throws {
        try await withRulesFolder(["notes.lua": Self.noteRules]) { folder in
            let logs = (folder as NSString).appendingPathComponent("logs")
            try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
            var limits = ServerLimits()
            limits.historyEvents = 4
            limits.messagesPerSecond = 1_000
            limits.messageBurst = 1_000
            let server = try await TestServer.start(rules: folder, logs: logs, limits: limits)
            defer { server.stop() }
            let room = try await server.twoPlayerRoom("notes.lua")
            let ann = Seat(client: room.ann, name: "Ann"), bob = Seat(client: room.bob, name: "Bob")
            let inputs = 30 // 2 events each: many times what the room keeps (4, forgotten past 8)
            for seq in 1...inputs { ann.client.send(["type": "action", "seq": seq, "name": "note"]) }
            await Self.collect(ann, inputs: inputs, events: 2 + 2 * inputs, timeout: .seconds(60))
            await Self.collect(bob, inputs: 0, events: 2 + 2 * inputs, timeout: .seconds(60))
            #expect(ann.problems.isEmpty, "\(ann.problems.prefix(3))")
            #expect(bob.problems.isEmpty, "\(bob.problems.prefix(3))")
            #expect(ann.events == (try Self.loggedEvents(in: logs, room: room.room, seenBy: "Ann")))
            #expect(bob.events == (try Self.loggedEvents(in: logs, room: room.room, seenBy: "Bob")))
            // Coming back, Bob is shown the last events, numbered as before.
            let token = try #require(room.bobJoined["token"] as? String)
            let again = try await server.client()
            try await again.hello()
            again.send(["type": "join", "room": room.room, "token": token])
            let state = try #require(await again.next("state"))
            let first = try #require(state["first"] as? Int)
            let events = try #require(state["events"] as? [[String: Any]])
            let count = try #require((state["state"] as? [String: Any])?["eventCount"] as? Int)
            #expect(count == 2 + 2 * inputs) // start, turn, then 2 a note
            #expect(first == count - 4)
            #expect(events.map(Self.canonical) == (try Self.loggedEvents(in: logs, room: room.room, seenBy: "Bob", last: 4)))
            again.close()
        }
    }

    @Test func theOpenFilesLimitIsRaisedAsFarAsTheSystemAllowsAndAShortfallIsNamed() throws {
        var limits = ServerLimits()
        limits.connections = 10_000
        limits.rooms = 5_000
        #expect(OpenFileLimit.reserve(processors: 2) == 88)
        #expect(OpenFileLimit.needed(for: limits, logs: false, processors: 2) == 10_088)
        #expect(OpenFileLimit.needed(for: limits, logs: true, processors: 2) == 15_088)
        let now = try #require(OpenFileLimit.raise(toward: 64))
        #expect(now.isEnough && now.now >= 64 && now.now <= now.hard)
        // More than the hard limit allows: raised to the hard limit, and said so.
        let short = try #require(OpenFileLimit.raise(toward: now.hard == .max ? .max : now.hard + 1))
        if now.hard != .max {
            #expect(!short.isEnough)
            #expect(short.now == short.hard)
            #expect(short.report.contains("below the \(now.hard + 1)"))
            #expect(short.report.contains("ulimit -Hn"))
        }
    }

    @Test func belowWhatTheLimitsNeedConnectionsAndLoggedRoomsAreCutToLeaveTheReserve() {
        var limits = ServerLimits()
        limits.connections = 10_000
        limits.rooms = 5_000
        let low = OpenFileLimit(before: 200, now: 200, hard: 200, needed: 15_088)
        // 200 files less the reserve of 88: 112 for clients, a third of them for room logs.
        let logged = low.fitting(limits, logs: true, processors: 2)
        #expect(logged.connections == 75 && logged.rooms == 37)
        let unlogged = low.fitting(limits, logs: false, processors: 2)
        #expect(unlogged.connections == 112 && unlogged.rooms == 5_000)
        #expect(low.capReport(configured: limits, fitted: logged)?.contains("at most 75 connections (not 10000) and 37 rooms (not 5000)") == true)
        // Fewer files than the reserve: no connection at all rather than a crash later.
        #expect(OpenFileLimit(before: 50, now: 50, hard: 50, needed: 10_088).fitting(limits, logs: false, processors: 2).connections == 0)
        // Enough: nothing changes, nothing to say.
        let plenty = OpenFileLimit(before: 1_024, now: 20_000, hard: 20_000, needed: 15_088)
        let same = plenty.fitting(limits, logs: true, processors: 2)
        #expect(same.connections == 10_000 && same.rooms == 5_000)
        #expect(plenty.capReport(configured: limits, fitted: same) == nil)
    }
}
