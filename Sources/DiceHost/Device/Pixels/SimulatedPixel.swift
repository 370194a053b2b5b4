/// A Pixels die in software that speaks the protocol's bytes: a `PixelsTransport` for
/// `PixelsDie`, so the whole path from bytes to game events runs without Bluetooth. It
/// answers WhoAreYou with IAmADie, Blink with BlinkAck, RequestBatteryLevel and
/// RequestRssi with their reports; thrown, it notifies its roll states as a Pixel does.
/// Its faces come from its seed; its faults are `SimulatedDie.Faults`:
///
/// - `connect-fails[@N]`: the first N opens fail;
/// - `auth-fails`: it says it is another kind of die (a d20, or a d6 for a game of
///   another die), which the host refuses;
/// - `disconnect@N`, `tilt@N` (lands crooked), `short@N` (lands 150 ms after it was
///   picked up), `low-battery@N` (BatteryLevel 9%, low).
///
/// Its clock (`now`, ms) moves only when it is thrown (1200 ms from pick-up to landing) or
/// `advance`d; give it to the `PixelsDie` (`makeDie`) so rolls are timed on it.
///
///     let pixel = SimulatedPixel(seed: 7, faults: try .parse("tilt@2"))
///     let die = pixel.makeDie(sides: 6, minimumRollTime: 300)
///     die.report = { print($0) }
///     die.connect()        // WhoAreYou → IAmADie: .connected, .battery(87%), .signal(-58)
///     die.throwDie()       // RollState handling, rolling, rolled: .roll(⚄)
public final class SimulatedPixel: PixelsTransport, ThrowableDie {
    public var events: ((PixelsTransportEvent) -> Void)?
    public let faults: SimulatedDie.Faults
    /// The faces of the die it says it is (unless `auth-fails`).
    public let sides: Int
    public let pixelID: UInt32
    public private(set) var isOpen = false
    public private(set) var openAttempts = 0
    public private(set) var rolls = 0
    public private(set) var battery = 87
    /// Its clock in ms.
    public private(set) var now = 0
    /// Every message the host wrote, as bytes, in order.
    public private(set) var written: [[UInt8]] = []
    /// The Blinks among them.
    public private(set) var blinks: [PixelsBlink] = []
    /// Writes it could not read, described.
    public private(set) var unreadable: [String] = []
    var face = 0
    var random: UInt64

    /// Milliseconds from pick-up to landing: a proper throw, and a `short@N` one.
    public static let rollTime = 1200
    public static let shortRollTime = 150

    public init(seed: UInt64 = 0, faults: SimulatedDie.Faults = SimulatedDie.Faults(), sides: Int = 6) {
        self.faults = faults
        self.sides = sides
        random = seed
        pixelID = UInt32(truncatingIfNeeded: seed &* 2_654_435_761 &+ 0x5100_0000)
    }

    /// A `PixelsDie` on this Pixel, timed on its clock.
    public func makeDie(sides: Int = 6, minimumRollTime: Int = PixelsDie.defaultMinimumRollTime) -> PixelsDie {
        PixelsDie(transport: self, identifier: "pixel-sim-\(String(pixelID, radix: 16))", sides: sides,
                  minimumRollTime: minimumRollTime, clock: { [weak self] in self?.now ?? 0 })
    }

    public var isConnected: Bool { isOpen }

    /// Moves its clock on (a REPL keeps it level with the game's).
    public func advance(by ms: Int) { now = now.saturatingAdded(max(ms, 0)) }

    var identity: PixelsIdentity {
        let type: PixelsDieType
        let told = faults.failsAuthorisation ? (sides == 20 ? 6 : 20) : sides
        switch told {
        case 4: type = .d4
        case 8: type = .d8
        case 10: type = .d10
        case 12: type = .d12
        case 20: type = .d20
        default: type = .d6
        }
        return PixelsIdentity(ledCount: told, dieType: type, pixelID: pixelID, buildTimestamp: 1_700_000_000,
                              rollState: .onFace, faceIndex: face, batteryLevel: battery,
                              batteryState: battery < 10 ? .low : .ok)
    }

    public func open() {
        guard !isOpen else { return }
        openAttempts += 1
        if openAttempts <= faults.failedConnections {
            events?(.failed("no answer from Pixel \(String(pixelID, radix: 16, uppercase: true)) (attempt \(openAttempts))"))
            return
        }
        isOpen = true
        events?(.opened)
    }

    public func close() {
        guard isOpen else { return }
        drop("disconnected by the host")
    }

    func drop(_ reason: String) {
        isOpen = false
        events?(.closed(reason))
    }

    public func write(_ bytes: [UInt8]) {
        guard isOpen else { return }
        written.append(bytes)
        let message: PixelsMessage
        do { message = try PixelsMessage.decode(bytes) } catch {
            unreadable.append("\(error)")
            return
        }
        switch message {
        case .whoAreYou: notify(.iAmADie(identity))
        case .blink(let blink):
            blinks.append(blink)
            notify(.blinkAck)
        case .requestBatteryLevel: notify(.batteryLevel(percent: battery, state: battery < 10 ? .low : .ok))
        case .requestRssi(let mode, _) where mode != .off: notify(.rssi(-58))
        case .requestRssi, .stopAllAnimations: break
        case .iAmADie, .rollState, .blinkAck, .batteryLevel, .rssi:
            unreadable.append("Pixels message \(message.id.name) comes from a die, not a host")
        }
    }

    func notify(_ message: PixelsMessage) {
        // The messages it sends are built from in-range values; a failure would be a bug here.
        guard let bytes = try? message.encode() else { return }
        notify(bytes: bytes)
    }

    /// Sends raw bytes as a notification (a test's malformed message).
    public func notify(bytes: [UInt8]) {
        guard isOpen else { return }
        events?(.notified(bytes))
    }

    @discardableResult
    public func throwDie(values: [Int]? = nil, flag forced: Roll.Flag? = nil) -> Bool {
        guard isOpen else { return false }
        rolls += 1
        let flag: Roll.Flag = forced ?? (faults.tiltedRolls.contains(rolls) ? .tilt : faults.shortRolls.contains(rolls) ? .tooShort : .ok)
        let landing = (values?.first).map { min(max($0, 1), sides) } ?? nextFace()
        let time = flag == .tooShort ? Self.shortRollTime : Self.rollTime
        notify(.rollState(.handling, faceIndex: face))
        advance(by: time / 3)
        notify(.rollState(.rolling, faceIndex: (face + 2) % sides))
        advance(by: time - time / 3)
        face = landing - 1
        notify(.rollState(flag == .tilt ? .crooked : .rolled, faceIndex: face))
        if faults.lowBatteryAfterRoll == rolls, isOpen {
            battery = 9
            notify(.batteryLevel(percent: battery, state: .low))
        }
        if faults.disconnectAfterRoll == rolls, isOpen { drop("out of range after roll \(rolls)") }
        return true
    }

    /// SplitMix64, as `SimulatedDie`'s: small, seedable, the same on every machine.
    func nextFace() -> Int {
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(z % UInt64(max(sides, 1))) + 1
    }
}
