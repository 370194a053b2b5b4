import Foundation
import ServiceLifecycle

/// What `serve` does on SIGTERM or SIGINT before the HTTP server stops: it refuses new
/// connections, lets the store write what the rooms handed it (an input is acknowledged
/// only once stored, so what was acknowledged is on disk already; this stores the inputs
/// under way too), closes every client's connection with 1001 "server restarting", and
/// after `grace` closes the sockets of clients that did not answer.
///
/// A service of its own, after the application in the service group: the group stops
/// services in reverse order, so this runs to its end before the HTTP server begins its
/// own graceful shutdown. That one waits for every connection to close, and Hummingbird's
/// WebSocket handler would close each with 1000 and no reason, waiting up to its close
/// timeout for an answer: a client that never answered kept the process alive.
struct GoingAway: Service {
    static let closeCode: UInt16 = 1001
    static let reason = "server restarting"

    let connections: OpenConnections
    let commits: GroupCommit?
    /// From the signal until the last sockets are closed.
    var grace: Duration = .seconds(2)

    func run() async throws {
        // Returns when the group begins its graceful shutdown; throws when it is cancelled
        // (a task that served in-process ended): nothing to tell then.
        do { try await gracefulShutdown() } catch { return }
        let start = ContinuousClock.now
        let deadline = start + grace
        connections.stopAccepting()
        // Not before the store has written what it was handed (half the grace at most).
        // A poll, not a wait on the ticket: a wait on a stuck store could not be given up.
        if let commits {
            let written = commits.lastTicket
            while !commits.isSettled(written), ContinuousClock.now < start + grace / 2, !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        connections.goAway(code: Self.closeCode, reason: Self.reason)
        while connections.count > 0, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
        }
        connections.cutOffAll()
    }
}
