@testable import DiceHostServer
import DiceHost
import Foundation
import Testing

/// No room waits for ever for one player: a seat whose player left is played by the
/// rules' bot at once, an idle seat after the turn clock, a player comes back with their
/// token, and a restarted server replays the bot's moves to the same game.
@Suite(.serialized)
struct AbsentPlayerTests {
    /// Short clocks for the tests: a second a move (`create` takes 10 s at least).
    static var quickClock: ServerLimits {
        var limits = ServerLimits()
        limits.defaultTurnSeconds = 1
        return limits
    }

    @Test func aPlayerLeavesAThreePlayerMiaMidGameAndTheOtherTwoFinishIt() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let mia = try await MiaTable.seat(on: server, lives: 2)
        try await mia.play("Ann", ["type": "roll"])
        mia.cy.send(["type": "leave"])
        #expect(await mia.cy.next("left") != nil)
        let state = try await mia.playToTheEnd()
        #expect(state["phase"] as? String == "over")
        #expect(state["outcome"] as? String != nil, "\(state)")
        let players = try #require(state["players"] as? [[String: Any]])
        #expect(players.first { $0["name"] as? String == "Cy" }?["left"] as? Bool == true, "\(players)")
        let botCauses = mia.ann.received.compactMap { $0["cause"] as? [String: Any] }.filter { $0["by"] as? String == "bot" }
        #expect(!botCauses.isEmpty, "Cy's moves were made by the bot")
        #expect(botCauses.allSatisfy { $0["player"] as? String == "Cy" }, "\(botCauses)")
    }

    @Test func anIdleSeatIsPlayedByTheBotAfterTheTurnClock() async throws {
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("dicehost-idle-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: logs) }
        let server = try await TestServer.start(logs: logs, limits: Self.quickClock)
        defer { server.stop() }
        let started = ContinuousClock.now
        let r = try await server.twoPlayerRoom("race.lua", fields: ["params": ["target": "1000"]])
        let clocked = try #require(await r.bob.next("events")?["state"] as? [String: Any])
        let clock = try #require(clocked["turnClock"] as? [String: Any], "\(clocked)")
        #expect(clock["player"] as? String == "Ann" && clock["seconds"] as? Int == 1, "\(clock)")
        #expect((clock["deadline"] as? Int ?? 0) - (clocked["clock"] as? Int ?? 0) > 0, "the deadline is ahead of the clock")
        // Ann does nothing: after a second the bot rolls for her.
        var botMove: [String: Any]?
        while botMove == nil, let events = await r.bob.next("events", timeout: .seconds(15)) {
            if (events["cause"] as? [String: Any])?["by"] as? String == "bot" { botMove = events }
        }
        let cause = try #require(botMove?["cause"] as? [String: Any])
        #expect(cause["player"] as? String == "Ann" && cause["input"] as? String == "roll", "\(cause)")
        #expect(ContinuousClock.now - started >= .milliseconds(900), "the bot waited for the clock")
        let after = try #require(botMove?["state"] as? [String: Any])
        #expect(after["current"] as? String == "Bob")
        // Bob plays himself; the room log replays, the bot's move included.
        _ = try await r.bob.roll(seq: 1)
        _ = await r.bob.drain(for: .milliseconds(300))
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: logs).first { $0.hasPrefix("room-\(r.room)") })
        let text = try String(contentsOfFile: (logs as NSString).appendingPathComponent(file), encoding: .utf8)
        #expect(text.contains(#""input":{"type":"bot"}"#), "\(text)")
        let report = GameReplay.run(logFile: (logs as NSString).appendingPathComponent(file))
        #expect(report.games.count == 1 && report.games.allSatisfy(\.matched), "\(report.lines)")
    }

    @Test func aPlayerWhoLeftComesBackWithTheTokenAndPlaysAgain() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let r = try await server.twoPlayerRoom("race.lua", fields: ["params": ["target": "1000"]])
        let bobToken = try #require(r.bobJoined["token"] as? String)
        _ = try await r.ann.roll(seq: 1)
        r.bob.send(["type": "leave"])
        #expect(await r.bob.next("left") != nil)
        // Bob's turn is played at once; Ann sees him as left, the bot playing his seat.
        var botMove: [String: Any]?
        while botMove == nil, let events = await r.ann.next("events", timeout: .seconds(15)) {
            if (events["cause"] as? [String: Any])?["by"] as? String == "bot" { botMove = events }
        }
        #expect((botMove?["cause"] as? [String: Any])?["player"] as? String == "Bob")
        let bob = try #require((botMove?["state"] as? [String: Any]).flatMap { ($0["players"] as? [[String: Any]])?.last })
        #expect(bob["left"] as? Bool == true && bob["botPlaying"] as? Bool == true, "\(bob)")

        let back = try await server.client()
        try await back.hello()
        back.send(["type": "join", "room": r.room, "token": bobToken])
        #expect(try #require(await back.next("joined"))["rejoined"] as? Bool == true)
        let state = try #require(await back.next("state")?["state"] as? [String: Any])
        let seat = try #require((state["players"] as? [[String: Any]])?.last)
        #expect(seat["left"] == nil && seat["botPlaying"] == nil, "\(seat)")
        _ = await r.ann.drain(for: .milliseconds(200))
        _ = try await r.ann.roll(seq: 2)
        // Bob's turn waits for him now: he rolls himself.
        _ = await back.drain(for: .milliseconds(300))
        #expect(!back.received.contains { ($0["cause"] as? [String: Any])?["by"] != nil }, "no bot move once Bob is back")
        #expect(try await back.roll(seq: 1)["duplicate"] == nil)
        let events = try #require(await back.next("events"))
        let cause = try #require(events["cause"] as? [String: Any])
        #expect(cause["player"] as? String == "Bob" && cause["by"] == nil, "\(cause)")
    }

    @Test func aRestartFromTheStoreReplaysTheBotsMovesToTheSameGame() async throws {
        let mia = try String(contentsOfFile: TestServer.repositoryRules + "/mia.lua", encoding: .utf8)
        try await withRulesFolder(["mia.lua": mia]) { folder in
            var configuration = DiceHostServer.Configuration(rulesDirectory: folder, port: 0)
            configuration.store = (folder as NSString).appendingPathComponent("rooms.sqlite")
            let first = try await TestServer.start(configuration: configuration)
            // The bots bluff at every announcement they make: their random draws are replayed too.
            let table = try await MiaTable.seat(on: first, lives: 5, bluff: "0.5")
            try await table.play("Ann", ["type": "roll"])
            table.cy.send(["type": "leave"])
            #expect(await table.cy.next("left") != nil)
            let before = try await table.playToTheEnd(stoppingAfterBotMoves: 4)
            #expect(before["phase"] as? String == "playing", "the game is not over yet: \(before)")
            let eventCount = try #require(before["eventCount"] as? Int)
            await first.stopAndWait()

            let second = try await TestServer.start(configuration: configuration)
            defer { second.stop() }
            let ann = try await second.client()
            try await ann.hello()
            ann.send(["type": "join", "room": table.room, "token": table.tokens["Ann"] ?? ""])
            #expect(try #require(await ann.next("joined"))["rejoined"] as? Bool == true, "the room was reopened: its replay gave the stored events")
            let state = try #require(await ann.next("state")?["state"] as? [String: Any])
            #expect(state["eventCount"] as? Int == eventCount)
            #expect(state["current"] as? String == before["current"] as? String)
        }
    }

    @Test func aSeatNoBotCanPlayBlocksUntilTheOthersAbandonTheGame() async throws {
        let stuck = """
        local stuck = rules { name = "Stuck", players = {2, 2} }
        function stuck.roll(g, p, r) error("this game has no rolls: go", 0) end
        stuck.actions = { go = function(g, p) g:next_turn() end }
        return stuck
        """
        try await withRulesFolder(["stuck.lua": stuck]) { folder in
            let server = try await TestServer.start(rules: folder)
            defer { server.stop() }
            let r = try await server.twoPlayerRoom("stuck.lua")
            // Abandoning a game nothing blocks is refused.
            r.bob.send(["type": "abandon", "seq": 1])
            #expect(try #require(await r.bob.next("error"))["code"] as? String == "refused")
            r.ann.send(["type": "leave"])
            #expect(await r.ann.next("left") != nil)
            let blocked = try #require(await r.bob.next("error"))
            #expect(blocked["code"] as? String == "seat-blocked", "\(blocked)")
            var canAbandon = false
            while !canAbandon, let message = await r.bob.next("state", timeout: .seconds(15)) {
                canAbandon = (message["state"] as? [String: Any])?["canAbandon"] as? Bool == true
            }
            #expect(canAbandon)
            r.bob.send(["type": "abandon", "seq": 2])
            _ = try #require(await r.bob.next("ack"))
            // Everyone still here is told who abandoned the game and whose seat blocked it.
            let abandoned = try #require(r.bob.received.last { $0["type"] as? String == "abandoned" })
            #expect(abandoned["by"] as? String == "Bob" && abandoned["blocked"] as? String == "Ann", "\(abandoned)")
            let over = try #require(await r.bob.next("state")?["state"] as? [String: Any])
            #expect(over["phase"] as? String == "over" && over["outcome"] as? String == "abandoned", "\(over)")
            r.bob.send(["type": "action", "name": "go", "seq": 3])
            #expect(try #require(await r.bob.next("error"))["code"] as? String == "abandoned")
            // Ann left: Bob alone is every player still here, and his `ready` starts the next game.
            r.bob.send(["type": "ready", "seq": 4])
            let next = try #require(await r.bob.next("events"))
            #expect((next["events"] as? [[String: Any]])?.first?["type"] as? String == "start", "\(next)")
            #expect((next["state"] as? [String: Any])?["phase"] as? String == "playing")
        }
    }
}

