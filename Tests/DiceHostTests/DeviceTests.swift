import DiceHost
import Foundation
import Lua
import Testing

/// A field of a Lua table value (nil if it is not a table).
func field(_ game: Game, _ value: LuaValue, _ key: String) -> LuaValue {
    guard let table = value.tableRef else { return .nil }
    return game.lua.get(table, .string(key))
}

/// A race between Ann and Bob on a simulated die, linked through a session.
final class LinkedRace {
    let game: Game
    let session: GameSession
    let die: SimulatedDie
    let link: DieLink
    var events: [DieLink.Event] = []
    var ignored: [String] { events.compactMap { if case .ignored(let text) = $0 { return text } else { return nil } } }
    var said: [String] { game.events.compactMap { if case .say(let text) = $0.kind { return text } else { return nil } } }

    init(faults: String = "", seed: UInt64 = 4, rules: String = "rules/race.lua") throws {
        game = try Game(rulesFile: rules, players: ["Ann", "Bob"], seed: 1)
        session = GameSession(game: game)
        die = SimulatedDie(seed: seed, faults: try .parse(faults))
        link = DieLink(session: session, die: die)
        link.onEvent = { [unowned self] in events.append($0) }
    }
}

@Suite struct DeviceTests {
    @Test func rollsFromTheDieCountOnlyWhileTheGameWaitsForOne() throws {
        let race = try LinkedRace()
        race.die.connect()
        #expect(race.die.rollUpdates)  // Ann's turn began
        race.die.throwDie(values: [4])
        #expect(race.game.events.contains { $0.description == "roll Ann ⚃" })
        #expect(race.game.currentPlayer == "Bob" && race.die.rollUpdates)
        #expect(race.die.ledCommands.first?.description == "blink 4 green on=100ms cycle=50ms count=5 priority=0")
    }

