import Foundation
import Testing

@Suite struct DiceCommandTests {
    @Test func printsTheTableWithFractionsAndChart() throws {
        let result = try runDicehost(["dice", "2d6"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "2d6: 11 totals, mean 7.0000, sd 2.4152")
        let seven = try #require(lines.first { $0.hasPrefix("    7 ") })
        #expect(seven.contains("1/6") && seven.contains("0.166667") && seven.contains("0.583333") && seven.hasSuffix(String(repeating: "█", count: 40)))
    }

    @Test func jsonExactHasExactCountsAndTheMassLeftOut() throws {
        let result = try runDicehost(["dice", "1d6!", "--depth", "1", "--json", "--exact"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["denominator"] as? String == "36")
        #expect(object["left_out_count"] as? String == "1")
        let outcomes = try #require(object["outcomes"] as? [String: Any])
        #expect(outcomes["total"] as? [Int] == [1, 2, 3, 4, 5, 7, 8, 9, 10, 11])
        #expect((outcomes["fraction"] as? [String])?.first == "1/6")
    }

    /// Issue 35, item 10: `--json` gives decimals (100d1000 printed ~95 MB of exact
    /// fractions); the exact counts and fractions come with `--exact`, and --help says what each costs.
    @Test func jsonGivesDecimalsAndExactFractionsOnlyOnRequest() throws {
        let plain = try runDicehost(["dice", "20d100", "--json"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        let outcomes = try #require(object["outcomes"] as? [String: Any])
        #expect(object["version"] as? Int == 2)
        #expect(Set(outcomes.keys) == ["total", "probability", "at_least", "at_most"])
        #expect(outcomes.values.allSatisfy { ($0 as? [Any])?.count == 1981 })
        #expect(object["denominator"] == nil && object["left_out_count"] == nil)
        #expect(plain.stdout.utf8.count < 80 * 1981, "\(plain.stdout.utf8.count) bytes")
        let exact = try runDicehost(["dice", "20d100", "--json", "--exact"])
        let exactObject = try #require(try JSONSerialization.jsonObject(with: Data(exact.stdout.utf8)) as? [String: Any])
        #expect(exactObject["denominator"] as? String == "1" + String(repeating: "0", count: 40))
        let exactOutcomes = try #require(exactObject["outcomes"] as? [String: Any])
        #expect((exactOutcomes["count"] as? [String])?.first == "1")
        #expect((exactOutcomes["fraction"] as? [String])?.first == "1/1" + String(repeating: "0", count: 40))
        #expect(exact.stdout.utf8.count > 2 * plain.stdout.utf8.count)  // 20d100: 470 kB against 217 kB
        let help = try runDicehost(["dice", "--help"])
        #expect(help.stdout.contains("--exact") && help.stdout.contains("95 MB") && help.stdout.contains("6 MB"), "\(help.stdout)")
    }

    @Test func badNotationIsAUsageError() throws {
        let result = try runDicehost(["dice", "3x6"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("bad dice notation '3x6': missing 'd'"))
    }
}

@Suite struct OddsCommandTests {
    @Test func crapsPassLine() throws {
        let result = try runDicehost(["odds", "rules/craps.lua", "--set", "rounds=1", "--players", "Ann"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Ann wins        0.4929292929   244/495"), "\(result.stdout)")
        #expect(result.stdout.contains("expected rolls 3.375758 (557/165)"))
    }

    @Test func compareGivesExactDifferences() throws {
        let result = try runDicehost(["odds", "rules/race.lua", "--set", "target=5", "--compare", "rules/race-doubles.lua", "--json"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [String: Any]])
        let a = try #require(object["a"]?["wins"] as? [String: [String: Any]])
        #expect(a["Ann"]?["fraction"] as? String == "1161769/1679616")
        #expect(object["b"]?["last_roll_in_state"] as? Bool == true)  // the doubles variant reads r.previous
    }

    @Test func notAnalysableExitsOneAndSaysWhy() throws {
        let result = try runDicehost(["odds", "rules/snap.lua", "--quiet"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("rules/snap.lua: not analysable: setup drew random numbers"), "\(result)")
    }

    @Test func theStateLimitPointsToSim() throws {
        let result = try runDicehost(["odds", "rules/race.lua", "--max-states", "10", "--quiet"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("more than 10 positions") && result.stderr.contains("dicehost sim") && result.stderr.contains("positions found"), "\(result)")
    }
}
