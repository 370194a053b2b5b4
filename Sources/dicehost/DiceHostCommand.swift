import ArgumentParser
import DiceHost
import Foundation

/// The `dicehost` command: play, test, simulate and check dice-game rule scripts.
@main
struct DiceHostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dicehost",
        abstract: "Play, test, simulate and check dice-game rules written in Lua 5.4.",
        version: "0.1.0",
        subcommands: [Play.self, Test.self, Sim.self, Check.self, Replay.self, Serve.self]
    )

    /// As ArgumentParser's own `main()`, except that a usage error exits 2 (the
    /// contract in the README), where ArgumentParser exits 64 (EX_USAGE).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                printError(fullMessage(for: error))
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}

/// Exit statuses of the command-line contract.
enum ExitStatus {
    static let failure = ExitCode(1)
    static let usage = ExitCode(2)
    static let scriptDoesNotLoad = ExitCode(3)
}

/// Writes a line to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
