import DiceHost
import Foundation
import Testing

/// A `PixelsDie` on a `SimulatedPixel`: every report comes from bytes the Pixel notified,
/// every command leaves as bytes the Pixel read.
final class PixelRig {
    let pixel: SimulatedPixel
    let die: PixelsDie
    var reports: [DieEvent] = []

    init(faults: String = "", seed: UInt64 = 3, minimumRollTime: Int = 300) throws {
        pixel = SimulatedPixel(seed: seed, faults: try .parse(faults))
        die = pixel.makeDie(sides: 6, minimumRollTime: minimumRollTime)
        die.report = { [unowned self] in reports.append($0) }
    }

    /// The reports since the last call.
    func take() -> [DieEvent] {
        defer { reports = [] }
        return reports
    }
}

@Suite struct PixelsDieTests {
    @Test func theHandshakeIsWhoAreYouThenIAmADie() throws {
        let rig = try PixelRig()
        rig.die.connect()
        #expect(rig.pixel.written.first == [0x01])                // WhoAreYou
        #expect(rig.pixel.written.dropFirst().first == [0x23, 1, 0, 0])  // RequestRssi once
        #expect(rig.take() == [.connected, .battery(level: 87, charging: false), .signal(rssi: -58)])
        #expect(rig.die.identity?.dieType == .d6 && rig.die.isConnected)
        #expect(rig.die.name.hasPrefix("Pixel "))
    }

    @Test func aDieThatIsNotSixSidedIsRefusedForADSixGame() throws {
        let rig = try PixelRig(faults: "auth-fails")  // the simulated Pixel says it is a d20
        rig.die.connect()
        let name = rig.die.name
        #expect(rig.take() == [.authorisationFailed("\(name) is a d20; this game needs a 6-sided die")])
        #expect(!rig.die.isConnected && !rig.pixel.isOpen)
        #expect(!rig.die.throwDie())
    }

    @Test func aFailedOpenIsAFailedConnectionAndTheNextCanSucceed() throws {
        let rig = try PixelRig(faults: "connect-fails")
        rig.die.connect()
        #expect(rig.take() == [.connectionFailed("no answer from Pixel \(String(rig.pixel.pixelID, radix: 16, uppercase: true)) (attempt 1)")])
        rig.die.connect()
        #expect(rig.take().first == .connected)
    }

    @Test func rollStateBytesBecomeTheRollLifecycle() throws {
        let rig = try PixelRig()
        rig.die.connect()
        _ = rig.take()
        rig.pixel.notify(bytes: [0x03, 2, 0])  // handling
        rig.pixel.advance(by: 400)
        rig.pixel.notify(bytes: [0x03, 3, 2])  // rolling
        rig.pixel.advance(by: 600)
        rig.pixel.notify(bytes: [0x03, 1, 3])  // rolled, face index 3
        #expect(rig.take() == [.rollState(.handling), .rollState(.rolling), .rollState(.rolled), .roll(Roll(values: [4]))])
    }

    @Test func aRollThatLandsTooSoonIsTooShort() throws {
        let rig = try PixelRig(minimumRollTime: 300)
        rig.die.connect()
        _ = rig.take()
        rig.pixel.notify(bytes: [0x03, 2, 0])
        rig.pixel.advance(by: 299)
        rig.pixel.notify(bytes: [0x03, 1, 5])
        #expect(rig.take().last == .roll(Roll(values: [], total: 0, flag: .tooShort)))
        rig.pixel.notify(bytes: [0x03, 3, 0])
        rig.pixel.advance(by: 300)
        rig.pixel.notify(bytes: [0x03, 1, 5])
        #expect(rig.take().last == .roll(Roll(values: [6])))
    }

    @Test func crookedIsATiltAndPuttingTheDieDownIsNoRoll() throws {
        let rig = try PixelRig()
        rig.die.connect()
        _ = rig.take()
        rig.pixel.notify(bytes: [0x03, 3, 0])
        rig.pixel.notify(bytes: [0x03, 4, 0])
        #expect(rig.take() == [.rollState(.rolling), .rollState(.crooked), .roll(Roll(values: [], total: 0, flag: .tilt))])
        rig.pixel.notify(bytes: [0x03, 2, 0])
        rig.pixel.notify(bytes: [0x03, 5, 2])
        #expect(rig.take() == [.rollState(.handling), .rollState(.onFace)])
    }

