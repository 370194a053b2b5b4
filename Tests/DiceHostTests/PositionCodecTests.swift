import DiceHost
import Foundation
import Testing

/// The position encoder is C now (`position_codec.c`): it refuses exactly what the Lua
/// encoder refused, with the same words, in the same order when a position has two
/// faults (issue 26, item 8).
@Suite struct PositionCodecTests {
    /// The error `odds` gives for a one-player game whose setup runs `setup` (a roll then ends it).
    func refusal(setup: String, roll: String = "g:win(p)") throws -> String {
        let path = try temporaryRules("""
            local game = rules { name = "Codec", players = 1 }
            function game.setup(g)
            \(setup)
            end
            function game.roll(g, p, r) \(roll) end
            return game
            """)
        do {
            let odds = try Odds.analyse(rulesFile: path, options: options(["Ann"]))
            return "analysed: \(odds.wins[0].text)"
        } catch {
            return "\(error)"
        }
    }

    static let badKey = "(keys must be numbers, strings or booleans)"

    @Test func aTableKeyIsRefused() throws {
        #expect(try refusal(setup: "g.state.marks = {[{}] = 1}")
                == "not analysable: a table is used as a table key in the game state \(Self.badKey)")
    }

    @Test func aFunctionKeyIsRefused() throws {
        #expect(try refusal(setup: "g.state.marks = {[print] = true}")
                == "not analysable: a function is used as a table key in the game state \(Self.badKey)")
    }

    @Test func aWeakTableIsRefused() throws {
        #expect(try refusal(setup: "g.state.cache = setmetatable({}, {__mode = 'k'})")
                == "not analysable: a metatable in the game state has __gc or __mode (what it holds would depend on garbage collection)")
    }

    @Test func aMetatableThatGainedGcIsRefused() throws {
        // setmetatable refuses __gc; a field added afterwards is still seen.
        #expect(try refusal(setup: "local mt = {}; g.state.box = setmetatable({}, mt); mt.__gc = function() end")
                == "not analysable: a metatable in the game state has __gc or __mode (what it holds would depend on garbage collection)")
    }

    @Test func aBadKeyInAWeakTableIsReportedFirst() throws {
        // The Lua encoder checked a table's keys before its metatable: so does the C one.
        #expect(try refusal(setup: "local k = {}; g.state.keep = k; g.state.cache = setmetatable({[k] = 1}, {__mode = 'k'})")
                == "not analysable: a table is used as a table key in the game state \(Self.badKey)")
    }

    @Test func aPatchedRuntimeMetatableNamesTheField() throws {
        let message = try refusal(setup: "g.state.n = 0", roll: """
            g.state.n = g.state.n + 1
            if r.value == 6 then getmetatable(g).lucky = true end
            if g.state.n == 2 then g:win(p) end
            """)
        #expect(message == "not analysable: the script changed one of the runtime's metatables (field lucky), which positions do not hold")
    }

    @Test func keysOfEveryKindAndValuesOfEveryKindMakeOnePositionPerState() throws {
        // Mixed keys (integers, floats, strings, booleans) and values (floats, strings
        // with bytes "|" and "\\0", booleans, a function, a shared table, a metatable of
        // the state): three rolls, the state a function of how many sixes were seen.
        let path = try temporaryRules("""
            local game = rules { name = "Mixed", players = 1 }
            local function helper() end
            function game.setup(g)
              local shared = {n = 0}
              g.state.t = setmetatable({[1] = 1, [2.5] = "a|b\\0c", x = 0.25, [true] = false, [false] = helper,
                                        first = shared, second = shared}, {__index = shared})
              g.state.rolls = 0
            end
            function game.roll(g, p, r)
              local t = g.state.t
              g.state.rolls = g.state.rolls + 1
              if r.value == 6 then t.first.n = t.first.n + 1; t[t.first.n + 0.5] = "six" .. t.first.n end
              if g.state.rolls == 3 then
                if t.second.n >= 1 and t[1.5] == "six1" and rawget(t, false) == helper then g:win(p) else g:lose(p) end
              end
            end
            return game
            """)
        let odds = try Odds.analyse(rulesFile: path, options: options(["Ann"]))
        // P(at least one six in three rolls) = 1 - (5/6)^3 = 91/216.
        #expect(odds.wins[0].exact == Rational(91, 216))
        // Positions: the start, after 1 roll (0 or 1 six), after 2 (0, 1 or 2), and the
        // two final outcomes.
        #expect(odds.states == 1 + 2 + 3 + 2)
    }
}
