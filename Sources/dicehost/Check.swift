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

        @Option(name: .customLong("set"), help: "Override a param, e.g. --set target=30 (repeatable).")
        var overrides: [String] = []

        func run() throws {
            do {
                let params = try overrides.map(GameOptions.parseOverride)
                let ruleSet = try Game.check(rulesFile: rules, params: params)
                print("\(rules): ok")
                print(ruleSet.summary)
                print("odds: " + DiceHost.Odds.analysability(rulesFile: rules, params: params).description)
                for warning in ruleSet.warnings { print("warning: \(warning)") }
            } catch let error as GameOptions.UsageError {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            } catch {
                throw ExitStatus.loadFailure(error)
            }
        }
    }
}

/// Parsing shared by the commands that take rules options.
enum GameOptions {
    struct UsageError: Error, CustomStringConvertible { let description: String }

    static func parseOverride(_ text: String) throws -> (String, String) {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw UsageError(description: "--set expects key=value, got '\(text)'")
        }
        return (String(text[..<eq]), String(text[text.index(after: eq)...]))
    }
}
