/// A smart die as the host sees it: the protocol an app implements for its own
/// Bluetooth die (DICE+, Pixels, …) so that it plugs into a game without touching the
/// rules. `SimulatedDie` implements it for headless play and tests.
///
/// Threading: a die is used by one `DieLink`, on the thread or actor that owns the game
/// (see `GameHost`). Call `report` from there too: hop to it from a Bluetooth callback
/// queue before reporting.
public protocol SmartDie: AnyObject {
    /// Stable identity (a Bluetooth peripheral UUID, a serial number).
    var identifier: String { get }
    /// What to show a player: "DICE+ 0042", "Pixel d6".
    var name: String { get }
    /// Where the die reports; set by `DieLink` (and `DieManager` while connecting).
    var report: ((DieEvent) -> Void)? { get set }
    /// Starts connecting; ends in `.connected`, `.connectionFailed` or `.authorisationFailed`.
    func connect()
    /// Drops the connection; ends in `.disconnected`.
    func disconnect()
    /// Carries out a command (roll updates, LEDs, sensor streams).
    func send(_ command: DieCommand)
}

/// What finds dice nearby: the app's Bluetooth scan (or `SimulatedDie.Scanner`).
public protocol DieScanner: AnyObject {
    /// Starts looking; calls `found` for each die discovered.
    func startScan(found: @escaping (SmartDie) -> Void)
    func stopScan()
}
