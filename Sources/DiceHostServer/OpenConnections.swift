import Foundation

/// The server's open WebSocket connections: counted against the connection limit, and
/// told to go away when the server stops (`GoingAway`).
///
/// `@unchecked Sendable`: `channels` and `stopping` are read and written only with `lock`
/// held; a connection registered after `goAway` sees `stopping` under the same lock, so
/// none is missed.
final class OpenConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var channels: [UInt64: ClientChannel] = [:]
    private var stopping = false

    var count: Int { lock.withLock { channels.count } }

    /// Whether the server is stopping (a new connection is refused).
    var isStopping: Bool { lock.withLock { stopping } }

    /// Registers a connection; false when the server is already stopping (the caller
    /// closes it at once).
    func add(_ channel: ClientChannel) -> Bool {
        lock.withLock {
            channels[channel.id] = channel
            return !stopping
        }
    }

    func remove(_ id: UInt64) { lock.withLock { channels[id] = nil } }

    /// From now on connections are refused.
    func stopAccepting() { lock.withLock { stopping = true } }

    /// From now on connections are refused, and every open one is closed with `code`
    /// after what was queued for it.
    func goAway(code: UInt16, reason: String) {
        let open = lock.withLock { () -> [ClientChannel] in
            stopping = true
            return Array(channels.values)
        }
        for channel in open { channel.close(code: code, reason: reason) }
    }

    /// Closes the sockets of the connections still open (their clients did not answer the close).
    func cutOffAll() {
        let open = lock.withLock { Array(channels.values) }
        for channel in open { channel.cutOff() }
    }
}
