import DiceHost
import Foundation
import Testing

/// A smart die's flagged roll (`tilt`, `too_short`) carries no values. Every shipped game
/// must take one wherever it takes a roll without failing and without it counting: the
/// game is left as it was (or the roll refused) and the same player rolls again.
@Suite struct FlaggedRollsInShippedGamesTests {
    /// Every rule script the project ships: rules/*.lua and examples/**/*.lua outside the
    /// test folders (run from the package root, as `swift test` does).
    static let shippedRuleScripts: [String] = {
        let files = FileManager.default
        var scripts = ((try? files.contentsOfDirectory(atPath: "rules")) ?? [])
            .filter { $0.hasSuffix(".lua") }.map { "rules/" + $0 }
        if let walk = files.enumerator(atPath: "examples") {
            for case let path as String in walk where path.hasSuffix(".lua") && !path.split(separator: "/").contains("tests") {
                scripts.append("examples/" + path)
            }
        }
        return scripts.sorted()
    }()

    @Test func theShippedGamesAreFound() {
        #expect(Self.shippedRuleScripts.contains("rules/liars-dice.lua"))
        #expect(Self.shippedRuleScripts.contains("examples/rules/pig.lua"))
    }

    /// g.state and the players as the REPL's `state` shows them, timer handles by kind
    /// only (a game that waits for a roll again re-arms its timers: new ids, same timers).
    static func described(_ session: GameSession) -> [String] {
        session.describeState().map { $0.replacing(#/id=\d+/#, with: "id=#") }
    }

    /// Plays three games of `script` by its bots; wherever a good roll is taken, tries
    /// `roll tilt` and `roll short` (each taken back after). Returns what went wrong and
    /// how many roll positions were tried.
    static func flaggedRollProblems(_ script: String) throws -> (problems: [String], rollPositions: Int) {
        var rollPositions = 0, problems: [String] = []
        for seed: UInt64 in 1...3 {
            let probe = try Game(rulesFile: script, players: [], seed: seed)
            let seats = min(max(probe.rules.minPlayers, 2), probe.rules.maxPlayers)
            let game = try Game(rulesFile: script, players: Array(["Ann", "Bob", "Cy"].prefix(seats)), seed: seed)
            let session = GameSession(game: game)
            for move in 0..<200 where !game.isOver && problems.isEmpty {
                // A roll position: a good roll is taken here (tried, then taken back).
                if (try? game.roll()) != nil {
                    try game.undo()
                    rollPositions += 1
                    for flag in [Roll.Flag.tilt, .tooShort] where problems.isEmpty {
                        let at = "seed \(seed), move \(move), roll \(flag.rawValue) by \(game.currentPlayer ?? "-")"
                        let state = Self.described(session), current = game.currentPlayer
                        do {
                            try game.roll(flag: flag)
                        } catch GameError.script(let failure) where failure.isRefusal {
                            continue  // refused: the transaction left the game as it was
                        } catch {
                            problems.append("\(at): \(error)")
                            continue
                        }
                        if Self.described(session) != state {
                            problems.append("\(at): the game changed from \(state) to \(Self.described(session))")
                        } else if game.currentPlayer != current || game.isOver {
                            problems.append("\(at): the turn passed to \(game.currentPlayer ?? "nobody") or the game ended")
                        } else if (try? game.roll()) == nil {
                            problems.append("\(at): a good roll is no longer taken after it")
                        } else {
                            try game.undo()
                        }
                        try game.undo()
                    }
                }
                if problems.isEmpty { try game.playBotMove() }
            }
        }
        return (problems, rollPositions)
    }

    @Test(arguments: shippedRuleScripts)
    func aFlaggedRollWhereARollIsTakenNeitherFailsNorCounts(script: String) throws {
        let (problems, rollPositions) = try Self.flaggedRollProblems(script)
        #expect(problems.isEmpty, "\(script): \(problems.first ?? "")")
        #expect(rollPositions > 0, "\(script): no position took a roll")
    }

    /// `dicehost new`'s template, as `new` fills it in, answers a flagged roll the same way.
    @Test func theNewGameTemplateLetsAFlaggedRollNotCount() throws {
        let template = try String(contentsOfFile: "Sources/dicehost/Templates/new-game.lua", encoding: .utf8)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flagged-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("my-game.lua")
        try Data(template.replacing("{{TITLE}}", with: "My Game").replacing("{{NAME}}", with: "my-game").utf8).write(to: script)
        let (problems, rollPositions) = try Self.flaggedRollProblems(script.path)
        #expect(problems.isEmpty, "the template: \(problems.first ?? "")")
        #expect(rollPositions > 0)
    }
}