    @Test func aRollOutOfTurnIsIgnoredAndReportedNotCounted() throws {
        // The turn passes a second after a roll (an animation): a roll in that second is out of turn.
        let path = NSTemporaryDirectory() + "dicehost-slow-\(UUID().uuidString).lua"
        try """
            local r = rules { name = "Slow", players = 2, dice = "1d6" }
            function r.setup(g) for _, p in ipairs(g.players) do p.score = 0 end end
            function r.roll(g, p, roll)
              p.score = p.score + roll.total
              timer.after(1000, function(g) g:next_turn() end)
            end
            return r
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let race = try LinkedRace(rules: path)
        race.die.connect()
        race.die.throwDie(values: [5])
        #expect(!race.game.awaitsRoll && !race.die.rollUpdates)  // stopped once the roll was taken
        let rolls = race.game.rollCount
        race.die.throwDie(values: [6])
        #expect(race.game.rollCount == rolls)
        #expect(race.ignored == ["ignored: a roll out of turn (⚅): the game is not waiting for a roll (roll updates are off until a turn begins)"])
        #expect(field(race.game, race.game.player("Ann"), "score") == .integer(5))
        race.link.run("tick 1s")
        #expect(race.game.currentPlayer == "Bob" && race.die.rollUpdates)
        race.die.throwDie(values: [6])
        #expect(field(race.game, race.game.player("Bob"), "score") == .integer(6))
    }

    @Test func aTiltedRollBlinksRedAndTheSamePlayerRollsAgain() throws {
        let race = try LinkedRace(faults: "tilt@2")
        race.die.connect()
        race.die.throwDie(values: [3])
        race.die.throwDie(values: [5])  // Bob's, tilted
        #expect(race.events.contains(.die(.rollState(.crooked))))
        #expect(race.game.events.contains { $0.description == "roll Bob tilt" })
        #expect(race.die.ledCommands.last?.description == "blink all red on=100ms cycle=200ms count=4 priority=1")
        #expect(race.game.currentPlayer == "Bob" && race.die.rollUpdates)
        race.die.throwDie(values: [2])
        #expect(race.game.events.contains { $0.description == "roll Bob ⚁" })
    }

    @Test func aTooShortRollDoesNotCount() throws {
        let race = try LinkedRace(faults: "short@1")
        race.die.connect()
        race.die.throwDie(values: [6])
        #expect(race.said.contains("Ann: the roll did not count (too_short), roll again"))
        #expect(race.game.currentPlayer == "Ann")
    }

    @Test func aDisconnectPausesTheTurnAndAReconnectResumesIt() throws {
        let race = try LinkedRace(faults: "disconnect@1")
        race.die.connect()
        race.die.throwDie(values: [3])  // counts, then the die drops out
        #expect(race.said.contains("the die disconnected: Bob's turn is paused"))
        #expect(!race.die.rollUpdates && !race.game.awaitsRoll)
        race.link.run("tick 60s")  // no timeout passes the turn while paused
        #expect(race.game.currentPlayer == "Bob")
        #expect(!race.said.contains { $0.contains("took too long") })
        race.die.connect()
        #expect(race.said.last == "the die is back: Bob to roll")
        #expect(race.die.rollUpdates)
        race.link.run("tick 30s")  // the timeout runs again after the reconnect
        #expect(race.said.contains("Bob took too long: the turn passes"))
    }

    @Test func aFailedConnectionAndAFailedAuthorisationAreHeardAndPlayNothing() throws {
        let race = try LinkedRace(faults: "connect-fails")
        race.die.connect()
        #expect(race.game.events.last?.description == "emit device connection_failed")
        #expect(!race.die.isConnected && !race.die.throwDie(values: [4]))
        race.die.connect()  // the second attempt connects
        #expect(race.die.isConnected && race.die.rollUpdates)
        let refused = try LinkedRace(faults: "auth-fails")
        refused.die.connect()
        #expect(refused.game.events.last?.description == "emit device authorisation_failed")
        #expect(!refused.die.isConnected)
    }

    @Test func aLowBatteryIsAnnounced() throws {
        let race = try LinkedRace(faults: "low-battery@2")
        race.die.connect()
        #expect(race.game.dieBattery == 87)
        race.die.throwDie()
        race.die.throwDie()
        #expect(race.game.dieBattery == 9)
        #expect(race.said.contains("the die's battery is low (9%)"))
    }

    @Test func theDieManagerReportsDiscoveryConnectionsAndFailures() throws {
        let good = SimulatedDie(seed: 1, name: "A"), flaky = SimulatedDie(seed: 2, faults: try .parse("connect-fails"), name: "B")
        let locked = SimulatedDie(seed: 3, faults: try .parse("auth-fails"), name: "C")
        let manager = DieManager(scanner: SimulatedDie.Scanner(dice: [good, flaky, locked]))
        var changes: [String] = []
        manager.onChange = { changes.append("\($0.name) \($0.state)") }
        manager.scan()
        #expect(manager.dice.map(\.name) == ["A", "B", "C"])
        manager.connect(good.identifier)
        manager.connect(flaky.identifier)
        manager.connect(locked.identifier)
        manager.disconnect(good.identifier)
        #expect(!manager.connect("nope"))
        #expect(changes == ["A discovered", "B discovered", "C discovered", "A connecting", "A connected", "B connecting",
                            "B connectionFailed(\"no answer from B (attempt 1)\")", "C connecting",
                            "C authorisationFailed(\"C refused this host\\'s key\")", "A disconnected(\"disconnected by the host\")"])
        #expect(manager.states[locked.identifier] == .authorisationFailed("C refused this host's key"))
        manager.connect(flaky.identifier)  // the second attempt gets through
        #expect(manager.states[flaky.identifier] == .connected)
    }

    @Test func faultListsParseAndBadOnesAreNamed() throws {
        #expect(try SimulatedDie.Faults.parse("tilt@2,disconnect@3,short@4,low-battery@5,connect-fails,auth-fails").description
                == "connect-fails,auth-fails,disconnect@3,tilt@2,short@4,low-battery@5")
        #expect(throws: SimulatedDie.FaultError.self) { try SimulatedDie.Faults.parse("tilt") }
        do { _ = try SimulatedDie.Faults.parse("tilt@0") } catch { #expect("\(error)" == "fault 'tilt@0': expected a roll number from 1 to 1000000 after '@'") }
        do { _ = try SimulatedDie.Faults.parse("melt@2") } catch { #expect("\(error)".hasPrefix("unknown fault 'melt@2' (")) }
    }

    @Test func aGamePlayedOnTheDieReplaysFromItsLogWithoutTheDie() throws {
        let game = try Game(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: 1)
        var lines: [String] = []
        let recorder = GameLogRecorder(die: "sim:tilt@2,disconnect@3") { lines.append($0); return nil }
        let die = SimulatedDie(seed: 9, faults: try .parse("tilt@2,disconnect@3"))
        let link = DieLink(session: GameSession(game: game), die: die, recorder: recorder)
        recorder.begin(game)
        die.connect()
        for _ in 0..<4 { die.throwDie() }
        die.connect()
        for _ in 0..<4 { die.throwDie() }
        link.run("tick 2s")
        let log = try GameLog.parse(lines.joined(separator: "\n"))
        #expect(log[0].header.die == "sim:tilt@2,disconnect@3")
        #expect(log[0].entries.contains { $0.entry.input == GameInput(.device(.status(.disconnected, value: nil))) })
        let report = GameReplay.run(log)
        #expect(report.matched, "\(report.lines)")
        #expect(report.games[0].matchedInputs == log[0].entries.count)
    }
}

@Suite struct SensorTests {
    let rules = """
        local r = rules { name = "Tilt", players = 1, dice = "1d6" }
        function r.setup(g)
          g.state.fast, g.state.slow = {}, {}
          g.state.fast_sub = sensor.every("accelerometer", 60, function(g, x, y, z) table.insert(g.state.fast, g.now) end)
          sensor.every("accelerometer", 10, function(g, x, y, z) table.insert(g.state.slow, g.now) end)
        end
        function r.roll(g, p, roll) end
        r.actions = { stop = function(g, p) g.state.fast_sub:cancel() end }
        return r
        """

    func times(_ game: Game, _ key: String) -> [Int] {
        guard let table = field(game, game.state, key).tableRef else { return [] }
        return game.lua.array(table).compactMap(\.intValue)
    }

    @Test func subscriptionRatesAreHonouredOnTheGameClock() throws {
        let game = try makeGame(rules, players: ["Ann"])
        // 1 s of samples at 200 Hz (every 5 ms), one batch: 60 Hz is every 20 ms on a 5 ms grid.
        try game.sensorSamples((0..<200).map { SensorSample.tilt(x: 0.1, y: 0, at: $0 * 5) })
        #expect(times(game, "slow") == Array(stride(from: 0, through: 900, by: 100)))
        #expect(times(game, "fast") == Array(stride(from: 0, through: 980, by: 20)))
        #expect(game.now == 995)
        try game.act("stop")
        try game.sensorSamples([SensorSample.tilt(x: 0, y: 0, at: 2000)])
        #expect(times(game, "fast").count == 50 && times(game, "slow").count == 11)
    }

    @Test func aFastStreamIsThinnedToTheRateNeverCloserThanItsPeriod() throws {
        let game = try makeGame(rules, players: ["Ann"])
        // 1 kHz for a second, in ten batches: every 17 ms (the first ms at least 1000/60 after the last): 59.
        for batch in 0..<10 { try game.sensorSamples((0..<100).map { SensorSample.tilt(x: 0, y: 0, at: batch * 100 + $0) }) }
        let fast = times(game, "fast")
        #expect(fast == Array(stride(from: 0, through: 999, by: 17)))
        #expect(times(game, "slow").count == 10)
    }

    @Test func theRateIsOnTheGameClockNotTheNumberOfSamples() throws {
        let game = try makeGame(rules, players: ["Ann"])
        // 30 samples all at the same moment: one delivery each.
        try game.sensorSamples((0..<30).map { _ in SensorSample.tilt(x: 0, y: 0, at: 0) })
        #expect(times(game, "fast") == [0] && times(game, "slow") == [0])
    }

    @Test func aRunawaySensorHookEndsOnTheBudgetAndTheBatchRollsBack() throws {
        let game = try makeGame("""
            local r = rules { name = "Loop", players = 1, dice = "1d6" }
            function r.setup(g)
              g.state.n = 0
              sensor.every("accelerometer", 100, function(g) g.state.n = g.state.n + 1; if g.state.n > 3 then while true do end end end)
            end
            function r.roll(g, p, roll) end
            return r
            """, players: ["Ann"])
        #expect(throws: GameError.self) { try game.sensorSamples((0..<10).map { SensorSample.tilt(x: 0, y: 0, at: $0 * 10) }) }
        #expect(field(game, game.state, "n") == .integer(0) && game.now == 0)
    }

    @Test func badSubscriptionsAreClearErrors() throws {
        for (call, message) in [("sensor.every('smell', 10, function() end)", "bad argument #1 to 'every' (sensor must be one of accelerometer, magnetometer, orientation, touch, proximity, temperature, got 'smell')"),
                                ("sensor.every('touch', 0, function() end)", "bad argument #2 to 'every' (rate must be 1..1000 Hz, got 0)"),
                                ("sensor.every('touch', 10, 5)", "bad argument #3 to 'every' (function expected, got number)")] {
            let game = try makeGame(minimalRules)
            let probe = LuaValue.function(try game.lua.load(call, chunkName: "probe"))
            do { _ = try game.lua.call(probe); Issue.record("accepted \(call)") } catch { #expect("\(error)".contains(message), "\(error)") }
        }
    }

    @Test func recordingsReadAsCSVOrJSONLinesWithLineNumberedErrors() throws {
        let csv = try SensorRecording.parse("t,x,y,z\n0,0.1,0,0.99\n16,0.2,0,0.98\n", sensor: .accelerometer)
        #expect(csv.map(\.time) == [0, 16] && csv[1].values == [0.2, 0, 0.98])
        let jsonl = try SensorRecording.parse("{\"t\":0,\"x\":0.1,\"y\":0,\"z\":1}\n{\"t\":5,\"values\":[0,0,1]}\n", sensor: .accelerometer)
        #expect(jsonl.map(\.values) == [[0.1, 0, 1], [0, 0, 1]])
        let bad: [(String, String)] = [
            ("t,x,y,z\n0,1,2\n", "recording:2: expected 4 comma-separated numbers (as the header), got 3"),
            ("t,x,y,z\n5,0,0,1\n3,0,0,1\n", "recording:3: expected times in order, got 3 ms after 5 ms"),
            ("x,y\n", "recording:1: expected a CSV header 't,' and 3 columns for accelerometer (e.g. 't,x,y,z'), or JSON lines, got 'x,y'"),
            ("{\"t\":0,\"values\":[1]}\n", "recording:1: expected 3 values for accelerometer, got 1"),
            ("t,x,y,z\n0,nan,0,1\n", "recording:2: expected a finite number, got 'nan'"),
            ("", "recording:1: expected samples, the recording has none"),
        ]
        for (text, message) in bad {
            do { _ = try SensorRecording.parse(text, sensor: .accelerometer); Issue.record("accepted \(text)") } catch { #expect("\(error)" == message) }
        }
    }
}

@Suite struct GameHostTests {
    @Test func theHostPlaysFromConcurrencyAndStreamsEveryEventInOrder() async throws {
        let host = try GameHost(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: 1, params: [("target", "6")]) {
            SimulatedDie(seed: 5, faults: (try? SimulatedDie.Faults.parse("tilt@1")) ?? SimulatedDie.Faults())
        }
        let collected = Task { () -> [GameHost.Event] in
            var all: [GameHost.Event] = []
            for await event in host.events { all.append(event) }
            return all
        }
        await host.connectDie()
        var throwsMade = 0
        while await host.outcome == nil, throwsMade < 30 {
            await host.throwSimulatedDie()
            await host.run("tick 500ms")
            throwsMade += 1
        }
        #expect(await host.outcome != nil)
        await host.finish()
        let events = await collected.value
        let texts = events.compactMap { if case .game(let e) = $0.kind { return e.description } else { return nil } }
        #expect(texts.first == "start Ann,Bob seed=1")
        #expect(texts.contains("roll Ann tilt"))
        #expect(events.contains { $0.kind == .die(.rollState(.crooked)) })
        #expect(events.contains { $0.kind == .sent(.rollUpdates(true)) })
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
        #expect(texts.last?.hasPrefix("win ") == true)
    }
}

@Suite struct LabyrinthTests {
    @Test func aRecordedStreamFromTheSimulatedDieSteersTheBallToTheGoal() throws {
        let game = try Game(rulesFile: "rules/labyrinth.lua", players: ["Ann"], seed: 1)
        let die = SimulatedDie(seed: 1)
        let link = DieLink(session: GameSession(game: game), die: die)
        die.connect()
        #expect(die.sensorRates == [.accelerometer: 60])  // the rules' subscription reached the die
        let recording = try SensorRecording.read("rules/tests/labyrinth/run-to-goal.csv", sensor: .accelerometer)
        die.stream(recording)
        #expect(game.now == 1500)  // the samples' times, on the game clock
        link.run("tick 1s")
        #expect(game.events.contains { $0.description == "say the ball reaches the goal of level 1 at 2032 ms" })
        #expect(field(game, game.state, "level") == .integer(2))
    }

    @Test func theBotSteersThroughEveryLevelWithoutFalling() throws {
        let game = try Game(rulesFile: "rules/labyrinth.lua", players: ["Ann"], seed: 1)
        let moves = try game.playBotMoves(limit: 2000)
        #expect(game.outcome == .win("Ann"), "after \(moves) moves")
        #expect(field(game, game.state, "falls") == .integer(0))
    }
}

extension LabyrinthTests {
    @Test func aSecondRecordingStartsFromTheGameClockAgain() throws {
        let game = try Game(rulesFile: "rules/labyrinth.lua", players: ["Ann"], seed: 1)
        let die = SimulatedDie(seed: 1)
        let link = DieLink(session: GameSession(game: game), die: die)
        die.connect()
        let still = [0, 100, 200].map { SensorSample.tilt(x: 0, y: 0, at: $0) }
        die.stream(still)
        #expect(game.now == 200)
        link.run("tick 1s")
        die.stream(still)  // its clock starts over: played from now, not squeezed into one moment
        #expect(game.now == 1400)
    }
}
