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
        subcommands: [Play.self, Test.self, Sim.self, Check.self, Odds.self, Solve.self, Fuzz.self, Dice.self, Replay.self, New.self, Serve.self, Report.self]
    )

    /// As ArgumentParser's own `main()`, except that a usage error exits 2 (the
    /// contract in the README), where ArgumentParser exits 64 (EX_USAGE).
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let help = fullHelp(for: arguments) {
            print(help)
            return
        }
        if let unknown = unknownCommand(in: arguments) {
            printError(unknown)
            Foundation.exit(ExitStatus.usage.rawValue)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                printError(fullMessage(for: error))
                if let first = arguments.first, !first.hasPrefix("-"), !commandNames.contains(first),
                   let near = NearestWord.to(first, among: commandNames) {
                    printError("dicehost: no command '\(first)': did you mean '\(near)'?")
                }
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}

extension DiceHostCommand {
    /// `dicehost --help` lists every command with its options (ArgumentParser lists only
    /// the names), and `dicehost sim --help` shows the options of `sim RULES` (which
    /// ArgumentParser keeps under `sim run`). Nil: ArgumentParser's own help applies.
    static func fullHelp(for arguments: [String]) -> String? {
        let asksHelp = ["--help", "-h", "help"]
        if arguments.count == 1, asksHelp.contains(arguments[0]) {
            let usages = leafCommands(of: self).map { "  " + usageString(for: $0).replacingOccurrences(of: "\n", with: "\n  ") }
            return helpMessage() + "\n\nEVERY COMMAND WITH ITS OPTIONS ('dicehost help COMMAND' explains each):\n" + usages.joined(separator: "\n")
        }
        if arguments.count == 2, arguments[0] == "sim", asksHelp.contains(arguments[1]) || arguments[1] == "--help" {
            return helpMessage(for: Sim.Run.self) + "\n\nALSO:\n  " + usageString(for: Sim.Merge.self)
                + "\n  (the --json results of the shards of one study, merged exactly; see 'dicehost sim merge --help')"
        }
        return nil
    }

    /// The names of the subcommands (and ArgumentParser's own `help`).
    static var commandNames: [String] { configuration.subcommands.map { $0._commandName } + ["help"] }

    /// `dicehost help NAME` for a command that does not exist: an error (ArgumentParser
    /// would print the general help and exit 0). Nil when the arguments ask no such thing.
    static func unknownCommand(in arguments: [String]) -> String? {
        guard arguments.count >= 2, arguments[0] == "help", !arguments[1].hasPrefix("-"), !commandNames.contains(arguments[1]) else { return nil }
        let hint = NearestWord.to(arguments[1], among: commandNames).map { ": did you mean '\($0)'?" } ?? ""
        return "dicehost: help: no command '\(arguments[1])'\(hint) (the commands: \(commandNames.joined(separator: ", ")))"
    }

    static func leafCommands(of command: ParsableCommand.Type) -> [ParsableCommand.Type] {
        command.configuration.subcommands.flatMap { sub in
            sub.configuration.subcommands.isEmpty ? [sub] : leafCommands(of: sub)
        }
    }
}

/// Exit statuses of the command-line contract.
enum ExitStatus {
    static let failure = ExitCode(1)
    static let usage = ExitCode(2)
    static let scriptDoesNotLoad = ExitCode(3)

    /// Reports why rules could not be started: a script that does not load exits 3, a
    /// `--set` the rules do not take (unknown param, wrong type) is bad usage, 2.
    static func loadFailure(_ error: Error) -> ExitCode {
        if error is RuleSet.OverrideError {
            printError("dicehost: --set: \(error)")
            return usage
        }
        printError("\(error)")
        return scriptDoesNotLoad
    }
}

/// Writes a line to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
