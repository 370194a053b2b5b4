import Foundation

/// Ctrl-C during a long analysis: asks it to stop and report what it has (a second
/// Ctrl-C ends the process as usual).
enum StopRequest {
    nonisolated(unsafe) static var requested = false

    static func install() {
        requested = false
        signal(SIGINT) { _ in
            if StopRequest.requested { signal(SIGINT, SIG_DFL); raise(SIGINT) }
            StopRequest.requested = true
        }
    }

    static func uninstall() { signal(SIGINT, SIG_DFL) }
}
