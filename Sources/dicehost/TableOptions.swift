import ArgumentParser
import DiceHost

/// The game a command sets up: `--players` and `--set`. One declaration, so each command's
/// help and its checks of a table agree.
struct TableOptions: ParsableArguments {
    @Option(help: "Comma-separated player names, e.g. Ann,Bob,Cy (default: Ann,Bob, or as many as the rules need).")
    var players: String?

    @OptionGroup var overrides: ParamOverrides

    /// The `--set` overrides as (param, value) pairs.
    var params: [(String, String)] { overrides.params }

    /// The players of `--players` checked against the rules (a wrong table is bad usage,
    /// exit 2), or the default table; rules that do not load exit 3.
    func playerNames(rules: String) throws -> [String] {
        let ruleSet: RuleSet
        do { ruleSet = try Game.check(rulesFile: rules, params: params) } catch {
            throw ExitStatus.loadFailure(error)
        }
        return try playerNames(for: ruleSet)
    }

    /// The players of `--players` checked against loaded rules, or their default table.
    func playerNames(for ruleSet: RuleSet) throws -> [String] {
        guard let players else { return PlayerList.defaultNames(for: ruleSet) }
        do { return try PlayerList.parse(players, for: ruleSet) } catch {
            printError("dicehost: --players: \(error)")
            throw ExitStatus.usage
        }
    }
}
