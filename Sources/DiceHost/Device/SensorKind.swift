/// The sensors a smart die streams (after DICE+): what `sensor.every` subscribes to.
public enum SensorKind: String, CaseIterable, Sendable, Codable {
    /// Acceleration in g along the die's x, y, z axes (flat and still: 0, 0, 1).
    case accelerometer
    /// The magnetic field along x, y, z (µT).
    case magnetometer
    /// Roll, pitch and yaw (degrees).
    case orientation
    /// Which faces are touched: a face mask (0…63).
    case touch
    /// Proximity per face, or one reading (0…1).
    case proximity
    /// Degrees Celsius.
    case temperature

    /// How many values one sample carries (what a sensor hook receives after `g`).
    public var valueCount: Int {
        switch self {
        case .accelerometer, .magnetometer, .orientation: return 3
        case .touch, .proximity, .temperature: return 1
        }
    }

    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
