import Foundation

/// The JSON form of an input: what game logs store and what a client sends. A number
/// with a fraction or an exponent is a float (`2.0`, `1e3`), one without is an integer;
/// a string is a string whatever it spells. Written with sorted keys, floats keeping a
/// fraction or exponent so that they read back as floats.
///
///     {"type":"roll"}  {"type":"roll","values":[3,4],"seat":"Bob"}  {"type":"roll","flag":"tilt"}
///     {"type":"roll","keep":[1,3],"values":[4,5]}
///     {"type":"action","name":"call","args":["07",2.0,2,true]}
///     {"type":"tick","ms":500}
///     {"type":"device","event":"roll","values":[5]}  {"type":"device","event":"battery","value":12}
///     {"type":"tilt","x":0.2,"y":-0.1}
///     {"type":"sensor","samples":[{"sensor":"touch","t":0,"values":[3.0]}],"from_now":true}
///     {"type":"restart"}  {"type":"reload"}  {"type":"bot"}  {"type":"skip"}
extension GameInput {
    /// A JSON form that is not an input: the field at fault (`args[2]`) and what was expected.
    public struct FormatError: Error, Equatable, CustomStringConvertible {
        public var field: String
        public var message: String
        public var description: String { field.isEmpty ? message : "the field '\(field)': \(message)" }
    }

