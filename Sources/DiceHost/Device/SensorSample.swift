/// One reading of a die's sensor at a moment of the game clock (ms).
public struct SensorSample: Equatable, Sendable {
    public var sensor: SensorKind
    /// Game time in ms (for a recording: from its start).
    public var time: Int
    /// `sensor.valueCount` values.
    public var values: [Double]

    public init(sensor: SensorKind, time: Int, values: [Double]) {
        self.sensor = sensor
        self.time = time
        self.values = values
    }

    /// An accelerometer sample for a die tilted by `x` and `y` (in g), `z` making up 1 g.
    public static func tilt(x: Double, y: Double, at time: Int) -> SensorSample {
        SensorSample(sensor: .accelerometer, time: time, values: [x, y, (max(0, 1 - x * x - y * y)).squareRoot()])
    }
}
