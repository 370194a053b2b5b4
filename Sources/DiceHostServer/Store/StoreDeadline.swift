import Foundation

/// A wait on a store that cannot last for ever: a database that refuses connections (gone
/// away, restarting) makes a connection pool wait without end, and every input of every
/// room with it. Past `seconds` the caller gets a `StoreError` naming `what`; the operation
/// is left to finish or fail on its own (an input it writes late was never acknowledged:
/// its player sends it again, answered `duplicate`).
enum StoreDeadline {
    static func run<T: Sendable>(seconds: Double, _ what: String, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = Once<T>()
        return try await withCheckedThrowingContinuation { continuation in
            once.arm(continuation)
            Task {
                do { once.resume(with: .success(try await operation())) } catch { once.resume(with: .failure(error)) }
            }
            Task {
                try? await Task.sleep(for: .seconds(seconds))
                once.resume(with: .failure(StoreError("\(what) did not answer within \(Int(seconds)) s")))
            }
        }
    }

    /// Resumes its continuation once, with whichever result comes first. `@unchecked
    /// Sendable`: `continuation` is read and written only with `lock` held.
    private final class Once<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<T, Error>?
        func arm(_ continuation: CheckedContinuation<T, Error>) { lock.withLock { self.continuation = continuation } }
        func resume(with result: Result<T, Error>) {
            let waiting = lock.withLock { () -> CheckedContinuation<T, Error>? in
                defer { continuation = nil }
                return continuation
            }
            waiting?.resume(with: result)
        }
    }
}
