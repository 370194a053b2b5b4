import BigInt
import DiceHost
import Foundation
import Testing

/// Exact means exact: what a hook can observe is in every position, however the script
/// keeps it (behind a metatable, in a player's proxy, in the last roll found by pairs),
/// and the answer never depends on the script's text (issue 26, item 0).
@Suite struct OddsExactTests {
    /// One player, two rolls: wins when a hidden "saw a six first" flag is set. 1/6.
    static let behindIndexTable = """
        local game = rules { name = "Behind __index", players = 1 }
        function game.setup(g) setmetatable(g.state, {__index = {seen = false, rolls = 0}}) end
        function game.roll(g, p, r)
          local hidden = getmetatable(g.state).__index
          hidden.rolls = hidden.rolls + 1
          if hidden.rolls == 1 then
            if r.value == 6 then hidden.seen = true end
          elseif hidden.seen then g:win(p) else g:lose(p) end
        end
        return game
        """

    /// The same kept behind an __index/__newindex proxy whose metatable is locked.
    static let behindProxy = """
        local game = rules { name = "Proxy", players = 1 }
        function game.setup(g)
          local store = {rolls = 0, seen = false}
          setmetatable(g.state, {__index = store, __newindex = store, __metatable = "locked"})
        end
        function game.roll(g, p, r)
          local s = g.state
          s.rolls = s.rolls + 1
          if s.rolls == 1 then s.seen = (r.value == 6)
          elseif s.seen then g:win(p) else g:lose(p) end
        end
        return game
        """

    @Test(arguments: [behindIndexTable, behindProxy])
    func stateBehindAMetatableOfGStateIsInThePosition(_ source: String) throws {
        let odds = try Odds.analyse(rulesFile: try temporaryRules(source), options: options(["Ann"]))
        #expect(odds.wins[0].exact == Rational(1, 6))
        #expect(odds.losses[0].exact == Rational(5, 6))
        #expect(odds.rolls?.exact == Rational(2))
    }

    @Test func aRaceCountedInAPlayersProxyEndsInFourRolls() throws {
        let path = try temporaryRules("""
            local game = rules { name = "Proxy race", players = {1, 2} }
            function game.setup(g)
              for _, p in ipairs(g.players) do
                local store = {count = 0}
                setmetatable(p, {__index = store, __newindex = store})
              end
            end
            function game.roll(g, p, r)
              p.count = p.count + 1
              if p.count == 4 then g:win(p) end
            end
            return game
            """)
        let odds = try Odds.analyse(rulesFile: path, options: options(["Ann"]))
        #expect(odds.wins[0].exact == .one)
        #expect(odds.neverEnds.exact == .zero)
        #expect(odds.rolls?.exact == Rational(4))
    }

    /// Wins when the second roll repeats the first, found without naming it.
    static func lastRollByPairs(comment: String) -> String {
        """
        local game = rules { name = "Pairs", players = 1 }
        function game.setup(g) g.state.rolls = 0 end
        function game.roll(g, p, r)
          g.state.rolls = g.state.rolls + 1 \(comment)
          if g.state.rolls == 2 then
            local last
            for k, v in pairs(r) do if type(v) == "table" and k ~= "values" then last = v end end
            if last and last.value == r.value then g:win(p) else g:lose(p) end
          end
        end
        return game
        """
    }

    @Test(arguments: ["", "-- r.previous", "-- p.last_roll"])
    func theLastRollFoundByPairsIsInThePositionWhateverTheComments(_ comment: String) throws {
        let odds = try Odds.analyse(rulesFile: try temporaryRules(Self.lastRollByPairs(comment: comment)), options: options(["Ann"]))
        #expect(odds.wins[0].exact == Rational(1, 6))
        #expect(!odds.droppedLastRoll)
    }

    @Test func theLastRollReadRawIsInThePosition() throws {
        let path = try temporaryRules("""
            local game = rules { name = "Raw", players = 1 }
            function game.setup(g) g.state.rolls = 0 end
            function game.roll(g, p, r)
              g.state.rolls = g.state.rolls + 1
              if g.state.rolls == 2 then
                local last = rawget(r, "prev" .. "ious")
                if last and rawget(last, "value") == r.value then g:win(p) else g:lose(p) end
              end
            end
            return game
            """)
        let odds = try Odds.analyse(rulesFile: path, options: options(["Ann"]))
        #expect(odds.wins[0].exact == Rational(1, 6))
    }

    @Test func aScriptThatNeverLooksAtTheLastRollKeepsItOut() throws {
        // Mentioning `previous` in a comment no longer changes anything: Pig never looks.
        let odds = try Odds.analyse(rulesFile: "examples/rules/pig.lua", options: options(["Ann", "Bob"], [("target", "10")]))
        #expect(odds.droppedLastRoll)
    }

    @Test func aPatchedRuntimeMetatableIsRefusedWithTheReason() throws {
        let path = try temporaryRules("""
            local game = rules { name = "Patched", players = 1 }
            function game.setup(g) g.state.n = 0 end
            function game.roll(g, p, r)
              g.state.n = g.state.n + 1
              if r.value == 6 then getmetatable(g).lucky = true end
              if g.state.n == 2 then if getmetatable(g).lucky then g:win(p) else g:lose(p) end end
            end
            return game
            """)
        do {
            let odds = try Odds.analyse(rulesFile: path, options: options(["Ann"]))
            Issue.record("analysed a game that patches g's metatable: \(odds.wins[0].text)")
        } catch let error as OddsError {
            #expect("\(error)".contains("changed one of the runtime's metatables"), "\(error)")
        }
    }
}

@Suite struct OddsLengthTests {
    @Test func crapsPassLineRollsHaveTheHandComputedDistribution() throws {
        // The pass line: the come-out decides with 12/36 (7, 11, 2, 3, 12); else a point
        // p is made or lost with q_p = P(p or 7) per roll. P(1 roll) = 12/36 and
        // P(n rolls) = Σ_p P(come out p) (1 − q_p)^(n − 2) q_p for n ≥ 2.
        let odds = try Odds.analyse(rulesFile: "rules/craps.lua", options: options(["Ann"], [("rounds", "1")]))
        let d = try #require(odds.rollDistribution)
        let ways = [4: 3.0, 5: 4.0, 6: 5.0, 8: 5.0, 9: 4.0, 10: 3.0]
        func byHand(_ n: Int) -> Double {
            if n == 1 { return 12.0 / 36 }
            return ways.values.reduce(0) { sum, w in let q = (w + 6) / 36; return sum + w / 36 * pow(1 - q, Double(n - 2)) * q }
        }
        for n in 1...12 { #expect(abs(d.probability[n] - byHand(n)) < 1e-12, "\(n) rolls") }
        #expect(d.probability[0] == 0 && d.unfinished < 1e-11)
        let mean = d.probability.enumerated().reduce(0) { $0 + Double($1.offset) * $1.element }
        #expect(abs(mean - 557.0 / 165) < 1e-9)
        // The median by hand: 1/3 + Σ_p P(p) q_p ≥ 1/2 at two rolls.
        #expect(byHand(1) < 0.5 && byHand(1) + byHand(2) >= 0.5 && d.median == 2)
        var total = 0.0, n = 0
        while total < 0.9 { n += 1; total += byHand(n) }
        #expect(d.percentile90 == n)
    }
}
