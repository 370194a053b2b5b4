import Foundation

/// A Pixels die (GameWithPixels) as a `SmartDie`, speaking the published protocol over
/// a `PixelsTransport` (the app's Bluetooth link, or a `SimulatedPixel`).
///
/// - **Handshake.** Once the transport is open the host writes WhoAreYou; the die answers
///   IAmADie. A die whose faces are not the game's (a d20 for a d6 game, a fudge die) is
///   refused: `.authorisationFailed` says what it is and what the game needs, and the link
///   is closed. Otherwise `.connected`, its battery, and a one-off RSSI request.
/// - **Rolls.** RollState messages become `.rollState` reports; a roll ends when the die
///   lands: `rolled` on face index i is a roll of i + 1, `crooked` is a `tilt`, and a roll
///   that lands sooner than `minimumRollTime` ms after the die was picked up (or began
///   rolling) is `too_short` (so is a landing whose pick-up the host never heard). The
///   die is timed by the host (`clock`): the protocol carries no times. Picked up and put
///   down (`onFace`) is no roll.
/// - **LEDs.** Each LED command goes through this die's own `LEDTimeline` first, so a
///   command does not take faces still running an animation of higher priority; the
///   faces it takes get a Blink (see `blink(for:faces:)`); `off` is StopAllAnimations.
/// - **Battery and signal.** BatteryLevel and Rssi become `.battery` and `.signal`.
/// - **A dropped link** is `.disconnected`.
///
/// Bytes the host cannot read are not fatal: each is described in `protocolErrors` and
/// passed to `onProtocolError`, and the die goes on.
public final class PixelsDie: SmartDie {
    public let identifier: String
    public private(set) var name: String
    public var report: ((DieEvent) -> Void)?
    public let transport: PixelsTransport
    /// The faces the game's die has: a Pixel with other faces is refused.
    public let sides: Int
    /// The shortest roll (ms from pick-up to landing) that counts; shorter is `too_short`.
    public var minimumRollTime: Int
    /// What the die said it is (after the handshake).
    public private(set) var identity: PixelsIdentity?
    /// Why bytes from the die were not used, oldest first (the last 32).
    public private(set) var protocolErrors: [String] = []
    public var onProtocolError: ((String) -> Void)?
    /// Every message written to the die, in order (what an app logs, or a test checks).
    public var onWrite: ((PixelsMessage, [UInt8]) -> Void)?
    /// Whether the game is waiting for a roll (a Pixel reports rolls either way).
    public private(set) var rollUpdates = false
    /// Blinks the die acknowledged.
    public private(set) var blinksAcknowledged = 0

    enum Phase { case closed, opening, identifying, refusing, connected }
    var phase = Phase.closed
    var rollStartedAt: Int?
    var leds = LEDTimeline()
    let clock: () -> Int

    /// The default for rules that do not declare `min_roll_ms`: a real throw tumbles for
    /// longer; a die turned over by hand lands sooner.
    public static let defaultMinimumRollTime = 300

    /// - Parameters:
    ///   - sides: the game's die (`rules.dice.sides`).
    ///   - minimumRollTime: ms; see `minimumRollTime(for:)`.
    ///   - clock: milliseconds, never going back; the system's uptime by default.
    public init(transport: PixelsTransport, identifier: String, name: String = "Pixels die", sides: Int = 6,
                minimumRollTime: Int = PixelsDie.defaultMinimumRollTime, clock: @escaping () -> Int = PixelsDie.uptime) {
        self.transport = transport
        self.identifier = identifier
        self.name = name
        self.sides = sides
        self.minimumRollTime = minimumRollTime
        self.clock = clock
        transport.events = { [weak self] event in self?.receive(event) }
    }

    /// The rules' `min_roll_ms` param when they declare one (an integer, 0…60000 ms),
    /// else `defaultMinimumRollTime`.
    public static func minimumRollTime(for rules: RuleSet) -> Int {
        if case .integer(let ms)? = rules.param("min_roll_ms"), (0...60_000).contains(ms) { return Int(ms) }
        return defaultMinimumRollTime
    }

    /// Milliseconds since the system started (monotonic).
    public static func uptime() -> Int {
        Int(clamping: DispatchTime.now().uptimeNanoseconds / 1_000_000)
    }

    public var isConnected: Bool { phase == .connected }

    public func connect() {
        guard phase == .closed else { return }
        phase = .opening
        transport.open()
    }

    public func disconnect() {
        guard phase != .closed else { return }
        transport.close()
    }

    public func send(_ command: DieCommand) {
        guard phase == .connected else { return }
        switch command {
        case .rollUpdates(let on): rollUpdates = on  // a Pixel always notifies its roll state
        case .sensor: break  // Pixels telemetry is not a sensor stream DiceHost maps
        case .led(let led):
            let taken = leds.apply(led, at: clock())
            guard taken.rawValue != 0 else { return }
            if case .off = led.kind {
                write(.stopAllAnimations)
            } else {
                write(.blink(Self.blink(for: led, faces: taken)))
            }
        }
    }

