import Foundation
import Testing

@Suite struct OddsTurnsCommandTests {
    /// P(a game of Pig to `target`, both seats holding at a turn total of `hold`, lasts
    /// exactly k turns, the first included), moved turn by turn over (whose turn, both
    /// scores, turn total), written here apart from DiceHost.
    func pigTurns(target n: Int, hold: Int) -> [Double] {
        var result = [Double](repeating: 0, count: 2)
        var level: [[Int]: Double] = [[0, 0, 0, 0]: 1]
        var k = 1
        while !level.isEmpty && k < 5000 {
            var next: [[Int]: Double] = [:]
            for t in 0..<n {
                for (key, m) in level where key[3] == t {
                    level[key] = nil
                    let turn = key[0], a = key[1], b = key[2], mine = turn == 0 ? a : b
                    if t > 0 && t >= hold {  // hold: the other seat's turn begins
                        next[turn == 0 ? [1, a + t, b, 0] : [0, a, b + t, 0], default: 0] += m
                        continue
                    }
                    next[[1 - turn, a, b, 0], default: 0] += m / 6  // a 1
                    for face in 2...6 {
                        if mine + t + face >= n {
                            while result.count <= k { result.append(0) }
                            result[k] += m / 6
                        } else {
                            level[[turn, a, b, t + face], default: 0] += m / 6
                        }
                    }
                }
            }
            level = next.filter { $0.value > 1e-300 }
            k += 1
        }
        return result
    }

    @Test func theDistributionOfTurnsMatchesATurnByTurnCountWrittenHere() throws {
        let result = try runDicehost(["odds", "examples/rules/pig.lua", "--set", "target=10", "--set", "hold=4",
                                      "--players", "Ann,Bob", "--json", "--quiet"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let turns = try #require(object["turns_distribution"] as? [String: Any])
        let probability = try #require(turns["probability"] as? [Double])
        let expected = pigTurns(target: 10, hold: 4)
        #expect(expected.count > 10)
        for k in 0..<max(probability.count, expected.count) {
            let got = k < probability.count ? probability[k] : 0, want = k < expected.count ? expected[k] : 0
            #expect(abs(got - want) < 1e-10, "\(k) turns: \(got) vs \(want)")
        }
        func quantile(_ q: Double) -> Int? {
            var total = 0.0
            for (k, p) in expected.enumerated() { total += p; if total >= q - 1e-12 { return k } }
            return nil
        }
        #expect(turns["median"] as? Int == quantile(0.5) && turns["percentile90"] as? Int == quantile(0.9))
        let text = try runDicehost(["odds", "examples/rules/pig.lua", "--set", "target=10", "--set", "hold=4", "--quiet"])
        #expect(text.stdout.contains("turns per game: median \(quantile(0.5) ?? -1), 90th percentile \(quantile(0.9) ?? -1)"), "\(text.stdout)")
    }
}
