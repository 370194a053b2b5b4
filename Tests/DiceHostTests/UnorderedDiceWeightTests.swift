import DiceHost
import Foundation
import Testing

/// Under `unordered_dice` odds plays each set of values once; what that outcome does
/// (rolls, turns, recorded metrics) must count once per order it stands for, so every
/// figure equals the same game's with the flag off.
@Suite struct UnorderedDiceWeightTests {
    /// Every figure of two analyses of one game, the flag on and off.
    static func expectSameFigures(_ on: Odds.Result, _ off: Odds.Result, _ what: String = "") {
        #expect(on.wins.map(\.exact) == off.wins.map(\.exact), "\(what) wins")
        #expect(on.draw.exact == off.draw.exact, "\(what) draw")
        #expect(on.neverEnds.exact == off.neverEnds.exact, "\(what) never ends")
        #expect(on.rolls?.exact == off.rolls?.exact, "\(what) rolls \(String(describing: on.rolls?.text)) against \(String(describing: off.rolls?.text))")
        #expect(on.turns?.exact == off.turns?.exact, "\(what) turns \(String(describing: on.turns?.text)) against \(String(describing: off.turns?.text))")
        #expect(Set(on.metrics.map(\.name)) == Set(off.metrics.map(\.name)), "\(what) metric names")
        for a in on.metrics {
            guard let b = off.metrics.first(where: { $0.name == a.name }) else { continue }
            #expect(a.expectedSum.exact == b.expectedSum.exact, "\(what) metric \(a.name): \(a.expectedSum.text) against \(b.expectedSum.text)")
            #expect(a.expectedCount.exact == b.expectedCount.exact, "\(what) metric \(a.name) records")
        }
        expectSameDistribution(on.rollDistribution, off.rollDistribution, "\(what) rolls per game")
        expectSameDistribution(on.turnDistribution, off.turnDistribution, "\(what) turns per game")
    }

