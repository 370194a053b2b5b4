/// Wires a smart die to a game session: the die's reports become game inputs, and the
/// game's LED commands, roll updates and sensor subscriptions go to the die.
///
/// - A roll counts only while the game awaits one (`Game.awaitsRoll`): roll updates go on
///   when a turn begins and off once a roll is taken, so a roll out of turn is ignored and
///   reported (`Event.ignored`), not counted.
/// - Connection changes and battery levels reach the rules as `on_device(g, event, value)`.
/// - Sensor samples are delivered to `sensor.every` subscriptions at their rates on the
///   game clock; the die is asked to stream what the rules subscribe to.
///
/// Every report becomes a typed `GameInput` (a device roll, a connection change, a
/// sensor sample at its game time) applied through `run`, so a `GameLogRecorder` passed
/// as `recorder` logs it and `GameReplay` replays it without the die.
///
/// Threading: a link, its session and its die belong to one thread or actor (see `GameHost`).
public final class DieLink {
    /// What happened, for an app to draw: everything the die reported, the game's events,
    /// the commands sent to the die, and inputs the game refused.
    public enum Event: Equatable, Sendable {
        case die(DieEvent)
        case game(GameEvent)
        case sent(DieCommand)
        /// A die report the game did not take (a roll out of turn), with the reason.
        case ignored(String)
    }

    public let session: GameSession
    public let die: SmartDie
    public let recorder: GameLogRecorder?
    /// Called for every `Event`, in order.
    public var onEvent: ((Event) -> Void)?
    /// Offset from the die's sample clock to the game clock: set by the first sample, and
    /// again when the die's clock starts over (a new recording).
    var sampleOffset: Int?
    var lastSampleTime: Int?
    var forwardedEvents = 0
    var forwardedGame: Game?
    var rollUpdatesOn = false
    var streaming: [SensorKind: Int] = [:]
    /// Whether the die said it is connected (commands go only to a connected die; after a
    /// connection everything is sent again).
    public private(set) var dieIsConnected = false

    public var game: Game { session.game }

    /// Links `die` to `session`; the die's earlier `report` handler (a `DieManager`'s)
    /// still hears everything.
    public init(session: GameSession, die: SmartDie, recorder: GameLogRecorder? = nil) {
        self.session = session
        self.die = die
        self.recorder = recorder
        forwardedGame = session.game
        forwardedEvents = session.game.events.count
        let previous = die.report
        die.report = { [weak self] event in
            previous?(event)
            self?.receive(event)
        }
    }

    /// Runs a command line (an input or a query), logging it if there is a recorder, and
    /// then brings the die up to date. Apps use this for their own inputs (`tick 16ms`,
    /// an action) so that LEDs and roll updates follow.
    @discardableResult
    public func run(_ line: String) -> GameSession.Reply {
        let reply = recorder?.run(line, in: session) ?? session.run(line)
        sync()
        return reply
    }

    /// Turns one report of the die into game input (or just passes it on).
    public func receive(_ event: DieEvent) {
        onEvent?(.die(event))
        switch event {
        case .connected:
            dieIsConnected = true
            rollUpdatesOn = false
            streaming = [:]
        case .disconnected, .connectionFailed, .authorisationFailed: dieIsConnected = false
        default: break
        }
        let kind: GameInput.Kind?
        switch event {
        case .connected: kind = .device(.status(.connected, value: nil))
        case .disconnected: kind = .device(.status(.disconnected, value: nil))
        case .connectionFailed: kind = .device(.status(.connectionFailed, value: nil))
        case .authorisationFailed: kind = .device(.status(.authorisationFailed, value: nil))
        case .battery(let level, _): kind = .device(.status(.battery, value: min(max(level, 0), 100)))
        case .roll(let roll): kind = .device(.roll(roll.flag == .ok ? Roll(values: roll.values) : Roll(values: [], flag: roll.flag)))
        case .sensor(let sample):
            if sampleOffset == nil || sample.time < (lastSampleTime ?? 0) { sampleOffset = game.now - sample.time }
            let offset = sampleOffset ?? 0
            lastSampleTime = sample.time
            let at = max(game.now, min(HostLimits.maximumTime, sample.time + offset))
            // Values as a `sensor` line always gave them (6 places, within its range), so
            // a game plays the same whether its samples came from a die or a transcript.
            let values = sample.values.map { Double(Self.decimal($0)) ?? 0 }
            kind = .sensor(samples: [SensorSample(sensor: sample.sensor, time: at, values: values)], fromNow: false)
        case .rollState, .signal: kind = nil
        }
        guard let kind else { return }
        run(GameInput(kind))
        if let error = session.lastError { onEvent?(.ignored(error)) }
    }

    /// Applies a typed input, logging it if there is a recorder, and then brings the die
    /// up to date; `session.lastOutcome` says what became of it.
    @discardableResult
    public func run(_ input: GameInput) -> GameSession.Reply {
        let reply = recorder?.run(input, in: session) ?? session.run(input)
        sync()
        return reply
    }

    /// Sends the die what changed in the game: new LED commands, roll updates on or off,
    /// sensor streams started or stopped; reports new game events. Called after every
    /// input `run` makes; call it after changing the game any other way.
    public func sync() {
        let game = self.game
        if forwardedGame !== game || game.events.count < forwardedEvents {  // another game, or an undo
            forwardedGame = game
            forwardedEvents = min(forwardedEvents, game.events.count)
        }
        for event in game.events.dropFirst(forwardedEvents) {
            onEvent?(.game(event))
            if case .led(let command) = event.kind, dieIsConnected { send(.led(command)) }
        }
        forwardedEvents = game.events.count
        guard dieIsConnected else {
            rollUpdatesOn = false
            streaming = [:]
            return
        }
        if game.awaitsRoll != rollUpdatesOn {
            rollUpdatesOn = game.awaitsRoll
            send(.rollUpdates(rollUpdatesOn))
        }
        let wanted = game.sensorRates
        for (sensor, rate) in wanted.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where streaming[sensor] != rate {
            send(.sensor(sensor, rate: rate))
        }
        for sensor in streaming.keys.sorted(by: { $0.rawValue < $1.rawValue }) where wanted[sensor] == nil {
            send(.sensor(sensor, rate: nil))
        }
        streaming = wanted
    }

    /// A value as the `sensor` command takes it: plain decimals (no exponent), 6 places
    /// at most, clamped to the command's range.
    static func decimal(_ value: Double) -> String {
        let clamped = value.isFinite ? min(max(value, -GameSession.maxSensorValue), GameSession.maxSensorValue) : 0
        var text = String(format: "%.6f", clamped)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    func send(_ command: DieCommand) {
        onEvent?(.sent(command))
        die.send(command)
    }
}
