import ArgumentParser
import DiceHost

extension DiceHostCommand {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load a rule script in the sandbox, validate it and describe it.",
            discussion: "Exits 0 when the script loads, 3 with the error (file:line: message) when it does not."
        )

        @Argument(help: "The rule script to check, e.g. rules/race.lua.")
        var rules: String

        func run() throws {
            do {
                let summary = try ScriptCheck.check(path: rules)
                print(summary)
            } catch {
                printError("\(error)")
                throw ExitStatus.scriptDoesNotLoad
            }
        }
    }
}
