import Foundation
import Testing
@testable import DiceHost

/// A game whose chances doubles cannot hold is refused in doubles with a message that
/// says so and names the flag that solves it, not an "internal error".
@Suite struct BeyondDoublesTests {
    /// A 1 slides back three rungs, a 2 climbs one: the ladder loses ground on average, so
    /// from its bottom the top is reached with a chance far below a double's precision.
    static let losingLadder = SparseChainSolverTests.ladder(dice: "1d2", back: 3, climb: 1, size: 200)

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
