/// The way to one connected client: the text messages to send it, in order. A client
/// whose backlog passes the limit is cut off (its connection closes), never skipped.
final class ClientChannel: @unchecked Sendable {
    let id: UInt64
    private let continuation: AsyncStream<String>.Continuation

    init(id: UInt64, continuation: AsyncStream<String>.Continuation) {
        self.id = id
        self.continuation = continuation
    }

    func send(_ text: String) {
        if case .dropped = continuation.yield(text) { continuation.finish() }
    }

    func finish() { continuation.finish() }
}