    /// The input as a JSON value (a float argument is `.number`, an integer `.integer`).
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = [:]
        if let seat { fields["seat"] = .string(seat) }
        func integers(_ values: [Int]) -> JSONValue { .array(values.map { .integer(Int64($0)) }) }
        switch kind {
        case .roll(let roll):
            fields["type"] = .string("roll")
            switch roll {
            case .random: break
            case .values(let values): fields["values"] = integers(values)
            case .flagged(let flag): fields["flag"] = .string(flag.rawValue)
            case .keep(let positions, let rolled):
                fields["keep"] = integers(positions)
                if let rolled { fields["values"] = integers(rolled) }
            }
        case .action(let name, let arguments):
            fields["type"] = .string("action")
            fields["name"] = .string(name)
            fields["args"] = .array(arguments.map(\.jsonValue))
        case .tick(let ms):
            fields["type"] = .string("tick")
            fields["ms"] = .integer(Int64(ms))
        case .device(.roll(let roll)):
            fields["type"] = .string("device")
            fields["event"] = .string("roll")
            if roll.flag == .ok { fields["values"] = integers(roll.values) } else { fields["flag"] = .string(roll.flag.rawValue) }
        case .device(.status(let status, let value)):
            fields["type"] = .string("device")
            fields["event"] = .string(status.rawValue)
            if let value { fields["value"] = .integer(Int64(value)) }
        case .tilt(let x, let y):
            fields["type"] = .string("tilt")
            fields["x"] = .number(x)
            fields["y"] = .number(y)
        case .sensor(let samples, let fromNow):
            fields["type"] = .string("sensor")
            fields["samples"] = .array(samples.map { sample in
                .object(["sensor": .string(sample.sensor.rawValue), "t": .integer(Int64(sample.time)), "values": .array(sample.values.map { .number($0) })])
            })
            fields["from_now"] = .bool(fromNow)
        case .restart: fields["type"] = .string("restart")
        case .reload: fields["type"] = .string("reload")
        case .bot: fields["type"] = .string("bot")
        case .skip: fields["type"] = .string("skip")
        }
        return .object(fields)
    }

    /// The input as one line of JSON text, floats written with a fraction or exponent
    /// (`2.0`, `1e+20`) so that they read back as floats.
    public var json: String {
        var out: [UInt8] = []
        out.reserveCapacity(96)
        Self.write(jsonValue, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// JSONValue's own form, but a `.number` always shows it is not an integer.
    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .number(let number) where number.isFinite: out.append(contentsOf: number.description.utf8)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.quote(key, into: &out)
                out.append(UInt8(ascii: ":"))
                if let field = fields[key] { write(field, into: &out) }
            }
            out.append(UInt8(ascii: "}"))
        default: value.write(into: &out)
        }
    }

    /// Reads the JSON text of an input (numbers with a fraction or exponent are floats).
    public init(json text: String) throws {
        let value: JSONValue
        do { value = try JSONValue(parsing: text, keepingFractions: true) } catch let error as JSONValue.ParseError {
            throw FormatError(field: "", message: "expected an input as JSON: \(error)")
        }
        try self.init(jsonValue: value)
    }

    /// Reads an input from a JSON value parsed with `keepingFractions` (else `2.0` has
    /// become the integer 2). Every field is checked; the error names the first wrong one.
    public init(jsonValue value: JSONValue) throws {
        guard case .object(let fields) = value else { throw FormatError(field: "", message: "expected an object, got \(Self.preview(value))") }
        var reader = FieldReader(fields: fields)
        let seat = try reader.optionalString("seat")
        let type = try reader.string("type")
        let kind: Kind
        switch type {
        case "roll":
            if let keep = try reader.optionalIntegers("keep") {
                kind = .roll(.keep(positions: keep, rolled: try reader.optionalIntegers("values")))
            } else if let flag = try reader.optionalString("flag") {
                guard let parsed = Roll.Flag(rawValue: flag), parsed != .ok else { throw FormatError(field: "flag", message: "expected \"tilt\" or \"too_short\", got \"\(flag.prefix(40))\"") }
                kind = .roll(.flagged(parsed))
            } else if let values = try reader.optionalIntegers("values") {
                kind = .roll(.values(values))
            } else {
                kind = .roll(.random)
            }
        case "action":
            let name = try reader.string("name")
            guard case .array(let items)? = fields["args"] ?? .array([]) else { throw FormatError(field: "args", message: "expected a list of arguments, got \(Self.preview(fields["args"] ?? .null))") }
            reader.seen.insert("args")
            let arguments = try items.enumerated().map { index, item in try GameInput.Argument(jsonValue: item, field: "args[\(index)]") }
            kind = .action(name: name, arguments: arguments)
        case "tick": kind = .tick(milliseconds: try reader.integer("ms"))
        case "device":
            let event = try reader.string("event")
            if event == "roll" {
                if let flag = try reader.optionalString("flag") {
                    guard let parsed = Roll.Flag(rawValue: flag), parsed != .ok else { throw FormatError(field: "flag", message: "expected \"tilt\" or \"too_short\", got \"\(flag.prefix(40))\"") }
                    kind = .device(.roll(Roll(values: [], flag: parsed)))
                } else {
                    kind = .device(.roll(Roll(values: try reader.integers("values"))))
                }
            } else {
                guard let status = DeviceStatus(rawValue: event) else {
                    throw FormatError(field: "event", message: "expected roll, \(DeviceStatus.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(event.prefix(40))\"")
                }
                kind = .device(.status(status, value: try reader.optionalInteger("value")))
            }
        case "tilt": kind = .tilt(x: try reader.number("x"), y: try reader.number("y"))
        case "sensor":
            guard case .array(let items)? = fields["samples"] else { throw FormatError(field: "samples", message: "expected a list of samples") }
            reader.seen.insert("samples")
            let samples = try items.enumerated().map { index, item -> SensorSample in
                let field = "samples[\(index)]"
                guard case .object(let sampleFields) = item else { throw FormatError(field: field, message: "expected an object with \"sensor\", \"t\" and \"values\"") }
                var sampleReader = FieldReader(fields: sampleFields, prefix: field + ".")
                let name = try sampleReader.string("sensor")
                guard let sensor = SensorKind(rawValue: name) else { throw FormatError(field: field + ".sensor", message: "expected one of \(SensorKind.names), got \"\(name.prefix(40))\"") }
                let sample = SensorSample(sensor: sensor, time: try sampleReader.integer("t"), values: try sampleReader.numbers("values"))
                try sampleReader.finish()
                return sample
            }
            kind = .sensor(samples: samples, fromNow: try reader.optionalBool("from_now") ?? false)
        case "restart": kind = .restart
        case "reload": kind = .reload
        case "bot": kind = .bot
        case "skip": kind = .skip
        default:
            throw FormatError(field: "type", message: "expected roll, action, tick, device, tilt, sensor, restart, reload, bot or skip, got \"\(type.prefix(40))\"")
        }
        try reader.finish()
        self.init(kind, seat: seat)
        if let problem { throw FormatError(field: "", message: problem) }
    }

    static func preview(_ value: JSONValue) -> String {
        let text = value.description
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }

    /// Reads the fields of one object, each once, and refuses fields it does not know.
    struct FieldReader {
        let fields: [String: JSONValue]
        var prefix = ""
        var seen: Set<String> = []

        init(fields: [String: JSONValue], prefix: String = "") {
            self.fields = fields
            self.prefix = prefix
        }

        func fail(_ name: String, _ expected: String) -> FormatError {
            FormatError(field: prefix + name, message: "expected \(expected), got \(fields[name].map(GameInput.preview) ?? "nothing")")
        }

        mutating func value(_ name: String) -> JSONValue? {
            seen.insert(name)
            guard let value = fields[name], value != .null else { return nil }
            return value
        }

        mutating func optionalString(_ name: String) throws -> String? {
            guard let value = value(name) else { return nil }
            guard case .string(let text) = value else { throw fail(name, "a string") }
            return text
        }

        mutating func string(_ name: String) throws -> String {
            guard let text = try optionalString(name) else { throw fail(name, "a string") }
            return text
        }

        mutating func optionalBool(_ name: String) throws -> Bool? {
            guard let value = value(name) else { return nil }
            guard case .bool(let flag) = value else { throw fail(name, "true or false") }
            return flag
        }

        mutating func optionalInteger(_ name: String) throws -> Int? {
            guard let value = value(name) else { return nil }
            guard case .integer(let number) = value, let int = Int(exactly: number) else { throw fail(name, "a whole number") }
            return int
        }

        mutating func integer(_ name: String) throws -> Int {
            guard let number = try optionalInteger(name) else { throw fail(name, "a whole number") }
            return number
        }

        mutating func optionalIntegers(_ name: String) throws -> [Int]? {
            guard let value = value(name) else { return nil }
            guard case .array(let items) = value else { throw fail(name, "a list of whole numbers") }
            return try items.map { item in
                guard case .integer(let number) = item, let int = Int(exactly: number) else { throw fail(name, "a list of whole numbers") }
                return int
            }
        }

        mutating func integers(_ name: String) throws -> [Int] {
            guard let values = try optionalIntegers(name) else { throw fail(name, "a list of whole numbers") }
            return values
        }

        mutating func number(_ name: String) throws -> Double {
            guard let value = value(name), let number = Self.double(value) else { throw fail(name, "a number") }
            return number
        }

        mutating func numbers(_ name: String) throws -> [Double] {
            guard case .array(let items)? = value(name) else { throw fail(name, "a list of numbers") }
            return try items.map { item in
                guard let number = Self.double(item) else { throw fail(name, "a list of numbers") }
                return number
            }
        }

        static func double(_ value: JSONValue) -> Double? {
            switch value {
            case .integer(let number): return Double(number)
            case .unsigned(let number): return Double(number)
            case .number(let number): return number
            default: return nil
            }
        }

        func finish() throws {
            if let unknown = fields.keys.sorted().first(where: { !seen.contains($0) }) {
                throw FormatError(field: prefix + unknown, message: "this input has no such field")
            }
        }
    }
}

extension GameInput.Argument {
    /// The argument in JSON: a float is `.number`, an integer `.integer`.
    public var jsonValue: JSONValue {
        switch self {
        case .integer(let value): return .integer(value)
        case .float(let value): return .number(value)
        case .string(let value): return .string(value)
        case .boolean(let value): return .bool(value)
        }
    }

    /// An argument from JSON: an integer, a float, a string or a boolean; a list, an
    /// object, null or a number past the integers is refused, naming `field`.
    public init(jsonValue value: JSONValue, field: String = "argument") throws {
        switch value {
        case .integer(let number): self = .integer(number)
        case .number(let number): self = .float(number)
        case .string(let text): self = .string(text)
        case .bool(let flag): self = .boolean(flag)
        case .unsigned:
            throw GameInput.FormatError(field: field, message: "expected a whole number from \(Int64.min) to \(Int64.max), got \(value)")
        default:
            throw GameInput.FormatError(field: field, message: "expected an integer, a number, a string or true/false, got \(GameInput.preview(value))")
        }
        if let problem { throw GameInput.FormatError(field: field, message: "expected \(problem)") }
    }
}
