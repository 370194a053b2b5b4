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
                try apply(LEDCommand(.set, mask: try Self.mask(call, 1), color: try Self.color(call, 2)))
            }),
            ("off", { [unowned self] call in
                try apply(LEDCommand(.off, mask: call.isNil(1) ? .all : try Self.mask(call, 1)))
            }),
            ("blink", { [unowned self] call in
                let options = try call.optionalTable(3)
                let on = try option(options, "on", default: 100, call: call)
                let cycle = try option(options, "cycle", default: 200, call: call)
                let count = try option(options, "count", default: 1, call: call)
                let priority = try option(options, "priority", default: 0, call: call)
                guard count >= 1 else { throw LuaCall.Failure.argument(3, "count must be >= 1, got \(count)") }
                return try apply(LEDCommand(.blink(on: on, cycle: cycle, count: count), mask: try Self.mask(call, 1),
                                            color: try Self.color(call, 2), priority: priority))
            }),
            ("fade", { [unowned self] call in
                let duration: Int
                if case .table = call.value(3) {
                    duration = try option(try call.optionalTable(3), "ms", default: 500, call: call)
                } else {
                    duration = Int(try call.optionalInteger(3) ?? 500)
                    guard duration >= 0 else { throw LuaCall.Failure.argument(3, "ms must be >= 0, got \(duration)") }
                }
                return try apply(LEDCommand(.fade(duration: duration), mask: try Self.mask(call, 1), color: try Self.color(call, 2)))
            }),
        ]
    }

    func apply(_ command: LEDCommand) throws -> Int {
        host.led.apply(command, at: host.now)
        log(.led(command))
        return 0
    }

    func option(_ table: LuaRef?, _ key: String, default value: Int, call: LuaCall) throws -> Int {
        guard let table else { return value }
        switch lua.get(table, .string(key)) {
        case .nil: return value
        case let v:
            guard let n = v.intValue else { throw LuaCall.Failure.argument(3, "\(key) must be a whole number of ms, got \(v.typeName)") }
            guard n >= 0 else { throw LuaCall.Failure.argument(3, "\(key) must be >= 0, got \(n)") }
            return n
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
            if text.hasPrefix("#"), text.count == 7, let rgb = Int(text.dropFirst(), radix: 16) {
                return LEDColor(red: rgb >> 16, green: (rgb >> 8) & 255, blue: rgb & 255)
            }
            throw LuaCall.Failure.argument(index, "unknown colour '\(text)' (use a name like red, \"#rrggbb\" or {r, g, b})")
        case .table(let t):
            let parts = call.state.array(t).compactMap(\.intValue)
            guard parts.count == 3, parts.allSatisfy({ (0...255).contains($0) }) else {
                throw LuaCall.Failure.argument(index, "colour must be {r, g, b} with each 0..255")
            }
            return LEDColor(red: parts[0], green: parts[1], blue: parts[2])
        default:
            throw LuaCall.Failure.argument(index, "colour expected, got \(call.typeName(index))")
        }
    }
}
