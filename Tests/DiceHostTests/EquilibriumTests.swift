import DiceHost
import Foundation
import Testing

/// Best play where players hide things: equilibria worked out by hand, best replies that
/// know only their own seat's share, and every refusal.
@Suite struct EquilibriumTests {
    func options(_ players: [String] = ["Ann", "Bob"]) -> BestPlay.Options {
        var o = BestPlay.Options()
        o.players = players
        o.memoryBytes = 256 << 20
        o.equilibrium.exploitability = 1e-5
        return o
    }

    func folder(_ files: [String: String]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("equilibrium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return dir.path
    }

    /// Ann hides 1 or 2 where only she sees it; Bob guesses. A wrong guess: Ann wins. A
    /// right guess of 1: Bob wins; of 2: a roll of 1d2 decides (Bob wins on a 2).
    /// By hand: Bob is indifferent when Ann hides 1 with x = (1 - x) / 2, x = 1/3; Ann is
    /// indifferent when Bob guesses 1 with y = (1 - y) / 2, y = 1/3; Ann wins 2/3. Were
    /// the hidden number open, Bob would always guess it, Ann would hide 2: 1/2.
    static func hideAndGuess(extra: String = "", bot: String = "") -> String {
        """
        local game = rules { name = "Hide and guess", players = 2, dice = "1d2", choices = { hide = {1, 2}, guess = {1, 2} } \(extra) }
        function game.setup(g) g.state.phase = "hide" end
        game.actions = {
          hide = function(g, p, k)
            if g.state.phase ~= "hide" then error("not now", 0) end
            g.state.hidden, g.state.phase = k, "guess"
            g:tell(p, "you hid %d", k)
            g:next_turn()
          end,
          guess = function(g, p, k)
            if g.state.phase ~= "guess" then error("not now", 0) end
            if k ~= g.state.hidden then g:win(g.players[1]) return end
            if k == 1 then g:win(p) return end
            g.state.phase = "settle"
          end,
        }
        function game.roll(g, p, r)
          if g.state.phase ~= "settle" then error("no roll now", 0) end
          if r.value == 2 then g:win(p) else g:win(g.players[1]) end
        end
        function game.view(g, viewer)
          return {phase = g.state.phase, hidden = viewer and viewer.seat == 1 and g.state.hidden or nil}
        end
        \(bot)
        return game
        """
    }

    @Test func aHiddenChoiceIsSolvedAsAGameWithSecretsNotWithItsCupsOpen() throws {
        let rules = try folder(["game.lua": Self.hideAndGuess()]) + "/game.lua"
        guard case .secrets(let e) = try BestPlay.analyse(rulesFile: rules, options: options()) else {
            Issue.record("a game with a view must be solved with secrets"); return
        }
        #expect(abs(e.wins[0] - 2.0 / 3) < 1e-4, "Ann \(e.wins[0])")
        #expect(e.exploitability <= 1e-5)
        #expect(e.perfectRecall)
        // The bracket holds the value found by hand.
        let bracket = try #require(e.valueBracket)
        #expect(bracket.contains(2.0 / 3))
        var open = options()
        open.open = true
        guard case .open(let o) = try BestPlay.analyse(rulesFile: rules, options: open) else { Issue.record("--open"); return }
        #expect(abs(o.wins[0] - 0.5) < 1e-12)
        #expect(o.everyoneSeesEverything)
    }

    /// The rules' bot hides 1 and guesses 1 every time. A best reply that sees only its
    /// own seat still learns that from the bot's play: against Ann's bot Bob guesses 1
    /// (Ann wins 0); against Bob's bot Ann hides 2 (Ann wins 1, Bob 0).
    @Test func aPredictableBotIsFullyExploitedByABestReplyThatSeesOnlyItsOwnSeat() throws {
        let bot = """
            function game.bot(v, p)
              if v.phase == "hide" then return {"hide", 1} elseif v.phase == "guess" then return {"guess", 1} end
              return "roll"
            end
            """
        let rules = try folder(["game.lua": Self.hideAndGuess(bot: bot)]) + "/game.lua"
        var o = options()
        o.explains = true
        let v = try BestPlay.versus(rulesFile: rules, options: o)
        #expect(v.withSecrets)
        #expect(abs(v.botInSeat[0][0] - 0) < 1e-12)
        #expect(abs(v.botInSeat[1][1] - 0) < 1e-12)
        #expect(abs(v.best[0] - 2.0 / 3) < 1e-3)
        // Where Ann's bot gives most away: hiding 1, against a Bob who guesses 1 (hiding 2
        // would win every game).
        let worst = try #require(v.costliest[0].first)
        #expect(worst.botMove == "hide 1" && worst.betterMove == "hide 2")
        #expect(abs(worst.loss - 1) < 1e-9)
    }

    /// The equilibrium written as a policy module and played by the bot in `sim`: Ann's
    /// rate falls in the interval around 2/3.
    @Test func theEquilibriumPolicyPlayedByBotsInSimMatchesTheSolvedValue() throws {
        let dir = try folder(["game.lua": Self.hideAndGuess(extra: ", view_is_complete = true")])
        var o = options()
        o.writesPolicy = true
        guard case .secrets(let e) = try BestPlay.analyse(rulesFile: dir + "/game.lua", options: o) else { Issue.record("secrets"); return }
        #expect(!e.perfectRecall)
        let module = try #require(e.policyModule)
        try module.write(toFile: dir + "/best.lua", atomically: true, encoding: .utf8)
        let player = Self.hideAndGuess(extra: ", view_is_complete = true", bot: """
            local best = require("best")
            function game.bot(v, p) return best.move(v, p) or "roll" end
            """)
        try player.write(toFile: dir + "/played.lua", atomically: true, encoding: .utf8)
        let result = try Simulation.run(Simulation.Plan(rulesFile: dir + "/played.lua", players: ["Ann", "Bob"], games: 20_000, seed: 7))
        #expect(result.errors == 0 && result.unfinished == 0)
        #expect(result.winRates[0].contains(e.wins[0]), "sim \(result.winRates[0]) vs solve \(e.wins[0])")
    }

    /// The hide-and-guess game with `bot`, solved with its policy module written, and that
    /// module played back by `odds --vs`: the folder, the solution and the playback.
    func solvedAndPlayedBack(bot: String) throws -> (dir: String, solved: Equilibrium.Result, played: PolicyVersus) {
        let dir = try folder(["game.lua": Self.hideAndGuess(extra: ", view_is_complete = true", bot: bot)])
        var o = options()
        o.writesPolicy = true
        let analysed = try BestPlay.analyse(rulesFile: dir + "/game.lua", options: o)
        let e = try #require({ if case .secrets(let e) = analysed { return e } else { return nil } }(), "solved as a game with secrets")
        try #require(e.policyModule).write(toFile: dir + "/best.lua", atomically: true, encoding: .utf8)
        return (dir, e, try BestPlay.versus(rulesFile: dir + "/game.lua", policyFile: dir + "/best.lua", options: options()))
    }

    /// The module played back exactly by `odds --vs` (`BestPlay.versus(policyFile:)`):
    /// every seat playing it gives solve's value; against the predictable bot (hide 1,
    /// guess 1) it wins what the hand computation gives: hiding 1 a third of the time
    /// Ann wins 2/3 against a Bob who always guesses 1; guessing 1 a third of the time
    /// Bob wins 1/3 against an Ann who always hides 1; the bots alone: Bob guesses right.
    @Test func theEquilibriumPolicyPlayedBackExactlyGivesTheSolvedValue() throws {
        let bot = """
            function game.bot(v, p)
              if v.phase == "hide" then return {"hide", 1} elseif v.phase == "guess" then return {"guess", 1} end
              return "roll"
            end
            """
        let (dir, e, v) = try solvedAndPlayedBack(bot: bot)
        #expect(v.withSecrets)
        #expect(abs(v.policyEverywhere[0] - e.wins[0]) <= 2 * e.exploitability + 1e-12)
        #expect(abs(v.policyEverywhere[0] - 2.0 / 3) < 1e-3)
        #expect(abs(v.policyInSeat[0][0] - 2.0 / 3) < 1e-3)
        #expect(abs(v.policyInSeat[1][1] - 1.0 / 3) < 1e-3)
        #expect(abs(v.botOnly[0]) < 1e-12 && abs(v.botOnly[1] - 1) < 1e-12)
        // A module from another game's tree is refused, naming what it lacks.
        try """
            local M = {}
            function M.chances(v) return {{"hide", 3}}, {1} end
            return M
            """.write(toFile: dir + "/other.lua", atomically: true, encoding: .utf8)
        #expect {
            _ = try BestPlay.versus(rulesFile: dir + "/game.lua", policyFile: dir + "/other.lua", options: options())
        } throws: { "\($0)".contains("lists 'hide 3', which is not a legal move there") }
    }

