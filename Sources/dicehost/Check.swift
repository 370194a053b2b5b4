import ArgumentParser
import DiceHost

extension DiceHostCommand {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load a rule script in the sandbox, validate it and describe it.",
            discussion: """
                Also plays a short game with the rules' bots for each of a few seeds (at play's \
                default table: Ann, Bob…), so a hook that fails only in play (a misspelled method, a \
                nil field) is found. Exits 0 when the script loads and the bot games run, 1 when a bot \
                game fails (naming the seed, the move, the hook and the error, and the play command \
                that shows it), 3 with the error (file:line: message) when the script does not load.
                """
        )

        /// The seeds of the bot games, and the moves each may make before it counts as
        /// played (a game need not end: only a hook that fails is reported).
        static let botSeeds: [UInt64] = [1, 2, 3]
        static let botMoves = 500

        @Argument(help: "The rule script to check, e.g. rules/race.lua.")
        var rules: String

        @OptionGroup var overrides: ParamOverrides

        func run() throws {
            let failure: String?
            do {
                let params = overrides.params
                let names = PlayerList.defaultNames(for: try Game.check(rulesFile: rules, params: params))
                let game = try Game(rulesFile: rules, players: names, params: params)
                let ruleSet = game.rules
                failure = Self.playBotGames(game, rules: rules)
                print("\(rules): " + (failure == nil ? "ok" : "loads, but a bot game fails"))
                print(ruleSet.summary)
                print("odds: " + DiceHost.Odds.analysability(rulesFile: rules, params: params).description)
                for warning in ruleSet.warnings { print("warning: \(warning)") }
            } catch let error as GameOptions.UsageError {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            } catch {
                throw ExitStatus.loadFailure(error)
            }
            if let failure {
                print("error: \(failure)")
                throw ExitStatus.failure
            }
            print("bot games: \(Self.botSeeds.count) seeds played without an error (up to \(Self.botMoves) moves each)")
        }

        /// Plays a bot game for each of `botSeeds`; the first failure ("a bot game failed at
        /// move 3, Ann's: file:line: message" and the command that replays it), or nil.
        static func playBotGames(_ game: Game, rules: String) -> String? {
            for seed in botSeeds {
                var moves = 0
                do {
                    try game.startNewGame(seed: seed)
                    while moves < botMoves, !game.isOver {
                        try game.playBotMove()
                        moves += 1
                    }
                } catch {
                    let whose = game.currentPlayer.map { ", \($0)'s" } ?? ""
                    let when = moves == 0 && game.currentPlayer == nil ? "as it started" : "at move \(moves + 1)\(whose)"
                    let hook = Self.failedHook(error, rules: game.rules).map { $0.hasPrefix("actions.") ? ", in action \($0.dropFirst(8))" : ", in hook \($0)" } ?? ""
                    return "a bot game failed \(when)\(hook): \(error)\n(to see it: dicehost play \(rules) --players \(game.playerNames.joined(separator: ",")) --seed \(seed) --auto)"
                }
            }
            return nil
        }

        /// The hook a rule failure happened in ("roll", "actions.hold"), from its traceback.
        static func failedHook(_ error: Error, rules: RuleSet) -> String? {
            guard case GameError.script(let failure) = error, let traceback = failure.traceback else { return nil }
            return rules.hook(in: traceback)
        }
    }
}

/// A command-line value a command cannot use: printed as "dicehost: …", exit 2.
enum GameOptions {
    struct UsageError: Error, CustomStringConvertible { let description: String }
}
