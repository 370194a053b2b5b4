import Foundation

/// The way to one connected client: the text messages to send it, in order. A client
/// whose backlog passes the limit is cut off (its connection closes at once, it comes
/// back with its token), never skipped.
///
/// `@unchecked Sendable`: a room (on its thread) and the connection's tasks share it; the
/// continuation and `abort` are Sendable, and `closeRequested` is read and written only
/// with `lock` held.
final class ClientChannel: @unchecked Sendable {
    let id: UInt64
    private let continuation: AsyncStream<String>.Continuation
    /// Closes the network connection now, without waiting for the client to read.
    private let abort: @Sendable () -> Void
    private let lock = NSLock()
    private var closeRequested: (code: UInt16, reason: String)?

    init(id: UInt64, continuation: AsyncStream<String>.Continuation, abort: @escaping @Sendable () -> Void = {}) {
        self.id = id
        self.continuation = continuation
        self.abort = abort
    }

    func send(_ text: String) {
        if case .dropped = continuation.yield(text) {
            // The client stopped reading: its writer may be stuck on a full socket, so the
            // connection is closed under it rather than told.
            continuation.finish()
            abort()
        }
    }

    /// Sends what is queued, then closes the connection with `code` (the client was told why).
    func close(code: UInt16, reason: String) {
        lock.lock()
        if closeRequested == nil { closeRequested = (code, reason) }
        lock.unlock()
        continuation.finish()
    }

    /// Why the server closed the connection, if it did.
    var closeReason: (code: UInt16, reason: String)? {
        lock.lock()
        defer { lock.unlock() }
        return closeRequested
    }

    func finish() { continuation.finish() }
}
