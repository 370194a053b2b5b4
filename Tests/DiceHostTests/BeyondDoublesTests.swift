import Foundation
import Testing
@testable import DiceHost

/// A game whose chances doubles cannot hold is refused in doubles with a message that
/// says so and names the flag that solves it, not an "internal error".
@Suite struct BeyondDoublesTests {
    /// A 1 slides back three rungs, a 2 climbs one: the ladder loses ground on average, so
    /// from its bottom the top is reached with a chance far below a double's precision.
    static let losingLadder = """
        local ladder = rules { name = "Losing ladder", players = 1, dice = "1d2", params = { size = 200 } }
        function ladder.setup(g) g.state.at = 0 end
        function ladder.roll(g, p, r)
          local s = g.state
          if r.value == 1 then s.at = math.max(0, s.at - 3) else s.at = s.at + 1 end
          if s.at == g.params.size then g:win(p) end
        end
        return ladder
        """

    @Test func doublesThatCannotHoldTheChancesSaySoAndNameExactFractions() throws {
        let file = try temporaryRules(Self.losingLadder, name: "losing-ladder.lua")
        var options = Odds.Options()
        options.precision = .double
        do {
            _ = try Odds.analyse(rulesFile: file, options: options)
            Issue.record("a 200-rung losing ladder was solved in doubles")
        } catch let error as OddsError {
            guard case .beyondDoubles = error else {
                Issue.record("expected the doubles-precision error, got: \(error)")
                return
            }
            #expect("\(error)".contains("--precision exact"))
            #expect(!"\(error)".contains("internal error"))
        }
    }
}
