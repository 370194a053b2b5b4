import Foundation
import Lua

/// A recorded sensor stream: timestamped samples from a file, to replay into a game
/// (`sensor accelerometer FILE` at the REPL and in transcripts, `SimulatedDie.stream`).
/// Two formats, one sample per line, times in ms from the start of the recording:
///
///     t,x,y,z                      CSV: a header naming the columns, then numbers
///     0,0.0,0.1,0.99
///     16,0.02,0.1,0.99
///
///     {"t":0,"values":[0.0,0.1,0.99]}          JSON Lines (or "x","y","z", or "value")
///     {"t":16,"x":0.02,"y":0.1,"z":0.99}
public enum SensorRecording {
    /// A line that is not a sample: the file, the line and what was expected.
    public struct FormatError: Error, CustomStringConvertible, Equatable {
        public var file: String
        public var line: Int
        public var message: String
        public var description: String { "\(file):\(line): \(message)" }
    }

    public static let maxFileBytes = 64 << 20
    public static let maxSamples = 1_000_000

    /// Reads a recording of `sensor` (only a regular file, at most `maxFileBytes`).
    public static func read(_ path: String, sensor: SensorKind) throws -> [SensorSample] {
        let data: Data
        do { data = try LuaSourceFile.read(path, limit: maxFileBytes) } catch let problem as LuaSourceFile.Problem {
            throw FormatError(file: path, line: 0, message: "cannot read the recording: \(problem.reason)")
        }
        return try parse(String(decoding: data, as: UTF8.self), sensor: sensor, file: path)
    }

    /// Parses CSV (first line a header starting with `t`) or JSON Lines (lines starting with
    /// `{`); lines may end in LF or CRLF.
    public static func parse(_ text: String, sensor: SensorKind, file: String = "recording") throws -> [SensorSample] {
        var samples: [SensorSample] = []
        var csvColumns: Int?
        var lastTime = 0
        for (index, raw) in TextLines.split(text).enumerated() {
            let line = String(decoding: raw, as: UTF8.self)
            let number = index + 1
            func fail(_ message: String) -> FormatError { FormatError(file: file, line: number, message: message) }
            if line.isEmpty || line.hasPrefix("#") { continue }
            let time: Int, values: [Double]
            if line.hasPrefix("{") {
                (time, values) = try jsonSample(line, sensor: sensor, fail: fail)
            } else if let columns = csvColumns {
                let cells = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count == columns else { throw fail("expected \(columns) comma-separated numbers (as the header), got \(cells.count)") }
                guard let t = Int(cells[0]) else { throw fail("expected the time in whole ms first, got '\(cells[0])'") }
                values = try cells.dropFirst().map { cell in
                    guard let v = Double(cell), v.isFinite else { throw fail("expected a finite number, got '\(cell)'") }
                    return v
                }
                time = t
            } else {
                let names = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard names.first == "t", names.count == sensor.valueCount + 1 else {
                    throw fail("expected a CSV header 't,' and \(sensor.valueCount) column\(sensor.valueCount == 1 ? "" : "s") for \(sensor.rawValue) (e.g. 't,x,y,z'), or JSON lines, got '\(line.prefix(60))'")
                }
                csvColumns = names.count
                continue
            }
            guard values.count == sensor.valueCount else { throw fail("expected \(sensor.valueCount) values for \(sensor.rawValue), got \(values.count)") }
            guard (0...HostLimits.maximumTime).contains(time) else { throw fail("expected a time from 0 ms, got \(time)") }
            guard time >= lastTime else { throw fail("expected times in order, got \(time) ms after \(lastTime) ms") }
            guard samples.count < maxSamples else { throw fail("a recording may hold at most \(maxSamples) samples") }
            lastTime = time
            samples.append(SensorSample(sensor: sensor, time: time, values: values))
        }
        guard !samples.isEmpty else { throw FormatError(file: file, line: 1, message: "expected samples, the recording has none") }
        return samples
    }

    static func jsonSample(_ line: String, sensor: SensorKind, fail: (String) -> FormatError) throws -> (Int, [Double]) {
        guard case .object(let fields)? = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)) else {
            throw fail("expected a JSON object, got '\(line.prefix(60))'")
        }
        guard let time = fields["t"]?.intValue else { throw fail("expected \"t\": the time in whole ms") }
        if let name = fields["sensor"]?.stringValue, name != sensor.rawValue {
            throw fail("expected \(sensor.rawValue) samples, got \(name)")
        }
        func number(_ value: JSONValue?) -> Double? {
            switch value {
            case .integer(let i)?: return Double(i)
            case .number(let d)? where d.isFinite: return d
            default: return nil
            }
        }
        if case .array(let items)? = fields["values"] {
            let values = items.compactMap(number)
            guard values.count == items.count else { throw fail("expected \"values\" to be finite numbers") }
            return (time, values)
        }
        let keys = sensor.valueCount == 3 ? ["x", "y", "z"] : ["value"]
        let values = keys.compactMap { number(fields[$0]) }
        guard values.count == keys.count else { throw fail("expected \"values\": [...] or \(keys.map { "\"\($0)\"" }.joined(separator: ", ")) as numbers") }
        return (time, values)
    }
}