    @Test func badBytesAreReportedAndTheDieGoesOn() throws {
        let rig = try PixelRig()
        var heard: [String] = []
        rig.die.onProtocolError = { heard.append($0) }
        rig.die.connect()
        _ = rig.take()
        rig.pixel.notify(bytes: [0x03, 1])           // short
        rig.pixel.notify(bytes: [0x63, 0])           // unknown
        rig.pixel.notify(bytes: [0x03, 3, 0])
        rig.pixel.advance(by: 1000)
        rig.pixel.notify(bytes: [0x03, 1, 7])        // face index 7 on a d6
        #expect(heard == [
            "Pixels message RollState: 2 bytes, too short (expected 3)",
            "Pixels message: unknown message id 99 (the host reads ids 2, 3, 30, 34, 36)",
            "Pixels message RollState: face index 7, expected 0…5 on a d6: no roll",
        ])
        #expect(!rig.take().contains { if case .roll = $0 { return true } else { return false } })
        #expect(rig.die.protocolErrors == heard && rig.die.isConnected)
    }

    @Test func ledCommandsAreWrittenAsBlinkBytes() throws {
        let rig = try PixelRig()
        rig.die.connect()
        rig.die.send(.led(LEDCommand(.blink(on: 100, cycle: 50, count: 5), mask: .face(4), color: LEDColor.named["green"] ?? .off)))
        // Blink: 5 flashes over 750 ms (period 150 ms), 0x0000FF00, face index 3, no fade, once.
        #expect(rig.pixel.written.last == [0x1D, 5, 0xEE, 0x02, 0x00, 0xFF, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0, 0])
        rig.die.send(.led(LEDCommand(.off, mask: .all)))
        #expect(rig.pixel.written.last == [0x3B])
        #expect(rig.die.blinksAcknowledged == 1)
    }

    @Test func theHostResolvesLEDPrioritiesBeforeWriting() throws {
        let rig = try PixelRig()
        rig.die.connect()
        let red = LEDColor.named["red"] ?? .off, blue = LEDColor.named["blue"] ?? .off
        rig.die.send(.led(LEDCommand(.blink(on: 100, cycle: 200, count: 4), mask: .all, color: red, priority: 1)))
        #expect(rig.pixel.blinks.last == PixelsBlink(count: 4, duration: 800, color: 0x00FF_0000, faceMask: 63))
        let writes = rig.pixel.written.count
        rig.die.send(.led(LEDCommand(.blink(on: 200, cycle: 400, count: 1), mask: .all, color: blue)))
        #expect(rig.pixel.written.count == writes)  // the red flash still runs: nothing to write
        rig.pixel.advance(by: 800)
        rig.die.send(.led(LEDCommand(.blink(on: 200, cycle: 400, count: 1), mask: .all, color: blue)))
        #expect(rig.pixel.blinks.last == PixelsBlink(count: 1, duration: 400, color: 0x0000_00FF, faceMask: 63))
    }

    @Test func batteryAndADroppedLinkAreReported() throws {
        let rig = try PixelRig(faults: "low-battery@1,disconnect@2")
        rig.die.connect()
        _ = rig.take()
        rig.die.throwDie(values: [2])
        #expect(rig.take().suffix(2) == [.roll(Roll(values: [2])), .battery(level: 9, charging: false)])
        rig.die.throwDie(values: [5])
        #expect(rig.take().last == .disconnected("out of range after roll 2"))
        #expect(!rig.die.isConnected && !rig.die.throwDie())
        rig.die.connect()
        #expect(rig.take().prefix(2) == [.connected, .battery(level: 9, charging: false)])
    }
}

/// Race to Space through the bytes: a `DieLink` on a `PixelsDie` on a `SimulatedPixel`.
@Suite struct PixelsRaceTests {
    final class Race {
        let game: Game
        let link: DieLink
        let pixel: SimulatedPixel
        let die: PixelsDie
        init(faults: String) throws {
            game = try Game(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: 1)
            pixel = SimulatedPixel(seed: 4, faults: try .parse(faults))
            die = pixel.makeDie(sides: game.rules.dice.sides, minimumRollTime: PixelsDie.minimumRollTime(for: game.rules))
            link = DieLink(session: GameSession(game: game), die: die)
        }
        var log: [String] { game.events.map(\.description) }
    }

