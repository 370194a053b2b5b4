/// Finds dice and keeps track of their connections: scan, discover, connect, and the
/// failures on the way (no connection, failed authorisation, a drop). An app shows its
/// `states`; once a die is connected, a `DieLink` plays a game with it.
///
///     let manager = DieManager(scanner: SimulatedDie.Scanner(dice: [die]))
///     manager.onChange = { print($0.name, $0.state) }
///     manager.scan()
///     manager.connect(die.identifier)
///
/// Threading: one thread or actor, as the game's (see `GameHost`).
public final class DieManager {
    /// Where a die stands: found, on its way, connected, or why not.
    public enum ConnectionState: Equatable, Sendable {
        case discovered
        case connecting
        case connected
        case connectionFailed(String)
        case authorisationFailed(String)
        case disconnected(String)
    }

    /// A die's state changed.
    public struct Change: Equatable, Sendable {
        public var identifier: String
        public var name: String
        public var state: ConnectionState
    }

    public let scanner: DieScanner
    /// The dice discovered, in the order found.
    public private(set) var dice: [SmartDie] = []
    public private(set) var states: [String: ConnectionState] = [:]
    public private(set) var isScanning = false
    public var onChange: ((Change) -> Void)?

    public init(scanner: DieScanner) {
        self.scanner = scanner
    }

    public func scan() {
        guard !isScanning else { return }
        isScanning = true
        scanner.startScan { [weak self] die in self?.discovered(die) }
    }

    public func stopScan() {
        guard isScanning else { return }
        isScanning = false
        scanner.stopScan()
    }

    public func die(_ identifier: String) -> SmartDie? { dice.first { $0.identifier == identifier } }

    /// Connects a discovered die; the outcome arrives as a `Change`. False if no die
    /// with that identifier was discovered.
    @discardableResult
    public func connect(_ identifier: String) -> Bool {
        guard let die = die(identifier) else { return false }
        set(die, .connecting)
        die.connect()
        return true
    }

    public func disconnect(_ identifier: String) {
        die(identifier)?.disconnect()
    }

    func discovered(_ die: SmartDie) {
        guard self.die(die.identifier) == nil else { return }
        dice.append(die)
        let previous = die.report
        die.report = { [weak self, weak die] event in
            previous?(event)
            if let self, let die { self.heard(event, from: die) }
        }
        set(die, .discovered)
    }

    func heard(_ event: DieEvent, from die: SmartDie) {
        switch event {
        case .connected: set(die, .connected)
        case .connectionFailed(let reason): set(die, .connectionFailed(reason))
        case .authorisationFailed(let reason): set(die, .authorisationFailed(reason))
        case .disconnected(let reason): set(die, .disconnected(reason))
        default: break
        }
    }

    func set(_ die: SmartDie, _ state: ConnectionState) {
        states[die.identifier] = state
        onChange?(Change(identifier: die.identifier, name: die.name, state: state))
    }
}