    /// A bot that draws random numbers has no one move per position: the module is played
    /// in every seat alone (one exploration), and says why.
    @Test func aModuleBesideABotThatDrawsIsPlayedInEverySeatAlone() throws {
        let bot = """
            function game.bot(v, p)
              if v.phase == "hide" then return {"hide", math.random(2)} elseif v.phase == "guess" then return {"guess", math.random(2)} end
              return "roll"
            end
            """
        let (_, _, v) = try solvedAndPlayedBack(bot: bot)
        #expect(v.noBot?.contains("draws random numbers") == true)
        #expect(v.policyInSeat.isEmpty && v.botOnly.isEmpty)
        #expect(abs(v.policyEverywhere[0] - 2.0 / 3) < 1e-3)
    }

    @Test func anActionWithArgumentsAndNoChoicesIsRefusedNamingIt() throws {
        let source = """
            local game = rules { name = "Bids", players = 2, dice = "1d6" }
            function game.setup(g) end
            function game.roll(g, p, r) g:win(p) end
            game.actions = { bid = function(g, p, quantity, face) g:win(p) end }
            return game
            """
        let rules = try folder(["game.lua": source]) + "/game.lua"
        #expect {
            _ = try BestPlay.analyse(rulesFile: rules, options: options())
        } throws: { error in
            let text = "\(error)"
            return text.contains("action 'bid' cannot be listed") && text.contains("quantity, face") && text.contains("choices")
        }
    }

    @Test func movesThatDependOnWhatASeatCannotSeeAreRefused() throws {
        // Bob may only guess the hidden number: his moves give it away.
        let source = Self.hideAndGuess().replacingOccurrences(of: "choices = { hide = {1, 2}, guess = {1, 2} }",
                                                               with: "choices = { hide = {1, 2}, guess = function(g, p) return {g.state.hidden} end }")
        let rules = try folder(["game.lua": source]) + "/game.lua"
        #expect {
            _ = try BestPlay.analyse(rulesFile: rules, options: options())
        } throws: { "\($0)".contains("Bob is shown the same in two positions that offer different moves") }
    }

    @Test func aGameWithSecretsThatCanComeBackToAPositionIsRefused() throws {
        // A wrong guess of 2 starts again: the game can cycle.
        let source = Self.hideAndGuess().replacingOccurrences(of: "if k ~= g.state.hidden then g:win(g.players[1]) return end",
                                                               with: "if k ~= g.state.hidden then if k == 2 then g.state.phase = 'hide'; g.state.hidden = nil; g:next_turn() return end g:win(g.players[1]) return end")
        let rules = try folder(["game.lua": source]) + "/game.lua"
        #expect {
            _ = try BestPlay.analyse(rulesFile: rules, options: options())
        } throws: { "\($0)".contains("come back to a position") }
    }

    /// OpenSpiel's liars_dice with three faces (the shipped example with its `faces`
    /// param): perfect recall from the events, and every bracket holds the value.
    @Test func liarsDiceWithThreeFacesConvergesWithItsBracketClosing() throws {
        var o = options()
        o.params = [("faces", "3")]
        o.equilibrium.exploitability = 1e-4
        guard case .secrets(let e) = try BestPlay.analyse(rulesFile: "examples/rules/liars-dice-openspiel.lua", options: o) else {
            Issue.record("secrets"); return
        }
        let bracket = try #require(e.valueBracket)
        #expect(bracket.upperBound - bracket.lowerBound <= 2 * 2e-4 + 1e-12)
        #expect(bracket.contains(e.wins[0]) || abs(e.wins[0] - bracket.lowerBound) < 1e-9)
        #expect(e.stoppedBy == .exploitability)
        #expect(abs(e.wins[0] + e.wins[1] - 1) < 1e-12)
    }

    @Test func aLonePlayersLossIsALossNotANeverEndingGame() throws {
        let source = """
            local game = rules { name = "One roll", players = 1, dice = "1d6" }
            function game.roll(g, p, r) if r.value >= 5 then g:win(p) else g:lose(p) end end
            return game
            """
        let rules = try folder(["game.lua": source]) + "/game.lua"
        let best = try BestPlay.solve(rulesFile: rules, options: options(["Ann"]))
        #expect(abs(best.wins[0] - 1.0 / 3) < 1e-12)
        #expect(abs(best.loss - 2.0 / 3) < 1e-12)
        #expect(best.neverEnds < 1e-12)
    }
}
