/// One thing that changes a game, as a typed value: what the REPL parses a line into,
/// what a game log stores, what a die, a fuzzer or a served room feeds a game
/// (`Game.apply`). Text is for people (`line`); inside, an input travels as this.
///
///     let input = GameInput(.action(name: "call", arguments: [.string("07")]), seat: "Ann")
///     input.line    // as Ann call "07"
///     input.json    // {"args":["07"],"name":"call","seat":"Ann","type":"action"}
///     game.apply(input)
public struct GameInput: Equatable, Sendable {
    /// The player it comes from; nil: the current player. Inputs that belong to no
    /// player (a tick, a die's report, restart, reload) ignore it.
    public var seat: String?
    public var kind: Kind

    public init(_ kind: Kind, seat: String? = nil) {
        self.kind = kind
        self.seat = seat
    }

    public enum Kind: Equatable, Sendable {
        /// A roll of the player's dice.
        case roll(RollInput)
        /// A named action of the rules' `actions` table with its arguments.
        case action(name: String, arguments: [GameInput.Argument])
        /// The game clock moves on by this many ms.
        case tick(milliseconds: Int)
        /// What a connected die reported: a roll, or a change of its connection or battery.
        case device(DeviceInput)
        /// The die tilted: an accelerometer sample now (x, y in g).
        case tilt(x: Double, y: Double)
        /// Sensor samples; with `fromNow`, their times count from the game clock when
        /// the input is applied (a recording), else they are game times.
        case sensor(samples: [SensorSample], fromNow: Bool)
        /// A new game with the same players.
        case restart
        /// The rules file read again, the game in progress kept.
        case reload
        /// The current player's bot makes their move.
        case bot
        /// The current player's turn passes on without a move (rules with
        /// `skip_absent = true`; a served room skips an absent seat so).
        case skip
    }

    /// How the dice of a roll are given.
    public enum RollInput: Equatable, Sendable {
        /// The declared dice, from the game's generator.
        case random
        /// The values shown, one per die.
        case values([Int])
        /// A roll the die flagged (`tilt`, `too_short`): no values.
        case flagged(Roll.Flag)
        /// Keep the dice at these positions (1-based) of the last good roll, roll the
        /// others - or give their values, in position order.
        case keep(positions: [Int], rolled: [Int]?)
    }

    /// What a die reported.
    public enum DeviceInput: Equatable, Sendable {
        case roll(Roll)
        /// A connection change, or the battery level (percent) with `.battery`.
        case status(DeviceStatus, value: Int?)
    }

    /// The longest string argument, in UTF-8 bytes.
    public static let maxStringBytes = 4096
    /// The most arguments an action takes.
    public static let maxArguments = 64
    /// The most dice in a roll, and sensor samples in one input.
    public static let maxValues = 1000
    public static let maxSamples = 100_000

    /// Why this input cannot be applied to any game (a value out of range), nil if it
    /// may be: what `Game.apply` refuses with `bad-argument` before anything runs.
    public var problem: String? {
        if let seat, seat.isEmpty || seat.utf8.count > Self.maxStringBytes { return "a seat is a player's name, got '\(seat.prefix(40))'" }
        switch kind {
        case .roll(.values(let values)):
            guard values.count <= Self.maxValues else { return "a roll has at most \(Self.maxValues) dice, got \(values.count)" }
            if let bad = values.first(where: { !(-GameSession.maxRollValue...GameSession.maxRollValue).contains($0) }) {
                return "a rolled value must be from 1 to \(GameSession.maxRollValue), got '\(bad)'"
            }
        case .roll(.flagged(.ok)):
            return "a flagged roll is 'tilt' or 'too_short'"
        case .roll(.keep(let positions, let rolled)):
            guard positions.count <= Self.maxValues, (rolled?.count ?? 0) <= Self.maxValues else { return "a roll has at most \(Self.maxValues) dice" }
            if let bad = positions.first(where: { !(1...1000).contains($0) }) {
                return "roll keep takes die positions, e.g. 'roll keep 1 3' (or 'roll keep 1 3 = 4 5' with the new dice's values), got '\(bad)'"
            }
            if let bad = rolled?.first(where: { !(1...GameSession.maxRollValue).contains($0) }) {
                return "a rolled value must be from 1 to \(GameSession.maxRollValue), got '\(bad)'"
            }
        case .roll(.random), .roll(.flagged), .restart, .reload, .bot, .skip:
            break
        case .action(let name, let arguments):
            guard !name.isEmpty, name.utf8.count <= 256 else { return "an action is named by a word of at most 256 bytes" }
            guard arguments.count <= Self.maxArguments else { return "an action takes at most \(Self.maxArguments) arguments, got \(arguments.count)" }
            for (index, argument) in arguments.enumerated() {
                if let problem = argument.problem { return "argument \(index + 1) of '\(name)': \(problem)" }
            }
        case .tick(let ms):
            guard (0...GameSession.maxTickMilliseconds).contains(ms) else {
                return "tick takes a duration from 0 to 1 day (\(GameSession.maxTickMilliseconds)ms), got \(ms)ms"
            }
        case .device(.roll(let roll)):
            guard roll.values.count <= Self.maxValues else { return "a roll has at most \(Self.maxValues) dice, got \(roll.values.count)" }
            if roll.flag == .ok, roll.values.isEmpty { return "device roll takes the values the die shows, 'tilt' or 'short'" }
            if let bad = roll.values.first(where: { !(1...GameSession.maxRollValue).contains($0) }) {
                return "device roll takes face values from 1 to \(GameSession.maxRollValue), 'tilt' or 'short', got '\(bad)'"
            }
        case .device(.status(let status, let value)):
            if status == .battery {
                guard let value, (0...100).contains(value) else { return "usage: device battery N, N a percentage from 0 to 100" }
            } else if value != nil {
                return "usage: device \(status.rawValue)"
            }
        case .tilt(let x, let y):
            guard x.isFinite, y.isFinite, abs(x) <= 2, abs(y) <= 2 else { return "usage: tilt X Y, each from -2 to 2 (g), e.g. 'tilt 0.2 -0.1'" }
        case .sensor(let samples, _):
            guard samples.count <= Self.maxSamples else { return "one input takes at most \(Self.maxSamples) sensor samples, got \(samples.count)" }
            for sample in samples {
                guard sample.values.count == sample.sensor.valueCount else {
                    return "a \(sample.sensor.rawValue) sample has \(sample.sensor.valueCount) value\(sample.sensor.valueCount == 1 ? "" : "s"), got \(sample.values.count)"
                }
                guard (0...HostLimits.maximumTime).contains(sample.time) else { return "a sample's time must be whole ms from 0 to \(HostLimits.maximumTime), got \(sample.time)" }
                if let bad = sample.values.first(where: { !$0.isFinite || abs($0) > GameSession.maxSensorValue }) {
                    return "a sensor value must be a number from -\(Int(GameSession.maxSensorValue)) to \(Int(GameSession.maxSensorValue)), got '\(bad)'"
                }
            }
        }
        return nil
    }
}
