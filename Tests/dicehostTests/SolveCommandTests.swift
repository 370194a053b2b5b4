import Foundation
import Testing

@Suite struct SolveCommandTests {
    @Test func pigToTenReportsEachSeatTheTolerancePositionsTimeAndMemory() throws {
        let result = try runDicehost(["solve", "examples/rules/pig.lua", "--set", "target=10", "--players", "Ann,Bob", "--json"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let wins = try #require(object["winsBySeat"] as? [Double])
        #expect(wins.count == 2 && abs(wins[0] + wins[1] - 1) < 1e-9 && wins[0] > 0.5)
        #expect(object["converged"] as? Bool == true)
        #expect((object["residual"] as? Double ?? 1) <= (object["tolerance"] as? Double ?? 0))
        #expect((object["states"] as? Int ?? 0) > 100)
        #expect(object["processMemoryPeak"] as? Int ?? 0 > 0)
        #expect(object["exploreSeconds"] != nil && object["solveSeconds"] != nil)
    }

    @Test func textNamesTheSeatsAndTheFirstMove() throws {
        let result = try runDicehost(["solve", "examples/rules/pig.lua", "--set", "target=10", "--players", "Ann,Bob", "--quiet"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("best play: each player maximises their own chance of winning"))
        #expect(result.stdout.contains("Ann             0.") && result.stdout.contains("Bob             0."), "\(result.stdout)")
        #expect(result.stdout.contains("best first move: roll"))
    }

    @Test func theStateLimitAndBadOptionsAreClearErrors() throws {
        let limited = try runDicehost(["solve", "examples/rules/pig.lua", "--max-states", "10", "--quiet"])
        #expect(limited.status == 1)
        #expect(limited.stderr.contains("more than 10 positions") && limited.stderr.contains("dicehost sim"), "\(limited)")
        let bad = try runDicehost(["solve", "examples/rules/pig.lua", "--max-memory", "lots"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--max-memory takes a size such as 8G"), "\(bad)")
    }
}
