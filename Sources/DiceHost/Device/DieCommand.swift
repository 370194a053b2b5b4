/// Something the host asks a smart die to do. A `SmartDie` implementation turns these
/// into its Bluetooth writes.
public enum DieCommand: Equatable, Sendable {
    /// Start or stop reporting rolls (on while the game waits for a roll).
    case rollUpdates(Bool)
    /// Show an LED animation: the scripting API's masks, colours, periods, counts and
    /// priorities (`led.blink`, `led.fade`, `led.set`, `led.off`).
    case led(LEDCommand)
    /// Stream a sensor at this rate (Hz), or stop it (`nil`).
    case sensor(SensorKind, rate: Int?)
}
