import Lua

/// What the game knows of its die: part of the host state, so it rolls back and undoes
/// with every input.
struct DeviceState {
    /// A game without a die counts as connected (rolls typed at the REPL always count).
    var connected = true
    /// Roll updates: on from the moment a turn begins until a roll is taken (again after
    /// a roll the die flagged, or when the rules call `device.await_roll()`).
    var awaitingRoll = false
    var battery: Int?
    var subscriptions: [SensorSubscription] = []
    var nextSubscriptionID = 1

    /// A restart starts a new game, not a new connection.
    mutating func keepConnection(of old: DeviceState) {
        connected = old.connected
        battery = old.battery
    }
}

/// A connection change or reading a die reports, as the rules hear it in
/// `on_device(g, event, value)`.
public enum DeviceStatus: String, Sendable, CaseIterable {
    case connected, disconnected
    case connectionFailed = "connection_failed"
    case authorisationFailed = "authorisation_failed"
    /// The battery level (percent) is the value.
    case battery
}

extension Game {
    /// Whether a roll from the die counts now: the game waits for a roll (a turn began
    /// and no roll has been taken since), it is not over, and the die is connected.
    /// `DieLink` turns the die's roll updates on and off by this.
    public var awaitsRoll: Bool { host.device.awaitingRoll && host.device.connected && !isOver }
    /// Whether the die is connected, as far as the game heard.
    public var dieConnected: Bool { host.device.connected }
    /// The last battery level the die reported.
    public var dieBattery: Int? { host.device.battery }

    /// A roll the die reported. Counted (as `roll`) only while the game awaits one;
    /// otherwise refused - ignored and reported, the game unchanged.
    public func dieRoll(_ roll: Roll) throws {
        guard !isOver else { throw GameError.refused("ignored: a roll of the die (\(roll)) after the game ended") }
        guard host.device.connected else { throw GameError.refused("ignored: a roll (\(roll)) from a die the game sees as disconnected") }
        guard host.device.awaitingRoll else {
            throw GameError.refused("ignored: a roll out of turn (\(roll)): the game is not waiting for a roll (roll updates are off until a turn begins)")
        }
        try self.roll(values: roll.ok ? roll.values : nil, flag: roll.flag)
    }

    /// A connection change or battery reading from the die: one input, in which the rules'
    /// `on_device(g, event, value)` runs (race pauses its turn on `disconnected`).
    public func deviceStatus(_ status: DeviceStatus, value: Int? = nil) throws {
        if status == .battery {
            guard let value, (0...100).contains(value) else { throw GameError.refused("a battery level is a percentage from 0 to 100, got \(value.map(String.init) ?? "none")") }
        }
        try transaction(allowWhenOver: true) {
            switch status {
            case .connected: host.device.connected = true
            case .disconnected: host.device.connected = false
            case .battery: host.device.battery = value
            case .connectionFailed, .authorisationFailed: break
            }
            let data = status.rawValue + (value.map { " \($0)" } ?? "")
            try reserveEvent(.custom(name: "device", data: data), for: "device")
            log(.custom(name: "device", data: data))
            let hook = lua.get(rulesTable, "on_device")
            guard !isOver else { return }
            switch hook {
            case .nil: return
            case .function: try call(hook, [.table(g), .string(status.rawValue), value.map { .integer(Int64($0)) } ?? .nil])
            default: throw GameError.invalidRules("on_device must be a function, got \(hook.typeName)", location: sourcePath)
            }
        }
    }

    /// `device.*` for the rules.
    func deviceFunctions() -> [(String, LuaFunctionBody)] {
        [
            ("await_roll", { [unowned self] _ in
                host.device.awaitingRoll = true
                return 0
            }),
            ("connected", { [unowned self] call in call.push(.boolean(host.device.connected)) }),
            ("battery", { [unowned self] call in call.push(host.device.battery.map { .integer(Int64($0)) } ?? .nil) }),
        ]
    }

    /// Installs `device` and `sensor` (called once, with the other libraries).
    func installDeviceLibraries() throws {
        let hostTable = lua.makeTable(fields: (deviceFunctions() + sensorFunctions()).map { ($0.0, lua.function($0.1)) })
        let chunk = try lua.loadHostChunk(Self.deviceLibrarySource, chunkName: "dicehost-device")
        let exports = try lua.call(.function(chunk), [.table(hostTable)], budget: .some(nil))
        guard exports.count == 2 else { throw GameError.refused("the device library returned \(exports.count) values") }
        lua.set(lua.globals, "sensor", exports[0])
        lua.set(lua.globals, "device", exports[1])
    }

    /// The Lua shape of `sensor` and `device`: subscriptions are handles with :cancel(),
    /// as timers are; argument errors name the function the script called.
    /// The Lua source: `dicehost-device.lua` beside this file, compiled into the binary.
    static var deviceLibrarySource: String { String(decoding: PackageResources.dicehost_device_lua, as: UTF8.self) }
}