    /// The Blink for an LED command on `faces`. A Pixel flashes `count` times evenly over
    /// its duration, each flash lit for half its period, so a blink keeps the command's
    /// period and count (`on` becomes half the period); a fade rises to its colour over
    /// its duration and falls again; `set` holds its colour as long as a Blink can (half of
    /// 65535 ms). Counts over 255 and durations over 65535 ms are capped.
    public static func blink(for command: LEDCommand, faces: LEDMask) -> PixelsBlink {
        let color = UInt32(command.color.red) << 16 | UInt32(command.color.green) << 8 | UInt32(command.color.blue)
        let mask = UInt32(faces.rawValue & 0x3F)
        switch command.kind {
        case .blink(let on, let cycle, let count):
            let period = max(LEDCommand.period(on: on, cycle: cycle), 1)
            let flashes = min(max(count, 1), 255)
            return PixelsBlink(count: flashes, duration: min(flashes.saturatingMultiplied(by: period), 0xFFFF), color: color, faceMask: mask)
        case .fade(let duration):
            return PixelsBlink(count: 1, duration: min(max(duration, 1).saturatingMultiplied(by: 2), 0xFFFF), color: color, faceMask: mask, fade: 255)
        case .set, .off:
            return PixelsBlink(count: 1, duration: 0xFFFF, color: color, faceMask: mask)
        }
    }

    func write(_ message: PixelsMessage) {
        do {
            let bytes = try message.encode()
            onWrite?(message, bytes)
            transport.write(bytes)
        } catch {
            protocolError("not sent: \(error)")
        }
    }

    func protocolError(_ text: String) {
        protocolErrors.append(text)
        if protocolErrors.count > 32 { protocolErrors.removeFirst() }
        onProtocolError?(text)
    }

    /// Takes one event of the transport (the transport's `events` calls this; an app whose
    /// Bluetooth callbacks run elsewhere hops to the game's actor and calls it there, as
    /// `GameHost.receivePixels` does).
    public func receive(_ event: PixelsTransportEvent) {
        switch event {
        case .opened:
            guard phase == .opening else { return }
            phase = .identifying
            write(.whoAreYou)
        case .failed(let reason):
            guard phase == .opening else { return }
            phase = .closed
            report?(.connectionFailed(reason))
        case .closed(let reason):
            let was = phase
            phase = .closed
            rollStartedAt = nil
            rollUpdates = false
            switch was {
            case .connected, .identifying: report?(.disconnected(reason))
            case .opening: report?(.connectionFailed(reason))
            case .refusing, .closed: break
            }
        case .notified(let bytes):
            let message: PixelsMessage
            do { message = try PixelsMessage.decode(bytes) } catch {
                protocolError("\(error)")
                return
            }
            received(message)
        }
    }

    func received(_ message: PixelsMessage) {
        switch message {
        case .iAmADie(let identity):
            if phase == .identifying { identified(identity) } else { self.identity = identity }
        case .rollState(let state, let face) where phase == .connected: rollState(state, faceIndex: face)
        case .batteryLevel(let level, let state) where phase == .connected: report?(.battery(level: level, charging: state.isCharging))
        case .rssi(let dBm) where phase == .connected: report?(.signal(rssi: dBm))
        case .blinkAck: blinksAcknowledged += 1
        case .rollState, .batteryLevel, .rssi: break  // before the handshake: the IAmADie has it
        case .whoAreYou, .blink, .stopAllAnimations, .requestBatteryLevel, .requestRssi:
            protocolError("Pixels message \(message.id.name) comes from a host, not a die: ignored")
        }
    }

    func identified(_ die: PixelsIdentity) {
        identity = die
        if let given = die.name { name = given } else if name == "Pixels die" {
            name = "Pixel " + String(die.pixelID, radix: 16, uppercase: true)
        }
        guard die.faces == sides else {
            phase = .refusing
            let what = die.faces.map { "a d\($0)" } ?? "a \(die.dieType)"
            report?(.authorisationFailed("\(name) is \(what); this game needs a \(sides)-sided die"))
            transport.close()
            phase = .closed
            return
        }
        phase = .connected
        leds = LEDTimeline()
        report?(.connected)
        report?(.battery(level: die.batteryLevel, charging: die.batteryState.isCharging))
        write(.requestRssi(.once, minimumInterval: 0))
    }

    func rollState(_ state: PixelsRollState, faceIndex: Int) {
        let now = clock()
        switch state {
        case .unknown: return
        case .handling, .rolling:
            if rollStartedAt == nil { rollStartedAt = now }
            report?(.rollState(state == .handling ? .handling : .rolling))
        case .onFace:
            rollStartedAt = nil  // put down, not rolled
            report?(.rollState(.onFace))
        case .crooked:
            let wasRolling = rollStartedAt != nil
            rollStartedAt = nil
            report?(.rollState(.crooked))
            if wasRolling { report?(.roll(Roll(values: [], total: 0, flag: .tilt))) }
        case .rolled:
            let started = rollStartedAt ?? now
            rollStartedAt = nil
            guard (0..<sides).contains(faceIndex) else {
                protocolError("Pixels message RollState: face index \(faceIndex), expected 0…\(sides - 1) on a d\(sides): no roll")
                return
            }
            report?(.rollState(.rolled))
            if now - started < minimumRollTime {
                report?(.roll(Roll(values: [], total: 0, flag: .tooShort)))
            } else {
                report?(.roll(Roll(values: [faceIndex + 1])))
            }
        }
    }
}

extension PixelsDie: ThrowableDie {
    /// Throws for the transport when it is a die in software (`SimulatedPixel`).
    public var rolls: Int { (transport as? ThrowableDie)?.rolls ?? 0 }

    @discardableResult
    public func throwDie(values: [Int]? = nil, flag: Roll.Flag? = nil) -> Bool {
        guard phase == .connected else { return false }
        return (transport as? ThrowableDie)?.throwDie(values: values, flag: flag) ?? false
    }
}
