import DiceHost
import DiceHostServer
import Foundation
import Testing

/// The protocol of docs/protocol.md against a real server on a loopback port.
@Suite(.serialized)
struct ProtocolTests {
    /// Two players seated in a new Snap room (the game starts when the seats are full).
    func snapRoom(_ server: TestServer, params: [String: Any] = [:]) async throws -> (ann: TestClient, bob: TestClient, room: String, annToken: String) {
        let r = try await server.twoPlayerRoom("snap.lua", fields: ["params": params])
        #expect(r.annJoined["seat"] as? Int == 1)
        let token = try #require(r.annJoined["token"] as? String)
        #expect(r.bobJoined["seat"] as? Int == 2)
        return (r.ann, r.bob, r.room, token)
    }

    @Test func helloListsTheRulesAndTheVersion() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try await server.client()
        let hello = try await client.hello()
        #expect(hello["version"] as? Int == 1)
        let files = (hello["rules"] as? [[String: Any]])?.compactMap { $0["file"] as? String } ?? []
        #expect(files.contains("snap.lua") && files.contains("race.lua"))
        let snap = (hello["rules"] as? [[String: Any]])?.first { $0["file"] as? String == "snap.lua" }
        #expect(snap?["actions"] as? [String] == ["flip", "show", "snap"])
    }

    @Test func everyBadMessageGetsAClearErrorAndTheConnectionGoesOn() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try await server.client()
        client.send(["type": "rooms"])
        #expect(try #require(await client.next("error"))["code"] as? String == "no-hello")
        try await client.hello()
        let cases: [(String, String, String)] = [
            ("not json", "bad-json", "not valid JSON"),
            ("[1,2]", "bad-message", "a list"),
            ("{\"version\":1}", "missing-field", "\"type\""),
            ("{\"type\":\"dance\"}", "unknown-type", "unknown message type 'dance'"),
            ("{\"type\":\"join\",\"room\":\"../etc\",\"name\":\"Ann\"}", "bad-room", "letters, digits"),
            ("{\"type\":\"join\",\"room\":\"abc\",\"name\":\"\"}", "bad-name", "1 to 32"),
            ("{\"type\":\"join\",\"room\":\"abc\",\"name\":\"A\\nB\"}", "bad-name", "control characters"),
            ("{\"type\":\"join\",\"room\":\"abc\",\"name\":\"Ann Lee\"}", "bad-name", "no spaces"),
            ("{\"type\":\"join\",\"room\":\"abc\",\"name\":\"Bo\\\"\"}", "bad-name", "quotes"),
            // A string with a space is an argument as sent: refused here only for want of a room.
            ("{\"type\":\"action\",\"seq\":1,\"name\":\"x\",\"args\":[\"two words\"]}", "not-in-room", "join a room"),
            ("{\"type\":\"action\",\"seq\":1,\"name\":\"x\",\"args\":[1,[2]]}", "bad-field", "'args[1]'"),
            ("{\"type\":\"join\",\"room\":\"nosuch\",\"name\":\"Ann\"}", "no-room", "there is no room nosuch"),
            ("{\"type\":\"roll\",\"seq\":0}", "bad-field", "\"seq\" must be a whole number from 1"),
            ("{\"type\":\"roll\",\"seq\":1.5}", "bad-field", "\"seq\""),
            ("{\"type\":\"roll\",\"seq\":true}", "bad-field", "\"seq\""),
            ("{\"type\":\"roll\",\"seq\":1}", "not-in-room", "join a room"),
            ("{\"type\":\"action\",\"seq\":1,\"name\":\"snap\",\"args\":[{}]}", "bad-field", "'args[0]'"),
            ("{\"type\":\"create\",\"rules\":\"../../etc/passwd\"}", "unknown-rules", "no rule script"),
            ("{\"type\":\"create\",\"rules\":\"snap.lua\",\"seats\":9}", "bad-field", "2 to 4 players"),
            ("{\"type\":\"create\",\"rules\":\"snap.lua\",\"params\":{\"flip_ms\":\"soon\"}}", "bad-params", "flip_ms"),
            ("{\"type\":\"hello\",\"version\":\"1\"}", "bad-field", "\"version\""),
        ]
        for (text, code, words) in cases {
            client.send(text)
            let error = try #require(await client.next("error"), "no error for \(text)")
            #expect(error["code"] as? String == code, "\(text)")
            #expect((error["message"] as? String)?.contains(words) == true, "\(text): \(error["message"] ?? "")")
        }
        client.send(["type": "ping", "id": 7])
        #expect(try #require(await client.next("pong"))["id"] as? Int == 7)
    }

    @Test func aMessageOverTheSizeLimitClosesOnlyThatConnection() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let big = try await server.client(), other = try await server.client()
        try await big.hello()
        try await other.hello()
        big.send("{\"type\":\"ping\",\"pad\":\"" + String(repeating: "x", count: 20_000) + "\"}")
        _ = await big.drain(for: .seconds(2), quiet: .seconds(1))
        #expect(big.closed)
        other.send(["type": "ping", "id": 1])
        #expect(await other.next("pong") != nil)
    }

    @Test func aWrongProtocolVersionIsRefused() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try await server.client()
        client.send(["type": "hello", "version": 99])
        let error = try #require(await client.next("error"))
        #expect(error["code"] as? String == "bad-version")
        _ = await client.drain(for: .seconds(1), quiet: .milliseconds(500))
        #expect(client.closed)
    }

    @Test func theServerEnforcesTurnsAndBroadcastsTheSameEventsInOrder() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (ann, bob, _, _) = try await snapRoom(server)
        let started = try #require(await ann.next("events"))
        #expect(started["first"] as? Int == 0)
        let state = try #require(started["state"] as? [String: Any])
        #expect(state["phase"] as? String == "playing")
        #expect(state["current"] as? String == "Ann")
        _ = try #require(await bob.next("events"))

        // Bob may not roll on Ann's turn: refused, to Bob only, the game unchanged.
        bob.send(["type": "roll", "seq": 1])
        let refused = try #require(await bob.next("error"))
        #expect(refused["code"] as? String == "not-your-turn")
        #expect(refused["seq"] as? Int == 1)
        #expect((refused["message"] as? String)?.contains("Ann's turn") == true)
        // An action out of turn too, unless the rules list it in `anytime` (Snap's snap and show).
        bob.send(["type": "action", "seq": 2, "name": "flip"])
        let flipRefusal = try #require(await bob.next("error"))
        #expect(flipRefusal["code"] as? String == "not-your-turn")
        #expect((flipRefusal["message"] as? String)?.contains("it is Ann's turn, not yours") == true)
        bob.send(["type": "action", "seq": 3, "name": "show"])
        #expect(try #require(await bob.next("ack"))["seq"] as? Int == 3)
        _ = try #require(await bob.next("events"))
        let shown = try #require(await ann.next("events"))

        ann.send(["type": "roll", "seq": 1])
        #expect(try #require(await ann.next("ack"))["seq"] as? Int == 1)
        let annSees = try #require(await ann.next("events"))
        let bobSees = try #require(await bob.next("events"))
        // Snap hides nothing the view shows: both seats get the same message but for
        // whom it is made (`viewer`), when (`clock`), the seat's moves (Bob's turn to
        // flip; snap and show are anyone's) and its table (in the seat's words: "Your flip").
        var annState = try #require(annSees["state"] as? [String: Any]), bobState = try #require(bobSees["state"] as? [String: Any])
        #expect(annState.removeValue(forKey: "viewer") as? String == "Ann" && bobState.removeValue(forKey: "viewer") as? String == "Bob")
        let annMoves = annState.removeValue(forKey: "moves") as? [String: [[Any]]], bobMoves = bobState.removeValue(forKey: "moves") as? [String: [[Any]]]
        #expect(annMoves?["flip"]?.count == 0 && bobMoves?["flip"]?.count == 1 && annMoves?["snap"]?.count == 1 && bobMoves?["snap"]?.count == 1)
        #expect((annState.removeValue(forKey: "table") as? [String: Any])?["turn"] as? String == "Bob's turn")
        #expect((bobState.removeValue(forKey: "table") as? [String: Any])?["turn"] as? String == "Your turn")
        for key in ["clock"] { annState[key] = nil; bobState[key] = nil }  // made a moment apart
        let sorted = { (state: [String: Any]) in
            String(decoding: (try? JSONSerialization.data(withJSONObject: state, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
        }
        #expect(sorted(annState) == sorted(bobState))
        #expect(NSArray(array: annSees["events"] as? [Any] ?? []).isEqual(to: bobSees["events"] as? [Any] ?? []))
        let events = try #require(annSees["events"] as? [[String: Any]])
        #expect(events.first?["type"] as? String == "roll")
        #expect(events.first?["player"] as? String == "Ann")
        #expect(events.contains { $0["type"] as? String == "turn" && $0["player"] as? String == "Bob" })
        #expect((annSees["state"] as? [String: Any])?["current"] as? String == "Bob")
        let shownCount = (shown["events"] as? [Any])?.count ?? 0
        #expect(annSees["first"] as? Int == ((started["events"] as? [Any])?.count ?? 0) + shownCount)
    }

    @Test func aRepeatedSequenceNumberIsNeverAppliedTwice() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (ann, _, _, _) = try await snapRoom(server)
        _ = try #require(await ann.next("events"))
        ann.send(["type": "roll", "seq": 5])
        _ = try #require(await ann.next("ack"))
        let first = try #require(await ann.next("events"))
        ann.send(["type": "roll", "seq": 5])
        let again = try #require(await ann.next("ack"))
        #expect(again["duplicate"] as? Bool == true)
        ann.send(["type": "roll", "seq": 3])
        #expect(try #require(await ann.next("ack"))["duplicate"] as? Bool == true)
        let after = await ann.drain(for: .milliseconds(400), quiet: .milliseconds(400))
        #expect(!after.contains { $0["type"] as? String == "events" }, "a repeated input was applied")
        let count = ((first["state"] as? [String: Any])?["eventCount"] as? Int) ?? -1
        ann.send(["type": "action", "seq": 6, "name": "show"])
        let shown = try #require(await ann.next("events"))
        #expect(shown["first"] as? Int == count)
    }

    @Test func aPlayerWhoComesBackWithTheTokenGetsTheSeatAndTheState() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (ann, bob, room, token) = try await snapRoom(server)
        _ = try #require(await ann.next("events"))
        ann.send(["type": "roll", "seq": 1])
        _ = try #require(await ann.next("events"))
        ann.close()
        var annOffline = false
        while !annOffline, let message = await bob.next("state", timeout: .seconds(5)) {
            let players = (message["state"] as? [String: Any])?["players"] as? [[String: Any]] ?? []
            annOffline = players.first { $0["name"] as? String == "Ann" }?["connected"] as? Bool == false
        }
        #expect(annOffline, "the others see that Ann dropped")

        let back = try await server.client()
        try await back.hello()
        back.send(["type": "join", "room": room, "token": "0000"])
        #expect(try #require(await back.next("error"))["code"] as? String == "bad-token")
        back.send(["type": "join", "room": room, "name": "Ann"])
        #expect(try #require(await back.next("error"))["code"] as? String == "name-taken")
        back.send(["type": "join", "room": room, "token": token])
        let joined = try #require(await back.next("joined"))
        #expect(joined["name"] as? String == "Ann")
        #expect(joined["seat"] as? Int == 1)
        #expect(joined["lastSeq"] as? Int == 1)
        let state = try #require(await back.next("state"))
        #expect((state["state"] as? [String: Any])?["current"] as? String == "Bob")
        #expect((state["events"] as? [[String: Any]])?.contains { $0["type"] as? String == "roll" && $0["player"] as? String == "Ann" } == true)
        // The sequence numbers go on: seq 1 again is a repeat.
        back.send(["type": "action", "seq": 1, "name": "show"])
        #expect(try #require(await back.next("ack"))["duplicate"] as? Bool == true)
    }

    @Test func spectatorsWatchButCannotPlay() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (ann, _, room, _) = try await snapRoom(server)
        let watcher = try await server.client()
        try await watcher.hello()
        watcher.send(["type": "watch", "room": room])
        _ = try #require(await watcher.next("watching"))
        watcher.send(["type": "roll", "seq": 1])
        #expect(try #require(await watcher.next("error"))["code"] as? String == "spectator")
        _ = await ann.drain(for: .milliseconds(200), quiet: .milliseconds(200))
        ann.send(["type": "roll", "seq": 1])
        let seen = try #require(await watcher.next("events"))
        #expect((seen["events"] as? [[String: Any]])?.first?["type"] as? String == "roll")
    }

    @Test func timersRunOnTheServersClock() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (ann, bob, _, _) = try await snapRoom(server, params: ["flip_ms": 300])
        _ = try #require(await ann.next("events"))
        // Nobody flips: after 300 ms the card turns itself and the turn passes, twice.
        var slow = 0
        let deadline = ContinuousClock.now + .seconds(5)
        while slow < 2, ContinuousClock.now < deadline, let message = await bob.next("events", timeout: .seconds(3)) {
            let events = message["events"] as? [[String: Any]] ?? []
            slow += events.filter { ($0["text"] as? String)?.contains("too slow") == true }.count
            if slow > 0 { #expect((message["cause"] as? [String: Any])?["input"] as? String == "clock") }
        }
        #expect(slow >= 2)
    }

    @Test func theRateLimitRefusesAFloodAndTheServerStaysUp() async throws {
        var limits = ServerLimits()
        limits.messagesPerSecond = 5
        limits.messageBurst = 5
        limits.refusalsBeforeClose = 20
        let server = try await TestServer.start(limits: limits)
        defer { server.stop() }
        let flood = try await server.client()
        try await flood.hello()
        for id in 0..<40 { flood.send(["type": "ping", "id": id]) }
        let replies = await flood.drain(for: .seconds(2), quiet: .milliseconds(500))
        #expect(replies.filter { $0["type"] as? String == "pong" }.count <= 5)
        #expect(replies.contains { $0["code"] as? String == "rate-limited" })
        #expect(flood.closed)
        let calm = try await server.client()
        try await calm.hello()
    }

    @Test func oneRoomsFailingRuleTouchesNoOtherRoom() async throws {
        let broken = """
            local r = rules { name = "Breaks", players = {1, 2}, dice = "1d6" }
            function r.roll(g, p, roll) g:say("rolled %d", roll.total) end
            r.actions = { boom = function(g, p) local t = {} ; while true do t[#t + 1] = 1 end end }
            return r
            """
        try await withRulesFolder(["breaks.lua": broken]) { folder in
            let server = try await TestServer.start(rules: folder)
            defer { server.stop() }
            let a = try await server.client(), b = try await server.client()
            try await a.hello()
            try await b.hello()
            for (client, name) in [(a, "A"), (b, "B")] {
                client.send(["type": "create", "rules": "breaks.lua", "seats": 1])
                let room = try #require(await client.next("created")?["room"] as? String)
                client.send(["type": "join", "room": room, "name": name])
                _ = try #require(await client.next("events"))
            }
            a.send(["type": "action", "seq": 1, "name": "boom"])
            let error = try #require(await a.next("error", timeout: .seconds(30)))
            #expect(error["code"] as? String == "rule-error")
            b.send(["type": "roll", "seq": 1])
            let events = try #require(await b.next("events"))
            #expect((events["events"] as? [[String: Any]])?.contains { ($0["text"] as? String)?.hasPrefix("rolled") == true } == true)
            // Room A still plays after its rolled-back input.
            a.send(["type": "roll", "seq": 2])
            #expect(await a.next("events") != nil)
        }
    }

    @Test func aSavedRuleFileReloadsInEveryRoomAndEveryClientIsTold() async throws {
        let version = { (word: String) in """
            local r = rules { name = "Echo", players = {1, 2}, dice = "1d6" }
            function r.roll(g, p, roll) g.state.n = (g.state.n or 0) + 1; g:say("\(word) %d", g.state.n) end
            return r
            """ }
        try await withRulesFolder(["echo.lua": version("one")]) { folder in
            var limits = ServerLimits()
            limits.watchRules = true
            limits.watchIntervalMilliseconds = 50
            let server = try await TestServer.start(rules: folder, limits: limits)
            defer { server.stop() }
            let a = try await server.client()
            try await a.hello()
            a.send(["type": "create", "rules": "echo.lua", "seats": 1])
            let room = try #require(await a.next("created")?["room"] as? String)
            a.send(["type": "join", "room": room, "name": "Ann"])
            _ = try #require(await a.next("events"))
            a.send(["type": "roll", "seq": 1])
            let before = try #require(await a.next("events"))
            #expect((before["events"] as? [[String: Any]])?.contains { $0["text"] as? String == "one 1" } == true)
            try await Task.sleep(for: .milliseconds(1100)) // a new modification time
            try version("two").write(toFile: folder + "/echo.lua", atomically: true, encoding: .utf8)
            let reloaded = try #require(await a.next("reloaded"))
            #expect(reloaded["files"] as? String == "echo.lua")
            a.send(["type": "roll", "seq": 2])
            #expect(await a.nextEvents(saying: "two 2") != nil, "the state was kept and the new rules run")
            // A broken save: every client is told, the old rules go on.
            try await Task.sleep(for: .milliseconds(1100))
            try "this is not lua".write(toFile: folder + "/echo.lua", atomically: true, encoding: .utf8)
            let failed = try #require(await a.next("error"))
            #expect(failed["code"] as? String == "reload-failed")
            a.send(["type": "roll", "seq": 3])
            #expect(await a.nextEvents(saying: "two 3") != nil, "the old rules go on after a failed reload")
        }
    }

    @Test func theRoomLogHoldsEveryEventEachClientWasSentAndReplays() async throws {
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("dicehost-logs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: logs) }
        let server = try await TestServer.start(logs: logs)
        defer { server.stop() }
        // Timers fire on the server's clock (200 ms), players act between them.
        let (ann, bob, room, _) = try await snapRoom(server, params: ["flip_ms": 200])
        for seq in 1...3 {
            ann.send(["type": "roll", "seq": seq])
            _ = await ann.next("ack")
            try await Task.sleep(for: .milliseconds(250))
        }
        bob.send(["type": "action", "seq": 1, "name": "snap"])
        bob.send(["type": "action", "seq": 2, "name": "show", "args": [25, "red", true]])
        try await Task.sleep(for: .milliseconds(300))
        var seen: [String] = []
        _ = await bob.drain(for: .seconds(1))
        for message in bob.received where message["type"] as? String == "events" {
            let first = message["first"] as? Int ?? -1
            #expect(first == seen.count, "events arrive in order, none lost or repeated")
            for event in message["events"] as? [[String: Any]] ?? [] { seen.append(Self.canonical(event)) }
        }
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: logs).first { $0.hasPrefix("room-\(room)-") })
        let path = logs + "/" + file
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        var logged: [String] = []
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for event in object["events"] as? [[String: Any]] ?? [] { logged.append(Self.canonical(event)) }
        }
        #expect(seen.count > 5)
        #expect(seen == Array(logged.prefix(seen.count)))
        #expect(lines.first?.contains("\"dicehost_log\":2") == true)
        #expect(lines.contains { $0.contains(#""input":{"seat":"Ann","type":"roll"}"#) })
        // An action is logged typed, its arguments' JSON types kept.
        #expect(lines.contains { $0.contains(#""args":[25,"red",true]"#) && $0.contains(#""name":"show""#) && $0.contains(#""seat":"Bob""#) })
        // Every input is typed: the clock's moves too.
        #expect(lines.contains { $0.contains(#""type":"tick""#) })
        #expect(!lines.contains { $0.contains(#""command":"#) })

        // The online game, replayed from the log by `dicehost replay`'s engine: every event matches.
        server.stop()
        try await Task.sleep(for: .milliseconds(200))
        let report = GameReplay.run(try GameLog.read(path))
        #expect(report.matched, "\(report.lines.joined(separator: "\n"))")
        #expect((report.games.first?.matchedInputs ?? 0) >= 5)
    }

    /// An event without its `text` (the log adds the event's one-line form there).
    static func canonical(_ object: [String: Any]) -> String {
        var object = object
        object["text"] = nil
        return String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
    }
}