/// A three-seat Mia room (Ann, Bob, Cy) played by clients that roll, announce 21 and
/// always call; a seat whose player left is played by the server.
struct MiaTable {
    let ann: TestClient, bob: TestClient, cy: TestClient
    let room: String
    let tokens: [String: String]
    private let seqs = Counter()

    static func seat(on server: TestServer, lives: Int, bluff: String = "0.2") async throws -> MiaTable {
        let ann = try await server.client(), bob = try await server.client(), cy = try await server.client()
        for client in [ann, bob, cy] { try await client.hello() }
        ann.send(["type": "create", "rules": "mia.lua", "seats": 3, "params": ["lives": String(lives), "bluff": bluff]])
        let room = try #require(await ann.next("created")?["room"] as? String)
        var tokens: [String: String] = [:]
        for (name, client) in [("Ann", ann), ("Bob", bob), ("Cy", cy)] {
            client.send(["type": "join", "room": room, "name": name])
            tokens[name] = try #require(await client.next("joined")?["token"] as? String)
        }
        return MiaTable(ann: ann, bob: bob, cy: cy, room: room, tokens: tokens)
    }

    func client(_ name: String) -> TestClient? { ["Ann": ann, "Bob": bob, "Cy": cy][name] }

    /// Sends `input` (a seq added) from `name`'s client and waits for its answer (ack or error).
    func play(_ name: String, _ input: [String: Any]) async throws {
        let client = try #require(self.client(name))
        let seq = seqs.next(name)
        client.send(input.merging(["seq": seq]) { _, new in new })
        while let message = await client.next() {
            if message["type"] as? String == "ack", message["seq"] as? Int == seq { return }
            if message["type"] as? String == "error", message["seq"] as? Int == seq { return }
        }
    }

