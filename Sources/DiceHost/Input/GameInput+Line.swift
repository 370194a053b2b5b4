import Foundation

extension GameInput {
    /// The input as a REPL line (what logs show and transcripts hold): `as Ann call "07"`,
    /// `roll keep 1 3 = 4 5`, `tick 500ms`. The REPL reads it back as this input, except
    /// sensor samples from a recording (more than one sample: a line names the count).
    public var line: String {
        let prefix = seat.map { "as " + (GameInputLine.needsQuotes($0) ? GameInputLine.quote($0) : $0) + " " } ?? ""
        return prefix + command
    }

    /// The line without the seat.
    var command: String {
        func numbers(_ values: [Int]) -> String { values.map(String.init).joined(separator: " ") }
        switch kind {
        case .roll(.random): return "roll"
        case .roll(.values(let values)): return "roll " + numbers(values)
        case .roll(.flagged(let flag)): return flag == .tooShort ? "roll short" : "roll \(flag.rawValue)"
        case .roll(.keep(let positions, let rolled)):
            return (["roll keep"] + positions.map(String.init) + (rolled.map { ["="] + $0.map(String.init) } ?? [])).joined(separator: " ")
        case .action(let name, let arguments):
            return ([name] + arguments.map(\.description)).joined(separator: " ")
        case .tick(let ms): return "tick \(ms)ms"
        case .device(.roll(let roll)):
            switch roll.flag {
            case .ok: return "device roll " + numbers(roll.values)
            case .tilt: return "device roll tilt"
            case .tooShort: return "device roll short"
            }
        case .device(.status(let status, let value)):
            return "device \(status.rawValue)" + (value.map { " \($0)" } ?? "")
        case .tilt(let x, let y): return "tilt \(Self.decimal(x)) \(Self.decimal(y))"
        case .sensor(let samples, let fromNow):
            guard samples.count == 1, let sample = samples.first else {
                return "sensor \(samples.first?.sensor.rawValue ?? "") (\(samples.count) samples\(fromNow ? " from now" : ""))"
            }
            let at = fromNow && sample.time == 0 ? "" : " @\(sample.time)"
            return "sensor \(sample.sensor.rawValue) " + sample.values.map(Self.decimal).joined(separator: " ") + at
        case .restart: return "restart"
        case .reload: return "reload"
        case .bot: return "bot"
        case .skip: return "skip"
        }
    }

    /// A number as `tilt` and `sensor` read it: the shortest form that reads back as the
    /// same `Double` (`0.2`, `1e-05`, `-0`), a whole number without its `.0`.
    static func decimal(_ value: Double) -> String {
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
