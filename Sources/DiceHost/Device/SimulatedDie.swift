import Foundation

/// A smart die in software, for headless play and tests: seeded (its faces come from its
/// own generator, so the same seed throws the same rolls), with scripted faults, and
/// able to stream a recorded sensor file. Everything it does happens at once, on the
/// caller's thread: no timers, no threads.
///
///     let die = SimulatedDie(seed: 7, faults: try .parse("tilt@2,disconnect@3"))
///     die.report = { print($0) }
///     die.connect()          // .connected, .battery, .signal
///     die.throwDie()         // .rollState(.handling), .rolling, .rolled, .roll(⚄), .onFace
public final class SimulatedDie: SmartDie {
    /// Scripted faults, written `connect-fails,auth-fails,disconnect@3,tilt@2,short@4,low-battery@5`
    /// (the `--die sim:…` of `dicehost play`). Roll numbers count from 1 over the die's life.
    public struct Faults: Equatable, Sendable, CustomStringConvertible {
        /// How many connection attempts fail before one succeeds.
        public var failedConnections = 0
        /// Every connection attempt fails authorisation.
        public var failsAuthorisation = false
        /// The die disconnects right after its Nth roll.
        public var disconnectAfterRoll: Int?
        /// These rolls come to rest crooked: a `tilt` roll.
        public var tiltedRolls: Set<Int> = []
        /// These rolls are too short: a `too_short` roll.
        public var shortRolls: Set<Int> = []
        /// After its Nth roll the battery reads low (9%).
        public var lowBatteryAfterRoll: Int?

        public init() {}

        /// Parses a comma-separated fault list; errors name the fault and what was expected.
        public static func parse(_ text: String) throws -> Faults {
            var faults = Faults()
            for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
                let parts = item.split(separator: "@", maxSplits: 1).map(String.init)
                let n: Int? = parts.count == 2 ? Int(parts[1]) : nil
                if parts.count == 2, !(n.map { (1...1_000_000).contains($0) } ?? false) {
                    throw FaultError(message: "fault '\(item)': expected a roll number from 1 to 1000000 after '@'")
                }
                switch (parts[0], n) {
                case ("connect-fails", nil): faults.failedConnections += 1
                case ("connect-fails", let n?): faults.failedConnections += n
                case ("auth-fails", nil): faults.failsAuthorisation = true
                case ("disconnect", let n?): faults.disconnectAfterRoll = n
                case ("tilt", let n?): faults.tiltedRolls.insert(n)
                case ("short", let n?): faults.shortRolls.insert(n)
                case ("low-battery", let n?): faults.lowBatteryAfterRoll = n
                default:
                    throw FaultError(message: "unknown fault '\(item)' (connect-fails[@N], auth-fails, disconnect@N, tilt@N, short@N, low-battery@N)")
                }
            }
            return faults
        }

