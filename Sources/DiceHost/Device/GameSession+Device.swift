import Foundation

/// The session commands that feed a game from a die: what the REPL types, transcripts
/// check, and `DieLink` runs (so a game log replays a die's inputs like any other).
///
///     device roll 5 | device roll tilt | device roll short    a roll the die reported
///     device connected | disconnected | connection_failed | authorisation_failed
///     device battery 12                                         a battery level (%)
///     tilt 0.2 -0.1                      an accelerometer sample now (x, y in g)
///     sensor accelerometer 0.1 0 0.99    one sample now; `@1500` at that game time
///     sensor accelerometer FILE          a recorded stream (CSV or JSON Lines) from now
extension GameSession {
    static let deviceHelp: [(String, String)] = [
        ("device EVENT [V...]", "what a die reports: roll V|tilt|short, connected, disconnected, battery N, …"),
        ("tilt X Y", "tilt the die: an accelerometer sample now (X, Y in g, from -2 to 2)"),
        ("sensor KIND V...|FILE", "a sensor sample now (V... [@MS]) or a recorded stream (CSV or JSON Lines)"),
    ]

    /// The largest tilt or sensor value taken at the prompt.
    static let maxSensorValue = 1_000_000.0

    /// The input a `device`, `tilt` or `sensor` command names.
    func deviceInput(_ command: String, _ args: [String]) throws -> GameInput.Kind {
        switch command {
        case "device":
            guard let what = args.first else { throw GameError.refused("usage: device roll V|tilt|short, device connected|disconnected|connection_failed|authorisation_failed, device battery N") }
            if what == "roll" {
                let rest = Array(args.dropFirst())
                switch rest.first {
                case "tilt": return .device(.roll(Roll(values: [], flag: .tilt)))
                case "short", "too_short": return .device(.roll(Roll(values: [], flag: .tooShort)))
                case nil: throw GameError.refused("usage: device roll V...|tilt|short (the values the die shows)")
                default:
                    let values = try rest.map { arg -> Int in
                        guard let v = Int(arg), (1...Self.maxRollValue).contains(v) else {
                            throw GameError.refused("device roll takes face values from 1 to \(Self.maxRollValue), 'tilt' or 'short', got '\(arg)'")
                        }
                        return v
                    }
                    return .device(.roll(Roll(values: values)))
                }
            }
            guard let status = DeviceStatus(rawValue: what) else {
                throw GameError.refused("unknown device event '\(what)' (roll, \(DeviceStatus.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            if status == .battery {
                guard args.count == 2, let level = Int(args[1]), (0...100).contains(level) else {
                    throw GameError.refused("usage: device battery N, N a percentage from 0 to 100")
                }
                return .device(.status(.battery, value: level))
            }
            guard args.count == 1 else { throw GameError.refused("usage: device \(what)") }
            return .device(.status(status, value: nil))
        case "tilt":
            guard args.count == 2, let x = Self.sensorNumber(args[0], limit: 2), let y = Self.sensorNumber(args[1], limit: 2) else {
                throw GameError.refused("usage: tilt X Y, each from -2 to 2 (g), e.g. 'tilt 0.2 -0.1'")
            }
            return .tilt(x: x, y: y)
        default:
            guard let name = args.first, let sensor = SensorKind(rawValue: name) else {
                throw GameError.refused("usage: sensor KIND V... [@MS] or sensor KIND FILE, KIND one of \(SensorKind.names)")
            }
            var rest = Array(args.dropFirst())
            if rest.count == 1, Double(rest[0]) == nil {
                let path = try files.pathForReading(rest[0])
                let recording = try SensorRecording.read(path, sensor: sensor)
                guard recording.last.map({ $0.time <= HostLimits.maximumTime - game.now }) ?? true else {
                    throw GameError.refused("the recording would run past the game clock's end")
                }
                return .sensor(samples: recording.map { SensorSample(sensor: sensor, time: $0.time, values: $0.values) }, fromNow: true)
            }
            var time: Int?
            if let last = rest.last, last.hasPrefix("@") {
                guard let at = Int(last.dropFirst()), at >= game.now, at <= HostLimits.maximumTime else {
                    throw GameError.refused("a sample's time @MS must be whole ms from now (\(game.now)) on, got '\(last)'")
                }
                time = at
                rest.removeLast()
            }
            guard rest.count == sensor.valueCount else {
                throw GameError.refused("a \(sensor.rawValue) sample has \(sensor.valueCount) value\(sensor.valueCount == 1 ? "" : "s"), got \(rest.count)")
            }
            let values = try rest.map { text -> Double in
                guard let v = Self.sensorNumber(text, limit: Self.maxSensorValue) else {
                    throw GameError.refused("a sensor value must be a number from -\(Int(Self.maxSensorValue)) to \(Int(Self.maxSensorValue)), got '\(text)'")
                }
                return v
            }
            return .sensor(samples: [SensorSample(sensor: sensor, time: time ?? 0, values: values)], fromNow: time == nil)
        }
    }

    /// A finite decimal number within ±limit, an exponent allowed (`1e-05`, as a line
    /// prints it); "nan", "inf", "0x1p3" are not.
    static func sensorNumber(_ text: String, limit: Double) -> Double? {
        guard text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0 == "e" || $0 == "E") }),
              let value = Double(text), value.isFinite, abs(value) <= limit else { return nil }
        return value
    }
}
