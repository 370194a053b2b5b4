import Lua

/// A rule script's `sensor.every(kind, rate, fn)`.
struct SensorSubscription {
    var id: Int
    var sensor: SensorKind
    /// Deliveries per second of game time, at most.
    var rate: Int
    var callback: LuaRef
    /// The game time of the last sample delivered.
    var lastDelivered: Int?

    /// Whether a sample at `time` is due: at least 1000/rate ms of game time after the
    /// last one delivered (integer arithmetic: `(time - last) * rate >= 1000`).
    func isDue(at time: Int) -> Bool {
        guard let lastDelivered else { return true }
        let elapsed = time - lastDelivered  // both within 0...HostLimits.maximumTime
        return elapsed >= 1000 || elapsed * rate >= 1000  // rate <= 1000: no overflow below 1000 ms
    }
}

extension Game {
    /// The most sensor subscriptions a game may hold at once.
    public static let maxSensorSubscriptions = 16
    /// The highest subscription rate (Hz).
    public static let maxSensorRate = 1000
    /// Host work one sample delivery is charged, in instruction-equivalents.
    static let sensorDeliveryCost = 200

    /// The sensors the rules subscribe to now, each at the highest rate asked for: what
    /// `DieLink` asks the die to stream.
    public var sensorRates: [SensorKind: Int] {
        host.device.subscriptions.reduce(into: [:]) { rates, s in rates[s.sensor] = max(rates[s.sensor] ?? 0, s.rate) }
    }

    /// A batch of sensor samples: one input under one budget. Samples go in time order;
    /// the clock moves to each sample's time (firing timers on the way; a sample from
    /// before now is delivered now), and each subscription gets the samples of its
    /// sensor that are due at its rate on the game clock - a 60 Hz subscription sees at
    /// most one sample per 16.7 ms of game time however fast the die streams.
    public func sensorSamples(_ samples: [SensorSample]) throws {
        for sample in samples {
            guard sample.values.count == sample.sensor.valueCount else {
                throw GameError.refused("a \(sample.sensor.rawValue) sample has \(sample.sensor.valueCount) value\(sample.sensor.valueCount == 1 ? "" : "s"), got \(sample.values.count)")
            }
            guard sample.values.allSatisfy(\.isFinite) else { throw GameError.refused("sensor values must be finite numbers") }
            guard (0...HostLimits.maximumTime).contains(sample.time) else {
                throw GameError.refused("a sample's time must be from 0 to \(HostLimits.maximumTime) ms, got \(sample.time)")
            }
        }
        try transaction {
            for sample in samples.sorted(by: { $0.time < $1.time }) where !isOver {
                if sample.time > host.now { try advance(by: sample.time - host.now) }
                try deliver(sample)
                try drainPendingTurns()
            }
        }
    }

    func deliver(_ sample: SensorSample) throws {
        // Subscriptions made or cancelled by a callback take effect from the next sample.
        for subscription in host.device.subscriptions where subscription.sensor == sample.sensor {
            guard let index = host.device.subscriptions.firstIndex(where: { $0.id == subscription.id }),
                  host.device.subscriptions[index].isDue(at: host.now) else { continue }
            host.device.subscriptions[index].lastDelivered = host.now
            try lua.charge(Self.sensorDeliveryCost)
            try call(.function(subscription.callback), [.table(g)] + sample.values.map { .number($0) })
            if isOver { return }
        }
    }

    func sensorFunctions() -> [(String, LuaFunctionBody)] {
        [
            ("subscribe", { [unowned self] call in
                let name = try call.string(1)
                guard let sensor = SensorKind(rawValue: name) else {
                    throw LuaCall.Failure.message("bad argument #1 to 'every' (sensor must be one of \(SensorKind.names), got '\(name)')")
                }
                let rawRate: Int64
                do { rawRate = try call.integer(2) } catch {
                    throw LuaCall.Failure.message("bad argument #2 to 'every' (rate must be a whole number of Hz, got \(call.typeName(2)))")
                }
                guard (1...Int64(Self.maxSensorRate)).contains(rawRate) else {
                    throw LuaCall.Failure.message("bad argument #2 to 'every' (rate must be 1..\(Self.maxSensorRate) Hz, got \(rawRate))")
                }
                guard case .function = call.value(3) else {
                    throw LuaCall.Failure.message("bad argument #3 to 'every' (function expected, got \(call.typeName(3)))")
                }
                let callback = try call.function(3)
                guard host.device.subscriptions.count < Self.maxSensorSubscriptions else {
                    throw LuaCall.Failure.message("sensor.every: a game may hold at most \(Self.maxSensorSubscriptions) sensor subscriptions")
                }
                let id = host.device.nextSubscriptionID
                host.device.nextSubscriptionID += 1
                host.device.subscriptions.append(SensorSubscription(id: id, sensor: sensor, rate: Int(rawRate), callback: callback))
                return call.push(Int64(id))
            }),
            ("unsubscribe", { [unowned self] call in
                let id = try call.integer(1)
                host.device.subscriptions.removeAll { Int64($0.id) == id }
                return 0
            }),
        ]
    }
}