    /// Ann and Bob play (Cy left) until the game is over, or until the bot made
    /// `stoppingAfterBotMoves` moves; the last state Ann was sent.
    func playToTheEnd(stoppingAfterBotMoves: Int = .max) async throws -> [String: Any] {
        for _ in 0..<400 {
            _ = await ann.drain(for: .seconds(2), quiet: .milliseconds(150))
            let state = try #require(ann.received.last { $0["state"] != nil }?["state"] as? [String: Any])
            let botMoves = ann.received.filter { ($0["cause"] as? [String: Any])?["by"] as? String == "bot" }.count
            if state["phase"] as? String == "over" || botMoves >= stoppingAfterBotMoves { return state }
            guard let current = state["current"] as? String, current != "Cy" else { continue }
            switch (state["view"] as? [String: Any])?["phase"] as? String {
            case "roll": try await play(current, ["type": "roll"])
            case "announce": try await play(current, ["type": "action", "name": "announce", "args": [21]])
            case "respond": try await play(current, ["type": "action", "name": "call"])
            default: continue
            }
        }
        throw TestFailure("the game did not end in 400 moves")
    }
}

/// Each player's next sequence number.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    func next(_ key: String) -> Int {
        lock.lock(); defer { lock.unlock() }
        counts[key, default: 0] += 1
        return counts[key, default: 0]
    }
}
