import ArgumentParser
import DiceHost
import DiceHostServer
import Foundation
import ServeOptions

/// dicehost-server: what `dicehost serve` runs (dicehost replaces itself with this program,
/// same process, same arguments), so the server stack is built only for serving.
@main
struct ServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dicehost serve",
        abstract: ServeOptions.abstract,
        discussion: ServeOptions.discussion
    )

    @OptionGroup var options: ServeOptions

    /// As ArgumentParser's own `main()`, except that a usage error exits 2, as dicehost's do.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                printError(fullMessage(for: error))
                Foundation.exit(ServerExit.usage.rawValue)
            }
            exit(withError: error)
        }
    }

    func run() throws {
        var limits = ServerLimits()
        limits.watchRules = options.watch
        if let logDirectory = options.logDirectory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: logDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                printError("dicehost: --logs \(logDirectory) is not a folder")
                throw ServerExit.usage
            }
        }
        // Every connection is an open file: 10,000 players need more than the usual 1,024.
        // Below that, fewer are taken, so clients never use up the files the server needs.
        let logs = options.logDirectory != nil
        let processors = ProcessInfo.processInfo.activeProcessorCount
        let needed = OpenFileLimit.needed(for: limits, logs: logs, processors: processors)
        if let files = OpenFileLimit.raise(toward: needed) {
            let fitted = files.fitting(limits, logs: logs, processors: processors)
            if let cap = files.capReport(configured: limits, fitted: fitted) {
                printError("warning: dicehost serve: \(files.report), \(cap)")
            } else if files.now > files.before { printError("dicehost serve: \(files.report)") }
            limits = fitted
        } else {
            printError("warning: dicehost serve: cannot read the open-files limit; \(needed) open files are needed")
        }
        let server: DiceHostServer
        do {
            var configuration = DiceHostServer.Configuration(rulesDirectory: options.rulesDirectory, host: options.host, port: options.port,
                                                             logDirectory: options.logDirectory, limits: limits)
            configuration.allowedOrigins = options.allowOrigin
            configuration.store = options.storePath
            configuration.leaseSeconds = options.leaseSeconds
            server = try DiceHostServer(configuration: configuration)
        } catch {
            printError("dicehost: \(error)")
            throw ServerExit.usage
        }
        for problem in server.catalog.problems { printError("warning: \(problem.file) is not offered: \(problem.error)") }
        guard !server.catalog.entries.isEmpty else {
            printError("dicehost: \(options.rulesDirectory) has no rule script that loads")
            throw ServerExit.scriptDoesNotLoad
        }
        let done = DispatchSemaphore(value: 0)
        let failure = FailureBox()
        let names = server.catalog.entries.map(\.file).joined(separator: ", ")
        let host = options.host, watching = options.watch
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
            throw ServerExit.failure
        }
    }
}

/// The exit statuses of dicehost's command-line contract that serving uses.
enum ServerExit {
    static let failure = ExitCode(1)
    static let usage = ExitCode(2)
    static let scriptDoesNotLoad = ExitCode(3)
}

/// Writes a line to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

private final class FailureBox: @unchecked Sendable { var error: Error? }
