import DiceHost
import Foundation
import Testing

/// `rules.statistics`: fields kept only for statistics stay out of `solve`'s positions,
/// and a declaration that play contradicts is refused.
@Suite struct StatisticsTests {
    func solveOptions(_ players: [String] = ["Ann", "Bob"], _ params: [(String, String)] = []) -> BestPlay.Options {
        var o = BestPlay.Options()
        o.players = players
        o.params = params
        o.memoryBytes = 256 << 20
        o.equilibrium.exploitability = 1e-5
        return o
    }

    /// Pig with a roll counter per turn (`g.state.rolls`), recorded when a player holds,
    /// and optionally declared as statistics.
    static func pigWithCounter(declared: Bool, playReadsIt: Bool = false) throws -> String {
        var source = try String(contentsOfFile: "examples/rules/pig.lua", encoding: .utf8)
        func replace(_ old: String, _ new: String) {
            precondition(source.contains(old), "pig.lua changed: \(old)")
            source = source.replacingOccurrences(of: old, with: new)
        }
        replace("  g.state.turn_total = 0\n  for _", "  g.state.turn_total = 0\n  g.state.rolls = 0\n  for _")
        replace("function pig.turn(g, p)\n  g.state.turn_total = 0", "function pig.turn(g, p)\n  g.state.turn_total = 0\n  g.state.rolls = 0")
        replace("  local total = state.turn_total + value", "  state.rolls = state.rolls + 1\n  local total = state.turn_total + value")
        replace("    g:record(\"held\", g.state.turn_total)", "    g:record(\"held\", g.state.turn_total)\n    g:record(\"rolls\", g.state.rolls)")
        if declared { replace("params = { target = 20, hold = 10 },", "params = { target = 20, hold = 10 }, statistics = {\"rolls\"},") }
        // A fourth roll in a turn loses it: the counter is no statistic any more.
        if playReadsIt { replace("  if value == 1 then", "  if value == 1 or state.rolls > 3 then") }
        return try temporaryRules(source, name: "pig.lua")
    }

    func solved(_ rules: String, _ options: BestPlay.Options) throws -> BestPlay.Result {
        guard case .open(let r) = try BestPlay.analyse(rulesFile: rules, options: options) else {
            throw OddsError.internal("Pig has no secrets")
        }
        return r
    }

    @Test func aDeclaredRollCounterLeavesPigsPositionsAndValueAsTheyAre() throws {
        let params = [("target", "15")]
        let plain = try solved("examples/rules/pig.lua", solveOptions(["Ann", "Bob"], params))
        let counted = try solved(try Self.pigWithCounter(declared: false), solveOptions(["Ann", "Bob"], params))
        let declared = try solved(try Self.pigWithCounter(declared: true), solveOptions(["Ann", "Bob"], params))
        // Undeclared, the counter multiplies the positions (the cost the declaration removes).
        #expect(counted.states > plain.states * 2, "\(counted.states) against \(plain.states)")
        #expect(declared.states == plain.states)
        #expect(declared.forgotStatistics == ["rolls"])
        #expect(plain.forgotStatistics.isEmpty)
        for seat in 0..<2 {
            #expect(abs(declared.wins[seat] - plain.wins[seat]) < 1e-12)
            #expect(abs(counted.wins[seat] - plain.wins[seat]) < 1e-9)
        }
    }

    @Test func aStatisticThatPlayReadsIsRefusedNamingTheFieldAndItsValue() throws {
        let rules = try Self.pigWithCounter(declared: true, playReadsIt: true)
        #expect {
            _ = try BestPlay.analyse(rulesFile: rules, options: solveOptions(["Ann", "Bob"], [("target", "15")]))
        } throws: { error in
            let text = "\(error)"
            return text.contains("statistics = {\"rolls\"}") && text.contains("play depends on them")
                && text.contains("g.state.rolls = ")
        }
    }

    /// The policy module's keys leave the field out: played back through `odds` (which
    /// keeps every field, so the bot sees the counter counting), it gives solve's value.
    /// Keyed with the counter, most lookups would miss and the bot would always roll.
    @Test func theSolvedPolicyFindsItsMovesWhileTheCounterCounts() throws {
        let rules = try Self.pigWithCounter(declared: true)
        var o = solveOptions(["Ann", "Bob"], [("target", "12")])
        o.writesPolicy = true
        let best = try solved(rules, o)
        let module = try #require(best.policyModule)
        let folder = (rules as NSString).deletingLastPathComponent
        try module.write(toFile: folder + "/pig-best.lua", atomically: true, encoding: .utf8)
        try """
            local game = require("pig")
            local best = require("pig-best")
            return rules.extend(game, { bot = function(g, p) return best.move(g, p) end })
            """.write(toFile: folder + "/played-back.lua", atomically: true, encoding: .utf8)
        let odds = try Odds.analyse(rulesFile: folder + "/played-back.lua", options: DiceHostTests.options(["Ann", "Bob"], [("target", "12")]))
        #expect(abs(odds.wins[0].double - best.wins[0]) < 1e-9, "odds \(odds.wins[0].double), solve \(best.wins[0])")
    }

    /// OpenSpiel's Liar's Dice with three faces and a per-player bid counter: declared,
    /// the equilibrium has the positions and the value of the game without it.
    @Test func aDeclaredCounterInAGameWithSecretsLeavesItsEquilibriumAlone() throws {
        var source = try String(contentsOfFile: "examples/rules/liars-dice-openspiel.lua", encoding: .utf8)
        let plainRules = try temporaryRules(source, name: "ld.lua")
        for (old, new) in [("secret_rolls = true,", "secret_rolls = true, statistics = {\"bids\"},"),
                           ("  g.state.phase = \"rolling\"\n", "  g.state.phase = \"rolling\"\n  for _, q in ipairs(g.players) do q.bids = 0 end\n"),
                           ("    g.state.bid = {quantity", "    p.bids = p.bids + 1\n    g.state.bid = {quantity")] {
            #expect(source.contains(old))
            source = source.replacingOccurrences(of: old, with: new)
        }
        let counted = try temporaryRules(source, name: "ld.lua")
        var o = solveOptions()
        o.params = [("faces", "3")]
        guard case .secrets(let plain) = try BestPlay.analyse(rulesFile: plainRules, options: o),
              case .secrets(let declared) = try BestPlay.analyse(rulesFile: counted, options: o) else {
            Issue.record("Liar's Dice has secrets"); return
        }
        #expect(declared.positions == plain.positions)
        #expect(declared.nodes == plain.nodes)
        #expect(abs(declared.wins[0] - plain.wins[0]) < 1e-9)
        #expect(declared.forgotStatistics == ["bids"])
    }

    @Test(arguments: [
        ("statistics = \"rolls\"", "statistics must be a list of field names"),
        ("statistics = {1}", "statistics must list field names"),
        ("statistics = {\"name\"}", "the host keeps it"),
        ("statistics = {rolls = true}", "a list of at most 64 field names"),
    ])
    func aMalformedDeclarationIsRefusedWhenTheRulesLoad(declaration: String, message: String) throws {
        let source = """
            local game = rules { name = "Bad", players = 1, \(declaration) }
            function game.roll(g, p, r) g:win(p) end
            return game
            """
        let rules = try temporaryRules(source)
        #expect {
            _ = try BestPlay.analyse(rulesFile: rules, options: solveOptions(["Ann"]))
        } throws: { "\($0)".contains(message) }
    }
}
