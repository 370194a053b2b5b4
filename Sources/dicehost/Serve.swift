import ArgumentParser
import DiceHost
import DiceHostServer
import Foundation

extension DiceHostCommand {
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the rule scripts of a folder: rooms over WebSocket and a browser table.",
            discussion: """
                Open http://HOST:PORT/ in a browser to create a room and play; the protocol is in \
                docs/protocol.md. The server holds the games: it rolls the dice, enforces turns and runs \
                the timers. Stop it with Ctrl-C.
                """
        )

        @Argument(help: "The folder of rule scripts to offer, e.g. rules.")
        var rulesDirectory: String

        @Option(help: "The port to listen on (0: any free port).")
        var port: Int = 8080

        @Option(help: "The address to listen on; 0.0.0.0 lets other machines join.")
        var host: String = "127.0.0.1"

        @Flag(help: "Reload a rule file in every room that uses it when it is saved.")
        var watch = false

        @Option(name: .customLong("logs"), help: "A folder to write each room's log to (JSON Lines).")
        var logDirectory: String?

        @Option(name: .customLong("store"), help: ArgumentHelp(
            "The SQLite file that keeps the rooms across restarts, a PostgreSQL address postgres://USER:PASSWORD@HOST:PORT/DATABASE that several processes share, or none (default: rooms.sqlite in the --logs folder, else dicehost-rooms.sqlite here).",
            discussion: "Every input is stored before it is acknowledged. With a file (one process a file) the server reopens the unfinished rooms on start; with PostgreSQL a process owns a room through a lease and takes over a room whose owner's lease lapsed when a player asks for it (docs/scaling.md)."))
        var store: String?

        @Option(name: .customLong("lease"), help: "With a PostgreSQL store: seconds a room's lease runs unrenewed, i.e. how long the rooms of a process that died wait before another process takes them over (0.5 to 3600).")
        var leaseSeconds: Double = 5

        /// The store file (nil: `--store none`, rooms in memory only).
        var storePath: String? {
            switch store {
            case "none"?: return nil
            case let path?: return path
            case nil: return logDirectory.map { ($0 as NSString).appendingPathComponent("rooms.sqlite") } ?? "dicehost-rooms.sqlite"
            }
        }

        @Option(name: .customLong("allow-origin"), help: ArgumentHelp(
            "A web origin (https://table.example) whose pages may open this server's WebSocket; repeatable; * allows any.",
            discussion: "A browser's WebSocket from a page of another origin than this server is refused (403) unless allowed here."))
        var allowOrigin: [String] = []

        func validate() throws {
            for origin in allowOrigin where origin != "*" {
                guard let url = URL(string: origin), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil,
                      url.path.isEmpty, url.query == nil else {
                    throw ValidationError("--allow-origin takes an origin such as https://table.example (scheme, host and port only) or *, got \(origin)")
                }
            }
            if let store, store.isEmpty { throw ValidationError("--store takes a file name, a postgres:// address, or none") }
            guard leaseSeconds.isFinite, (0.5...3600).contains(leaseSeconds) else {
                throw ValidationError("--lease must be from 0.5 to 3600 seconds, got \(leaseSeconds)")
            }
            guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535, got \(port)") }
        }

        func run() throws {
            var limits = ServerLimits()
            limits.watchRules = watch
            if let logDirectory {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: logDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                    printError("dicehost: --logs \(logDirectory) is not a folder")
                    throw ExitStatus.usage
                }
            }
            // Every connection is an open file: 10,000 players need more than the usual 1,024.
            // Below that, fewer are taken, so clients never use up the files the server needs.
            let processors = ProcessInfo.processInfo.activeProcessorCount
            let needed = OpenFileLimit.needed(for: limits, logs: logDirectory != nil, processors: processors)
            if let files = OpenFileLimit.raise(toward: needed) {
                let fitted = files.fitting(limits, logs: logDirectory != nil, processors: processors)
                if let cap = files.capReport(configured: limits, fitted: fitted) {
                    printError("warning: dicehost serve: \(files.report), \(cap)")
                } else if files.now > files.before { printError("dicehost serve: \(files.report)") }
                limits = fitted
            } else {
                printError("warning: dicehost serve: cannot read the open-files limit; \(needed) open files are needed")
            }
            let server: DiceHostServer
            do {
                var configuration = DiceHostServer.Configuration(rulesDirectory: rulesDirectory, host: host, port: port,
                                                                 logDirectory: logDirectory, limits: limits)
                configuration.allowedOrigins = allowOrigin
                configuration.store = storePath
                configuration.leaseSeconds = leaseSeconds
                server = try DiceHostServer(configuration: configuration)
            } catch {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            }
            for problem in server.catalog.problems { printError("warning: \(problem.file) is not offered: \(problem.error)") }
            guard !server.catalog.entries.isEmpty else {
                printError("dicehost: \(rulesDirectory) has no rule script that loads")
                throw ExitStatus.scriptDoesNotLoad
            }
            let done = DispatchSemaphore(value: 0)
            let failure = FailureBox()
            let names = server.catalog.entries.map(\.file).joined(separator: ", ")
            let host = self.host, watching = watch
            Task {
                do {
                    try await server.run(signals: true) { port in
                        print("dicehost serve: http://\(host):\(port)/ (rules: \(names))\(watching ? ", watching for saves" : "")")
                        fflush(stdout)
                    }
                } catch {
                    failure.error = error
                }
                done.signal()
            }
            done.wait()
            if let error = failure.error {
                printError("dicehost: \(error)")
                throw ExitStatus.failure
            }
        }
    }
}

private final class FailureBox: @unchecked Sendable { var error: Error? }
