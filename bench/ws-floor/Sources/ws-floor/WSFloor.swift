import ArgumentParser
import Dispatch
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// `ws-floor --mode hummingbird|nio|hummingbird-eventloop [--host H] [--port P] [--frame-bytes N]`
@main
struct WSFloor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ws-floor",
        abstract: "Rooms of four over WebSocket that answer each text message with one frame to each of the room's connections.",
        discussion: "The floor under a DiceHost served input (issue 32): no rules, no store, no views. Connect to /ws?room=NAME; bench/ws-floor/run.sh drives it.")

    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case hummingbird, nio
        case hummingbirdEventLoop = "hummingbird-eventloop"
    }

    @Option(help: "hummingbird (DiceHost's shape: reader task on the global executor), nio (a ChannelHandler, no Swift concurrency), hummingbird-eventloop (the reader isolated to the connection's event loop).")
    var mode: Mode

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed).")
    var port = 0

    @Option(help: "Bytes of each answering frame (default: the median of DiceHost's Snap `events` frames, bench/ws-floor/README.md).")
    var frameBytes = 2_268

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0...65535, got \(port)") }
        guard (64...(1 << 20)).contains(frameBytes) else { throw ValidationError("--frame-bytes must be 64...1048576, got \(frameBytes)") }
    }

    /// A synchronous main that waits for the server's task, as `dicehost serve` does: under
    /// valgrind (instructions.sh) an async main crashes callgrind 3.19 at start (in
    /// libdispatch's signal thread), and the floor should start as DiceHost does anyway.
    func run() throws {
        let broadcast = Broadcast(bytes: frameBytes)
        let host = self.host, port = self.port, mode = self.mode
        let done = DispatchSemaphore(value: 0)
        let failure = NIOLockedValueBox<(any Error)?>(nil)
        Task {
            do {
                switch mode {
                case .hummingbird: try await HummingbirdFloor.run(host: host, port: port, broadcast: broadcast, onEventLoop: false)
                case .hummingbirdEventLoop: try await HummingbirdFloor.run(host: host, port: port, broadcast: broadcast, onEventLoop: true)
                case .nio: try await NIOFloor.run(host: host, port: port, broadcast: broadcast)
                }
            } catch {
                failure.withLockedValue { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = failure.withLockedValue({ $0 }) { throw error }
    }
}

/// The line run.sh waits for, written at once: `print` to a file is block-buffered (and
/// `fflush(stdout)` is a reference to a C global Swift 6 refuses).
enum Listening {
    static func say(host: String, port: Int) {
        var line = "ws-floor listening on http://\(host):\(port)\n"
        line.withUTF8 { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
    }
}
