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
        subcommands: [Play.self, Test.self, Sim.self, Check.self]
    )
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