        public var description: String {
            var items: [String] = []
            if failedConnections > 0 { items.append(failedConnections == 1 ? "connect-fails" : "connect-fails@\(failedConnections)") }
            if failsAuthorisation { items.append("auth-fails") }
            if let n = disconnectAfterRoll { items.append("disconnect@\(n)") }
            items += tiltedRolls.sorted().map { "tilt@\($0)" } + shortRolls.sorted().map { "short@\($0)" }
            if let n = lowBatteryAfterRoll { items.append("low-battery@\(n)") }
            return items.joined(separator: ",")
        }
    }

    /// A fault list that does not parse: what was wrong and what was expected.
    public struct FaultError: Error, CustomStringConvertible {
        public var message: String
        public init(message: String) { self.message = message }
        public var description: String { message }
    }

    /// Finds the simulated dice given to it, at once.
    public final class Scanner: DieScanner {
        public let dice: [SmartDie]
        public init(dice: [SmartDie]) { self.dice = dice }
        public func startScan(found: @escaping (SmartDie) -> Void) { dice.forEach(found) }
        public func stopScan() {}
    }

    public let identifier: String
    public let name: String
    public var report: ((DieEvent) -> Void)?
    public let faults: Faults
    /// Faces per die, and dice per throw (a 2d6 game throws two).
    public let sides: Int
    public let count: Int

    public private(set) var isConnected = false
    public private(set) var rollUpdates = false
    public private(set) var connectionAttempts = 0
    /// Rolls thrown so far (while connected).
    public private(set) var rolls = 0
    public private(set) var battery = 87
    /// The sensors streaming, and at what rate.
    public private(set) var sensorRates: [SensorKind: Int] = [:]
    /// Every LED command received, in order (what a test checks).
    public private(set) var ledCommands: [LEDCommand] = []
    var random: UInt64

    public init(seed: UInt64 = 0, faults: Faults = Faults(), sides: Int = 6, count: Int = 1, name: String = "Simulated die") {
        self.faults = faults
        self.sides = max(sides, 1)
        self.count = max(count, 1)
        self.name = name
        identifier = "sim-\(seed)"
        random = seed
    }

    public func connect() {
        guard !isConnected else { return }
        connectionAttempts += 1
        if connectionAttempts <= faults.failedConnections {
            report?(.connectionFailed("no answer from \(name) (attempt \(connectionAttempts))"))
            return
        }
        if faults.failsAuthorisation {
            report?(.authorisationFailed("\(name) refused this host's key"))
            return
        }
        isConnected = true
        report?(.connected)
        report?(.battery(level: battery, charging: false))
        report?(.signal(rssi: -58))
    }

    public func disconnect() {
        guard isConnected else { return }
        drop("disconnected by the host")
    }

    func drop(_ reason: String) {
        isConnected = false
        rollUpdates = false
        sensorRates = [:]
        report?(.disconnected(reason))
    }

    public func send(_ command: DieCommand) {
        guard isConnected else { return }
        switch command {
        case .rollUpdates(let on): rollUpdates = on
        case .led(let led): ledCommands.append(led)
        case .sensor(let sensor, let rate): sensorRates[sensor] = rate
        }
    }

    /// A player throws the die: it reports its roll state as it tumbles, then the roll -
    /// given `values`, else faces from its seed - flagged as the faults say. It reports
    /// the roll whether or not roll updates are on (as a die whose update request was lost
    /// would): the game decides whether it counts. Then the scripted disconnect or low
    /// battery, if this was their roll. `flag` forces the die's flag (a REPL's `roll tilt`).
    /// Does nothing when not connected (returns false).
    @discardableResult
    public func throwDie(values: [Int]? = nil, flag forced: Roll.Flag? = nil) -> Bool {
        guard isConnected else { return false }
        rolls += 1
        report?(.rollState(.handling))
        report?(.rollState(.rolling))
        let flag: Roll.Flag = forced ?? (faults.tiltedRolls.contains(rolls) ? .tilt : faults.shortRolls.contains(rolls) ? .tooShort : .ok)
        let faces = values ?? (0..<count).map { _ in nextFace() }
        report?(.rollState(flag == .tilt ? .crooked : .rolled))
        report?(.roll(flag == .ok ? Roll(values: faces) : Roll(values: [], total: 0, flag: flag)))
        if isConnected { report?(.rollState(.onFace)) }
        if faults.lowBatteryAfterRoll == rolls, isConnected {
            battery = 9
            report?(.battery(level: battery, charging: false))
        }
        if faults.disconnectAfterRoll == rolls, isConnected { drop("out of range after roll \(rolls)") }
        return true
    }

    /// Streams samples (a `SensorRecording`) as the die would: only sensors subscribed to.
    /// Their times are the die's clock; `DieLink` maps them onto the game clock.
    public func stream(_ samples: [SensorSample]) {
        for sample in samples where isConnected && sensorRates[sample.sensor] != nil { report?(.sensor(sample)) }
    }

    /// SplitMix64: small, seedable, the same on every machine.
    func nextFace() -> Int {
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(z % UInt64(sides)) + 1
    }
}