    static func expectSameDistribution(_ a: LengthDistribution?, _ b: LengthDistribution?, _ what: String) {
        #expect((a == nil) == (b == nil), "\(what): \(a == nil ? "missing" : "present") with the flag on, \(b == nil ? "missing" : "present") with it off")
        guard let a, let b else { return }
        #expect(a.probability.count == b.probability.count, "\(what): lengths")
        for (x, y) in zip(a.probability, b.probability) { #expect(abs(x - y) < 1e-12, "\(what): \(a.probability) against \(b.probability)") }
        #expect(abs(a.unfinished - b.unfinished) < 1e-12, "\(what): unfinished")
    }

    static func oneRoll(unordered: Bool) -> String {
        """
        local t = rules { name = "One roll", players = 1, dice = "2d6", unordered_dice = \(unordered) }
        function t.roll(g, p, r)
          g:record("total", r.total)
          g:win(p)
        end
        return t
        """
    }

    @Test func oneRollOfTwoDiceIsOneRollWithTotalSeven() throws {
        let on = try Odds.analyse(rulesFile: try temporaryRules(Self.oneRoll(unordered: true)), options: options(["Ann"]))
        let off = try Odds.analyse(rulesFile: try temporaryRules(Self.oneRoll(unordered: false)), options: options(["Ann"]))
        #expect(on.rolls?.exact == Rational(1), "\(String(describing: on.rolls?.text))")
        let total = try #require(on.metrics.first { $0.name == "total" })
        #expect(total.expectedSum.exact == Rational(7), "\(total.expectedSum.text)")
        #expect(total.expectedCount.exact == Rational(1), "\(total.expectedCount.text)")
        #expect(on.rollDistribution?.probability == [0, 1])
        Self.expectSameFigures(on, off)
    }

    /// A shipped game's text with `unordered_dice = true` turned off, written beside a
    /// copy of the original in a fresh folder (so `require` finds the same neighbours).
    static func bothForms(ofShipped name: String) throws -> (on: String, off: String) {
        let source = try String(contentsOfFile: "rules/\(name)", encoding: .utf8)
        #expect(source.contains("unordered_dice = true"), "rules/\(name) declares unordered_dice")
        let on = try temporaryRules(source, name: name)
        let off = try temporaryRules(source.replacingOccurrences(of: "unordered_dice = true", with: "unordered_dice = false"), name: name)
        return (on, off)
    }

    /// Every shipped game that declares `unordered_dice`, with the params that keep it small.
    static let shipped: [(file: String, players: [String], params: [(String, String)])] = [
        ("liars-dice.lua", ["Ann", "Bob"], [("start_dice", "1"), ("bluff", "0")]),
        ("liars-dice.lua", ["Ann", "Bob"], [("start_dice", "2"), ("bluff", "0")]),
    ]

    @Test func everyShippedUnorderedGameHasTheFiguresOfItsOrderedForm() throws {
        let declaring = try FileManager.default.contentsOfDirectory(atPath: "rules").filter { file in
            file.hasSuffix(".lua") && ((try? String(contentsOfFile: "rules/\(file)", encoding: .utf8))?.contains("unordered_dice = true") ?? false)
        }
        #expect(Set(declaring) == Set(Self.shipped.map(\.file)), "a shipped game declares unordered_dice without a case here")
        for game in Self.shipped {
            let (onFile, offFile) = try Self.bothForms(ofShipped: game.file)
            let on = try Odds.analyse(rulesFile: onFile, options: options(game.players, game.params, precision: .exact))
            let off = try Odds.analyse(rulesFile: offFile, options: options(game.players, game.params, precision: .exact))
            Self.expectSameFigures(on, off, "\(game.file) \(game.params)")
            #expect(on.rollDistribution != nil, "\(game.file): the rolls-per-game histogram")
        }
    }

    /// The shipped Liar's Dice at two dice each: `sim` measures about 5.08 rolls a game.
    @Test func liarsDiceAtTwoDiceExpectsAboutFiveRolls() throws {
        let (onFile, _) = try Self.bothForms(ofShipped: "liars-dice.lua")
        let on = try Odds.analyse(rulesFile: onFile, options: options(["Ann", "Bob"], [("start_dice", "2"), ("bluff", "0")]))
        let rolls = try #require(on.rolls?.double)
        #expect(rolls > 5.0 && rolls < 5.2, "\(rolls)")
    }

    /// Small games drawn at random (Tests/AnalysisFixtures/random-game.lua: its rules
    /// chosen by params), each analysed with unordered dice and in its ordered form.
    @Test func randomSmallGamesHaveTheFiguresOfTheirOrderedForms() throws {
        var random = SplitMix64(seed: 43)
        func draw(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(random.next() % UInt64(range.count)) }
        let on = "Tests/AnalysisFixtures/random-game.lua", off = "Tests/AnalysisFixtures/random-game-ordered.lua"
        var differentShapes = Set<[Int]>()
        for _ in 0..<14 {
            let shape = [draw(2...3), draw(2...4), draw(3...7), draw(1...5), draw(0...3), draw(0...3), draw(0...2), draw(1...2)]
            differentShapes.insert(shape)
            let (count, sides, target, gain, bust, hold, pass, players) = (shape[0], shape[1], shape[2], shape[3], shape[4], shape[5], shape[6], shape[7])
            let params = [("dice", "\(count)d\(sides)"), ("target", "\(target)"), ("gain", "\(gain)"), ("bust", "\(bust)"),
                          ("hold_at", "\(hold)"), ("pass", "\(pass)")]
            let names = Array(["Ann", "Bob"].prefix(players))
            let a = try Odds.analyse(rulesFile: on, options: options(names, params, precision: .exact))
            let b = try Odds.analyse(rulesFile: off, options: options(names, params, precision: .exact))
            Self.expectSameFigures(a, b, "\(params) \(names)")
            #expect(a.states == b.states, "\(params)")
        }
        #expect(differentShapes.count >= 12)
    }

    /// `solve` weighs a set of values by its orders too: best play of a random game is
    /// worth the same with the flag on and off.
    @Test func bestPlayOfARandomGameIsTheSameInBothForms() throws {
        var o = BestPlay.Options()
        o.players = ["Ann", "Bob"]
        o.memoryBytes = 256 << 20
        o.params = [("dice", "3d3"), ("target", "6"), ("gain", "2"), ("bust", "1"), ("hold_at", "2")]
        let a = try BestPlay.solve(rulesFile: "Tests/AnalysisFixtures/random-game.lua", options: o)
        let b = try BestPlay.solve(rulesFile: "Tests/AnalysisFixtures/random-game-ordered.lua", options: o)
        for (x, y) in zip(a.wins, b.wins) { #expect(abs(x - y) < 1e-9, "\(a.wins) against \(b.wins)") }
    }
}
