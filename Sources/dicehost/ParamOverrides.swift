import ArgumentParser

/// `--set key=value`, repeatable: the rules' params a command changes. Every command that
/// loads rules takes it through this group, so the option reads and fails the same way
/// everywhere.
struct ParamOverrides: ParsableArguments {
    @Option(name: .customLong("set"), help: "Override a param, e.g. --set target=30 (repeatable).")
    var overrides: [String] = []

    /// A malformed `--set` is bad usage (exit 2), named as the other commands' usage errors
    /// are, before any rules are loaded.
    func validate() throws {
        do { _ = try parsed() } catch {
            printError("dicehost: \(error)")
            throw ExitStatus.usage
        }
    }

    /// The overrides as (param, value) pairs, in the order given.
    var params: [(String, String)] { (try? parsed()) ?? [] }

    private func parsed() throws -> [(String, String)] { try overrides.map(Self.parse) }

    static func parse(_ text: String) throws -> (String, String) {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw GameOptions.UsageError(description: "--set expects key=value, got '\(text)'")
        }
        return (String(text[..<eq]), String(text[text.index(after: eq)...]))
    }
}
