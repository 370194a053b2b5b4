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

        @Flag(help: "Let the rules' bot policies play until the game ends.")
        var auto = false

        @Option(help: "Record the session as a rule test (transcript) in this file.")
        var record: String?

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
                names = try players.map(Self.parsePlayers) ?? Self.defaultPlayers(for: rules, params: params)
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
            let startLines = game.events.dropFirst().map(\.description)
            for line in startLines { print(line) }
            var recorded: [String] = []
            defer {
                if let record {
                    let header = ["# Recorded with dicehost play.", "rules: \(Self.relativePath(rules, from: record))", "players: \(names.joined(separator: ", "))", "seed: \(seed)"]
                        + overrides.map { "set: \($0)" }
                    let text = (header + [""] + startLines + recorded).joined(separator: "\n") + "\n"
                    do { try text.write(toFile: record, atomically: true, encoding: .utf8) } catch {
                        printError("dicehost: cannot write \(record): \(error)")
                    }
                }
            }
            if auto {
                var moves = 0
                while !game.isOver && moves < Self.autoMoveLimit {
                    let before = game.events.count
                    do { try game.playBotMove() } catch {
                        print("error: \(error)")
                        throw ExitStatus.failure
                    }
                    for event in game.events.dropFirst(before) { print(event.description) }
                    moves += 1
                }
                if !game.isOver { print("stopped after \(moves) moves: the game did not end") }
                return
            }
            while true {
                if interactive {
                    print("\(game.currentPlayer ?? "-")> ", terminator: "")
                    fflush(stdout)
                }
                guard let line = readLine() else { break }
                let reply = session.run(line)
                for out in reply.lines { print(out) }
                if !line.trimmingCharacters(in: .whitespaces).isEmpty, !reply.quit {
                    recorded += ["> " + line.trimmingCharacters(in: .whitespaces)] + reply.lines
                }
                if reply.quit { break }
            }
            if session.sawRuleError { throw ExitStatus.failure }
        }

        static let autoMoveLimit = 10_000

        /// `target` as seen from the folder of `file` (transcripts name rules relative to themselves).
        static func relativePath(_ target: String, from file: String) -> String {
            let cwd = FileManager.default.currentDirectoryPath
            func absolute(_ p: String) -> [String] {
                (p.hasPrefix("/") ? p : cwd + "/" + p).split(separator: "/").map(String.init).filter { $0 != "." }
            }
            let to = absolute(target), from = Array(absolute(file).dropLast())
            var common = 0
            while common < min(to.count, from.count), to[common] == from[common] { common += 1 }
            return (Array(repeating: "..", count: from.count - common) + to[common...]).joined(separator: "/")
        }

        /// "Ann, Bob" → ["Ann", "Bob"].
        static func parsePlayers(_ text: String) -> [String] {
            text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        }

        /// As many players as the rules need at least (two for a game of two or more).
        static func defaultPlayers(for rules: String, params: [(String, String)]) throws -> [String] {
            let ruleSet = try Game.check(rulesFile: rules, params: params)
            let count = max(ruleSet.minPlayers, min(2, ruleSet.maxPlayers))
            return Array(["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"].prefix(count)) + (count > 8 ? (9...count).map { "P\($0)" } : [])
        }
    }
}