    @Test func raceToSpacePlaysOnTheSimulatedPixelWithTiltShortBatteryAndDisconnect() throws {
        let race = try Race(faults: "tilt@2,short@3,low-battery@4,disconnect@5")
        race.die.connect()
        #expect(race.die.minimumRollTime == 300)
        race.die.throwDie(values: [4])  // Ann: ⚃
        #expect(race.log.contains("roll Ann ⚃"))
        // The rolled face blinks green: 5 flashes over 750 ms on face 4, as Blink bytes.
        #expect(race.pixel.written.contains([0x1D, 5, 0xEE, 0x02, 0x00, 0xFF, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0, 0]))
        race.die.throwDie(values: [6])  // Bob: lands crooked
        #expect(race.log.contains("roll Bob tilt"))
        #expect(race.pixel.blinks.last == PixelsBlink(count: 4, duration: 800, color: 0x00FF_0000, faceMask: 63))
        race.die.throwDie(values: [6])  // Bob again: lands 150 ms after pick-up
        #expect(race.log.contains("roll Bob too_short"))
        #expect(race.game.currentPlayer == "Bob")
        race.die.throwDie(values: [2])  // Bob: ⚁, then the battery reads 9%
        #expect(race.log.contains("roll Bob ⚁"))
        #expect(race.log.contains("say the die's battery is low (9%)"))
        race.die.throwDie(values: [1])  // Ann: ⚀, then the die drops out of range
        #expect(race.log.contains("say the die disconnected: Bob's turn is paused"))
        #expect(!race.link.dieIsConnected)
        race.die.connect()
        #expect(race.log.contains("say the die is back: Bob to roll"))
        race.die.throwDie(values: [3])
        #expect(race.log.contains("roll Bob ⚂"))
    }
}

/// A transport whose events a test delivers through `GameHost.receivePixels`, as an app's
/// Bluetooth queue would; it only records what is written.
final class RecordingTransport: PixelsTransport {
    var events: ((PixelsTransportEvent) -> Void)?
    let writes: WriteLog
    init(writes: WriteLog) { self.writes = writes }
    func open() {}
    func write(_ bytes: [UInt8]) { writes.append(bytes) }
    func close() {}
}

/// Bytes written inside the host, read by the test after the host's calls returned.
final class WriteLog: @unchecked Sendable {
    private let lock = NSLock()
    private var written: [[UInt8]] = []
    func append(_ bytes: [UInt8]) { lock.lock(); written.append(bytes); lock.unlock() }
    var all: [[UInt8]] { lock.lock(); defer { lock.unlock() }; return written }
}

@Suite struct PixelsGameHostTests {
    @Test func anAppDeliversTransportEventsThroughTheHost() async throws {
        let writes = WriteLog()
        let host = try GameHost(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: 1) {
            PixelsDie(transport: RecordingTransport(writes: writes), identifier: "test", sides: 6, minimumRollTime: 0)
        }
        await host.connectDie()
        await host.receivePixels(.opened)
        #expect(writes.all == [[0x01]])  // WhoAreYou
        await host.receivePixels(.notified(
            [0x02, 6, 0, 2, 0x78, 0x56, 0x34, 0x12, 0xEF, 0xBE, 0xAD, 0xDE, 0x00, 0x10, 0x00, 0xF1, 0x53, 0x65, 5, 2, 87, 0]))
        #expect(await host.isDieConnected)
        await host.receivePixels(.notified([0x03, 3, 0]))
        await host.receivePixels(.notified([0x03, 1, 4]))  // face index 4: a 5
        #expect(await host.currentPlayer == "Bob")
        // The rolled face's blink went out as Blink bytes: face 5 is bit 4.
        #expect(writes.all.last == [0x1D, 5, 0xEE, 0x02, 0x00, 0xFF, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0, 0])
        await host.receivePixels(.closed("out of range"))
        #expect(await !host.isDieConnected)
        await host.finish()
        var texts: [String] = []
        for await event in host.events { if case .game(let e) = event.kind { texts.append(e.description) } }
        #expect(texts.contains("roll Ann ⚄"))
        #expect(texts.contains("say the die disconnected: Bob's turn is paused"))
    }
}
