/// The Bluetooth link to one Pixels die, as `PixelsDie` needs it: open it, write bytes to
/// the write characteristic, hear the notify characteristic's bytes, close it. An app
/// implements it over CoreBluetooth or BlueZ (see docs/embedding.md);
/// `SimulatedPixel` implements it in software.
///
/// Threading: like every `SmartDie`, on the game's thread or actor: deliver `events`
/// there (hop from the Bluetooth queue first).
public protocol PixelsTransport: AnyObject {
    /// Where the transport reports; set by `PixelsDie`.
    var events: ((PixelsTransportEvent) -> Void)? { get set }
    /// Connects, finds the Pixels service and subscribes to its notify characteristic;
    /// ends in `.opened` or `.failed`.
    func open()
    /// Writes one message to the write characteristic (with response, or without: the
    /// messages are small and the order is what matters).
    func write(_ bytes: [UInt8])
    /// Disconnects; ends in `.closed`.
    func close()
}

/// What a `PixelsTransport` reports.
public enum PixelsTransportEvent: Equatable, Sendable {
    /// Connected and subscribed: messages can flow.
    case opened
    /// `open` did not succeed: why.
    case failed(String)
    /// One notification from the die: one message.
    case notified([UInt8])
    /// The connection dropped, or `close` was called: why.
    case closed(String)
}
