import ArgumentParser
import DiceHost
import Foundation

extension DiceHostCommand {
    struct Play: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play a game from a rule script, reading commands line by line.",
            discussion: """
                Reads commands from standard input ('help' lists them). Without a terminal it
                echoes nothing extra and prints plain text, so a session can be piped in and
                its output compared. Exits 0 at end of input, 1 if a rule error occurred.
                """
        )

        @Argument(help: "The rule script, e.g. rules/race.lua.")
        var rules: String

        @Option(help: "Comma-separated player names.")
        var players: String?

        @Option(help: "Seed of the game's random generator (default: random, printed).")
        var seed: UInt64?

        @Option(name: .customLong("set"), help: "Override a param, e.g. --set target=30 (repeatable).")
        var overrides: [String] = []

        func run() throws {
            let params: [(String, String)]
            do { params = try overrides.map(GameOptions.parseOverride) } catch {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            }
            let seed = self.seed ?? UInt64.random(in: 0...999_999)
            let interactive = isatty(STDIN_FILENO) != 0
            let names: [String]
            do {
                names = try players.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
                    ?? Self.defaultPlayers(for: rules, params: params)
            } catch {
                printError("\(error)")
                throw ExitStatus.scriptDoesNotLoad
            }
            let game: Game
            do {
                game = try Game(rulesFile: rules, players: names, seed: seed, params: params)
            } catch {
                printError("\(error)")
                throw ExitStatus.scriptDoesNotLoad
            }
            let session = GameSession(game: game)
            if self.seed == nil { print("seed \(seed)") }
            print("\(game.rules.name): \(names.joined(separator: ", "))")
            for line in game.events.dropFirst().map(\.description) { print(line) }
            while true {
                if interactive {
                    print("\(game.currentPlayer ?? "-")> ", terminator: "")
                    fflush(stdout)
                }
                guard let line = readLine() else { break }
                let reply = session.run(line)
                for out in reply.lines { print(out) }
                if reply.quit { break }
            }
            if session.sawRuleError { throw ExitStatus.failure }
        }

        /// As many players as the rules need at least (two for a game of two or more).
        static func defaultPlayers(for rules: String, params: [(String, String)]) throws -> [String] {
            let ruleSet = try Game.check(rulesFile: rules, params: params)
            let count = max(ruleSet.minPlayers, min(2, ruleSet.maxPlayers))
            return Array(["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"].prefix(count)) + (count > 8 ? (9...count).map { "P\($0)" } : [])
        }
    }
}
