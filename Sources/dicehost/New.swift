import ArgumentParser
import DiceHost
import Foundation

extension DiceHostCommand {
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start a new game: a working rule script with a bot, and a rule test that passes.",
            discussion: """
                Writes FOLDER/NAME.lua (a small dice race to edit: setup, turn, roll, an action,
                a status line and a bot) and FOLDER/tests/NAME/first-turns.txt, recorded from the
                script, so `dicehost test` passes at once (with no path it finds rules/tests and
                ./tests). Existing files are never replaced.
                """
        )

        @Argument(help: "The game's name: letters, digits, '-' and '_' (e.g. dice-duel).")
        var name: String

        @Option(help: "The folder to write into (default: rules/ if there is one, else the current folder).")
        var folder: String?

        func run() throws {
            var isDirectory: ObjCBool = false
            let folder = self.folder ?? (FileManager.default.fileExists(atPath: "rules", isDirectory: &isDirectory) && isDirectory.boolValue ? "rules" : ".")
            guard !name.isEmpty, name.count <= 40, name.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }) else {
                printError("dicehost: new: the name must be 1 to 40 letters, digits, '-' or '_', got '\(name)'")
                throw ExitStatus.usage
            }
            let script = folder == "." ? "\(name).lua" : "\(folder)/\(name).lua"
            let testFolder = (folder == "." ? "" : folder + "/") + "tests/\(name)"
            let test = testFolder + "/first-turns.txt"
            for path in [script, test] where FileManager.default.fileExists(atPath: path) {
                printError("dicehost: new: \(path) exists already (pick another name, or move it away)")
                throw ExitStatus.usage
            }
            let writer = SafeFileWriter()
            do {
                try FileManager.default.createDirectory(atPath: testFolder, withIntermediateDirectories: true)
                try writer.write(Self.template(name: name), to: script)
                let game = try Game(rulesFile: script, players: ["Ann", "Bob"], seed: 1)
                let session = GameSession(game: game)
                for line in ["roll 4", "roll 5", "hold", "roll 1", "roll 6"] { _ = session.run(line) }
                let text = session.transcript(for: test).replacingOccurrences(
                    of: "# Saved with dicehost play; `load` continues it, `dicehost test` checks it.",
                    with: "# Written by dicehost new: holding banks the turn total, a 1 loses it.\n# Re-record after changing the rules: dicehost test --update \(test)")
                try writer.write(text, to: test)
            } catch {
                printError("dicehost: new: \(error)")
                throw ExitStatus.failure
            }
            print("created \(script) and \(test)")
            print("try: dicehost play \(script) --watch    (or --auto: the bot plays)")
            print("     dicehost test \(testFolder)")
        }

        static func template(name: String) -> String {
            let title = name.split(whereSeparator: { $0 == "-" || $0 == "_" }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
            return """
                -- \(title): a dice race from the `dicehost new` template. Each roll adds to your
                -- turn total; `hold` banks it and passes the turn; a 1 loses the turn total. The
                -- first to `target` points wins. Edit freely: `dicehost play \(name).lua --watch`
                -- reloads on every save; docs/scripting.md describes every hook and function.
                local game = rules {
                  name = "\(title)", players = {2, 4}, dice = "1d6",
                  params = { target = 20 },            -- try: dicehost play \(name).lua --set target=30
                }

                function game.setup(g)
                  for _, p in ipairs(g.players) do p.score = 0 end
                  g.state.turn_total = 0
                end

                function game.turn(g, p)
                  g.state.turn_total = 0
                  g:say("%s to roll (score %d of %d)", p.name, p.score, g.params.target)
                end

                function game.roll(g, p, r)
                  if r.value == 1 then
                    g:say("%s rolled a 1 and loses %d", p.name, g.state.turn_total)
                    g:next_turn()
                    return
                  end
                  g.state.turn_total = g.state.turn_total + r.value
                  if p.score + g.state.turn_total >= g.params.target then
                    p.score = p.score + g.state.turn_total
                    g:win(p)
                  else
                    g:say("turn total %d", g.state.turn_total)
                  end
                end

                game.actions = {
                  -- `hold` at the prompt; only the player whose turn it is may hold.
                  hold = function(g, p)
                    p.score = p.score + g.state.turn_total
                    g:say("%s banks %d (score %d)", p.name, g.state.turn_total, p.score)
                    g:next_turn()
                  end,
                }

                -- The prompt's status line.
                function game.status(g) return string.format("turn total %d", g.state.turn_total) end

                -- What a player does in `dicehost play --auto` and `dicehost sim`.
                function game.bot(g, p)
                  if g.state.turn_total >= 8 then return "hold" end
                  return "roll"
                end

                return game

                """
        }
    }
}
