import Lua

/// `led.*`: the DICE+ LED model. Masks are 0…63 (face n = bit n-1); colours are names,
/// "#rrggbb" or {r, g, b} with each 0…255.
extension Game {
    func ledFunctions() -> [(String, LuaFunctionBody)] {
        [
            ("face", { call in
                let n = try call.integer(1)
                guard (1...6).contains(n) else { throw LuaCall.Failure.argument(1, "face must be 1..6, got \(n)") }
                return call.push(Int64(1) << (n - 1))
            }),
            ("faces", { call in
                var mask: Int64 = 0
                for i in 1...max(call.count, 1) {
                    let n = try call.integer(i)
                    guard (1...6).contains(n) else { throw LuaCall.Failure.argument(i, "face must be 1..6, got \(n)") }
                    mask |= 1 << (n - 1)
                }
                return call.push(mask)
            }),
            ("set", { [unowned self] call in
                try apply(LEDCommand(.set, mask: try Self.mask(call, 1), color: try Self.color(call, 2)), for: "led.set")
            }),
            ("off", { [unowned self] call in
                try apply(LEDCommand(.off, mask: call.isNil(1) ? .all : try Self.mask(call, 1)), for: "led.off")
            }),
            ("blink", { [unowned self] call in
                let options = try call.optionalTable(3)
                let on = try option(options, "on", default: 100, in: HostLimits.ledMilliseconds, unit: " ms")
                let cycle = try option(options, "cycle", default: 200, in: HostLimits.ledMilliseconds, unit: " ms")
                let count = try option(options, "count", default: 1, in: HostLimits.blinkCount)
                let priority = try option(options, "priority", default: 0, in: HostLimits.ledPriority)
                return try apply(LEDCommand(.blink(on: on, cycle: cycle, count: count), mask: try Self.mask(call, 1),
                                            color: try Self.color(call, 2), priority: priority), for: "led.blink")
            }),
            ("fade", { [unowned self] call in
                let duration: Int
                if case .table = call.value(3) {
                    duration = try option(try call.optionalTable(3), "ms", default: 500, in: HostLimits.ledMilliseconds, unit: " ms")
                } else {
                    duration = try HostLimits.check(try call.optionalInteger(3) ?? 500, in: HostLimits.ledMilliseconds, argument: 3, name: "ms", unit: " ms")
                }
                return try apply(LEDCommand(.fade(duration: duration), mask: try Self.mask(call, 1), color: try Self.color(call, 2)), for: "led.fade")
            }),
        ]
    }

    func apply(_ command: LEDCommand, for function: String) throws -> Int {
        try reserveEvent(.led(command), for: function)
        host.led.apply(command, at: host.now)
        log(.led(command))
        return 0
    }

    /// A whole-number field of the options table (argument 3), checked against `range`
    /// before the host does any arithmetic with it.
    func option(_ table: LuaRef?, _ key: String, default value: Int, in range: ClosedRange<Int>, unit: String = "") throws -> Int {
        guard let table else { return value }
        switch lua.get(table, .string(key)) {
        case .nil: return value
        case .integer(let n):
            return try HostLimits.check(n, in: range, argument: 3, name: key, unit: unit)
        case .number(let d):
            guard let n = Int64(exactly: d) else {
                throw LuaCall.Failure.argument(3, "\(key) must be a whole number\(unit.isEmpty ? "" : " of" + unit), got \(LuaValue.format(d))")
            }
            return try HostLimits.check(n, in: range, argument: 3, name: key, unit: unit)
        case let v:
            throw LuaCall.Failure.argument(3, "\(key) must be a whole number\(unit.isEmpty ? "" : " of" + unit), got \(v.typeName)")
        }
    }

    static func mask(_ call: LuaCall, _ index: Int) throws -> LEDMask {
        let mask = try call.integer(index)
        guard (0...63).contains(mask) else { throw LuaCall.Failure.argument(index, "mask must be 0..63, got \(mask)") }
        return LEDMask(rawValue: Int(mask))
    }

    static func color(_ call: LuaCall, _ index: Int) throws -> LEDColor {
        switch call.value(index) {
        case .string(let text):
            if let named = LEDColor.named[text.lowercased()] { return named }
            // Only hex digits: Int(_:radix:) would also take a sign ("#-00001" is -1).
            let hex = text.utf8.dropFirst()
            if text.utf8.first == UInt8(ascii: "#"), hex.count == 6, hex.allSatisfy({ $0 < 128 && Character(Unicode.Scalar($0)).isHexDigit }),
               let rgb = Int(String(decoding: hex, as: UTF8.self), radix: 16) {
                return LEDColor(red: rgb >> 16, green: (rgb >> 8) & 255, blue: rgb & 255)
            }
            throw LuaCall.Failure.argument(index, "unknown colour '\(DiceNotation.shortened(text))' (use a name like red, \"#rrggbb\" or {r, g, b})")
        case .table(let t):
            // The length first: a huge table is refused without reading it.
            let state = call.state
            let parts = state.length(t) == 3 ? state.array(t).compactMap(\.intValue) : []
            guard parts.count == 3, parts.allSatisfy({ (0...255).contains($0) }) else {
                throw LuaCall.Failure.argument(index, "colour must be {r, g, b} with each 0..255")
            }
            return LEDColor(red: parts[0], green: parts[1], blue: parts[2])
        default:
            throw LuaCall.Failure.argument(index, "colour expected, got \(call.typeName(index))")
        }
    }
}
