/// Something a smart die reports to the host. A `SmartDie` implementation turns its
/// Bluetooth notifications into these; `DieLink` turns them into game inputs.
public enum DieEvent: Equatable, Sendable {
    /// The connection is up (after `connect`, or again after a drop).
    case connected
    /// `connect` did not succeed (out of range, refused, timed out).
    case connectionFailed(String)
    /// The die connected but would not authorise this host (a DICE+ developer key).
    case authorisationFailed(String)
    /// The connection dropped (or `disconnect` was called).
    case disconnected(String)
    /// The die's roll state changed (handling → rolling → rolled or crooked).
    case rollState(RollState)
    /// A roll ended: the face values and the die's flag (`ok`, `tilt`, `too_short`).
    case roll(Roll)
    /// Battery level in percent, and whether it is charging.
    case battery(level: Int, charging: Bool)
    /// Signal strength (RSSI, dBm).
    case signal(rssi: Int)
    /// One sensor reading (only for sensors subscribed to with `DieCommand.subscribe`).
    case sensor(SensorSample)
}
