/// A game, its session and its die inside one actor: the way to use DiceHost from Swift
/// concurrency.
///
/// **The threading rule.** `Game`, `GameSession`, `DieLink`, `DieManager` and every
/// `SmartDie` are not `Sendable`: each game and what is attached to it belongs to one
/// thread or actor at a time, and nothing of it is shared. `GameHost` is that actor: it
/// makes them in its own isolation and never hands them out. Apps talk to it with
/// `Sendable` values only - command lines and die actions in (its methods), `Event`s out
/// (`events`, an `AsyncStream`). A Bluetooth die implementation hops onto the host
/// (`await host.report(event)`) before reporting.
///
///     let host = try GameHost(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: 7,
///                             die: { SimulatedDie(seed: 7) })
///     Task { for await event in host.events { draw(event) } }
///     await host.connectDie()
///     await host.throwSimulatedDie()
///     await host.run("tick 500ms")
///     await host.finish()
public actor GameHost {
    /// What an app draws, in order, stamped with the game clock (ms) when it happened.
    public struct Event: Sendable, Equatable {
        public var time: Int
        public var kind: Kind
    }

    /// What an `Event` is about.
    public enum Kind: Sendable, Equatable {
        /// A game event: a turn, a roll, an LED command, a line the rules said, the end.
        case game(GameEvent)
        /// What the die reported (roll states, connection, battery, signal, rolls).
        case die(DieEvent)
        /// A command sent to the die (roll updates, LEDs, sensor streams).
        case sent(DieCommand)
        /// A die report the game did not take (a roll out of turn), or a refused command.
        case ignored(String)
    }

    /// Every event, as it happens; ends after `finish()`.
    public nonisolated let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let session: GameSession
    private let link: DieLink

    /// Starts a game of `rulesFile` with a die made by `die` (in the host's isolation).
    public init(rulesFile: String, players: [String], seed: UInt64, params: [(String, String)] = [],
                die makeDie: @Sendable () -> SmartDie) throws {
        let game = try Game(rulesFile: rulesFile, players: players, seed: seed, params: params)
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        events = stream
        self.continuation = continuation
        session = GameSession(game: game)
        link = DieLink(session: session, die: makeDie())
        for event in game.events { continuation.yield(Event(time: event.time, kind: .game(event))) }
        link.onEvent = { event in
            let now = game.now
            switch event {
            case .game(let e): continuation.yield(Event(time: e.time, kind: .game(e)))
            case .die(let e): continuation.yield(Event(time: now, kind: .die(e)))
            case .sent(let c): continuation.yield(Event(time: now, kind: .sent(c)))
            case .ignored(let reason): continuation.yield(Event(time: now, kind: .ignored(reason)))
            }
        }
    }

    /// Runs a command line (`tick 16ms`, an action, `as Bob snap`); returns its reply lines.
    @discardableResult
    public func run(_ line: String) -> [String] {
        let reply = link.run(line)
        if let error = session.lastError { continuation.yield(Event(time: session.game.now, kind: .ignored(error))) }
        return reply.lines
    }

    /// Applies a typed input (an action with typed arguments, a tick, …) and says what
    /// became of it; a refusal or failure is also reported as `.ignored`.
    @discardableResult
    public func apply(_ input: GameInput) -> GameOutcome {
        link.run(input)
        let outcome = session.lastOutcome ?? .refused(.refused, session.lastError ?? "the input was not applied")
        if let error = session.lastError { continuation.yield(Event(time: session.game.now, kind: .ignored(error))) }
        return outcome
    }

    /// Passes on a report from the die (a Bluetooth implementation calls this).
    public func report(_ event: DieEvent) { link.receive(event) }

    /// Passes on what a Pixels die's transport heard (bytes, a drop) when the die is a
    /// `PixelsDie`: a Bluetooth queue hops here, in order, rather than call the die itself.
    public func receivePixels(_ event: PixelsTransportEvent) { (link.die as? PixelsDie)?.receive(event) }

    public func connectDie() { link.die.connect() }
    public func disconnectDie() { link.die.disconnect() }

    /// Throws the die if it is one in software (`ThrowableDie`: a `SimulatedDie`, a `PixelsDie` on a
    /// `SimulatedPixel`); false otherwise, or if not connected.
    @discardableResult
    public func throwSimulatedDie(values: [Int]? = nil, flag: Roll.Flag? = nil) -> Bool {
        (link.die as? ThrowableDie)?.throwDie(values: values, flag: flag) ?? false
    }

    /// Streams recorded samples from a `SimulatedDie` (only the sensors the rules subscribe to).
    public func streamSimulatedSensor(_ samples: [SensorSample]) { (link.die as? SimulatedDie)?.stream(samples) }

    /// The game clock (ms), whose turn it is, and whether it is over.
    public var now: Int { session.game.now }
    public var currentPlayer: String? { session.game.currentPlayer }
    public var outcome: Game.Outcome? { session.game.outcome }
    /// What each face shows over time (ask it for `colors(at:)` to draw frames).
    public var led: LEDTimeline { session.game.led }
    /// Whether the die said it is connected.
    public var isDieConnected: Bool { link.dieIsConnected }

    /// Ends `events`.
    public func finish() { continuation.finish() }
}
