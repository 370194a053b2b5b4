import Foundation
import NIOCore
import NIOWebSocket

/// The way to one connected client: the text messages to send it, in order. Each is
/// handed to the connection's NIO channel at once, from whatever thread sends it (a room
/// thread): one hop to the connection's event loop (a broadcast's messages share one hop
/// per event loop, `OutboundBatch`), no task woken in between (before,
/// a frame went through a stream, a writer task and NIO's async writer, and waking them
/// was a large part of a served input's CPU). A client whose backlog (messages handed to
/// NIO and not yet written to its socket) passes the limit is cut off (its connection
/// closes at once, it comes back with its token), never skipped.
///
/// `@unchecked Sendable`: a room (on its thread) and the connection's tasks share it;
/// the NIO channel and the continuation are Sendable, and `pending`, `open` and
/// `closeRequested` are read and written only with `lock` held.
final class ClientChannel: @unchecked Sendable {
    let id: UInt64
    private let connection: (any Channel)?
    private let backlog: Int
    /// Finished when no more is sent: the connection's writer then sends the close frame.
    private let ended: AsyncStream<Void>.Continuation
    private let lock = NSLock()
    private var pending = 0
    private var open = true
    private var closeRequested: (code: UInt16, reason: String)?

    /// `connection` nil: messages go nowhere (a channel for tests of what is not sent).
    init(id: UInt64, connection: (any Channel)?, backlog: Int, ended: AsyncStream<Void>.Continuation) {
        self.id = id
        self.connection = connection
        self.backlog = max(1, backlog)
        self.ended = ended
    }

    /// Sends one message: one hop to the connection's event loop. The messages of a
    /// broadcast go through `OutboundBatch` instead (one hop per event loop for all of them).
    func send(_ text: String) {
        guard let connection = admit() else { return }
        let frame = Self.frame(text)
        connection.eventLoop.execute {
            self.write(frame, to: connection)
            connection.flush()
        }
    }

    static func frame(_ text: String) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))
    }

    /// A text frame of UTF-8 already written (never checked again: the writers make UTF-8).
    static func frame(bytes: [UInt8]) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: bytes))
    }

    /// Counts one message against the backlog: the connection to write it to, or nil when
    /// nothing is sent (closed, cut off just now for its backlog, or a channel for tests).
    func admit() -> (any Channel)? {
        lock.lock()
        guard open else {
            lock.unlock()
            return nil
        }
        guard pending < backlog else {
            // The client stopped reading: the connection is closed under it rather than told.
            open = false
            lock.unlock()
            ended.finish()
            connection?.close(promise: nil)
            return nil
        }
        pending += 1
        lock.unlock()
        return connection
    }

    /// Writes an admitted message; on the connection's event loop only (the promise and its
    /// callback made there too: made from a room thread, each was a hop of its own).
    func write(_ frame: WebSocketFrame, to connection: any Channel) {
        let promise = connection.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { _ in self.written() }
        connection.write(frame, promise: promise)
    }

    private func written() {
        lock.lock()
        pending -= 1
        lock.unlock()
    }

    /// Sends what is queued, then closes the connection with `code` (the client was told why).
    func close(code: UInt16, reason: String) {
        lock.lock()
        if closeRequested == nil { closeRequested = (code, reason) }
        open = false
        lock.unlock()
        ended.finish()
    }

    /// Why the server closed the connection, if it did.
    var closeReason: (code: UInt16, reason: String)? {
        lock.lock()
        defer { lock.unlock() }
        return closeRequested
    }

    /// Closes the socket at once, without a close frame or waiting for one: a client that
    /// did not answer the server's close in time (a server stopping must not wait for it).
    func cutOff() {
        finish()
        connection?.close(promise: nil)
    }

    /// Nothing more is sent (the reader ended).
    func finish() {
        lock.lock()
        open = false
        lock.unlock()
        ended.finish()
    }
}
