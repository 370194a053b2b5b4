@testable import DiceHost
import Testing

/// One edit distance for every "did you mean": REPL commands, `dicehost` commands and rule
/// fields judge a typo alike.
@Suite struct EditDistanceTests {
    @Test func aSwapOfNeighboursIsOneEdit() {
        #expect(NearestWord.editDistance(Array("stauts"), Array("status")) == 1)
        #expect(NearestWord.editDistance(Array("estpu"), Array("setup")) == 2)
        #expect(NearestWord.editDistance(Array(""), Array("roll")) == 4)
        #expect(NearestWord.editDistance(Array("roll"), Array("roll")) == 0)
    }

    @Test func aRuleFieldWithTwoSwapsStillNamesItsHook() {
        // Two swaps: four edits by plain Levenshtein, two here, as a REPL command's typo would be.
        #expect(RuleSet.nearestField(to: "estpu") == "setup")
        #expect(NearestWord.to("estpu", among: ["setup"]) == "setup")
    }

    @Test func aDecoratedHookNameIsItsHook() {
        #expect(RuleSet.nearestField(to: "turn_start") == "turn")
        #expect(RuleSet.nearestField(to: "on_rol") == "roll")
        #expect(RuleSet.nearestField(to: "handle_views") == "view")
    }

    @Test func aHelperFarFromEveryFieldIsNoTypo() {
        #expect(RuleSet.nearestField(to: "move") == nil)
        #expect(RuleSet.nearestField(to: "score_of") == nil)
    }
}
