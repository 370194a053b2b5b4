@testable import DiceHost
import Foundation
import Testing

/// `SimulationResult.decode(json:)` refuses every hand-edited inconsistency with the field named.
@Suite struct SimulationResultDecodingTests {
    static let valid: [String: Any] = {
        var plan = Simulation.Plan(rulesFile: "examples/rules/pig.lua", players: ["Ann", "Bob"], games: 30, seed: 5)
        plan.threads = 1
        let result = (try? Simulation.run(plan)) ?? SimulationResult(study: .init(rules: "", rulesFile: "", players: [], params: [], seed: 0, games: 0, moveLimit: 0))
        let data = (try? JSONEncoder().encode(["result": result])) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }()

    /// The valid document with `edit` applied to its `result` object.
    func decode(_ edit: (inout [String: Any]) -> Void) throws -> SimulationResult {
        var result = Self.valid["result"] as? [String: Any] ?? [:]
        edit(&result)
        return try SimulationResult.decode(json: JSONSerialization.data(withJSONObject: ["result": result]))
    }

    func expectRefused(_ message: String, sourceLocation: SourceLocation = #_sourceLocation, _ edit: (inout [String: Any]) -> Void) {
        do {
            _ = try decode(edit)
            Issue.record("expected: \(message)", sourceLocation: sourceLocation)
        } catch {
            #expect("\(error)" == message, sourceLocation: sourceLocation)
        }
    }

    func study(_ r: [String: Any]) -> [String: Any] { r["study"] as? [String: Any] ?? [:] }

    @Test func theResultOfARunDecodesUnchanged() throws {
        let result = try decode { _ in }
        #expect(result.games == 30)
        #expect(result.wins.count == 2)
    }

    @Test func countsMustBeWholeNumbersFromZeroThatAddUp() {
        expectRefused("result.draws: must be from 0 to the 30 games played, got -1") { $0["draws"] = -1 }
        expectRefused("result.wins: expected 2 counts (one per player), got 3") { $0["wins"] = [10, 10, 10] }
        expectRefused("result.wins[0]: must be from 0 to the 30 games played, got -5") { r in
            var wins = r["wins"] as? [Int] ?? []; wins[0] = -5; r["wins"] = wins
        }
        expectRefused("result.games: wins, draws, errors and unfinished add up to 31, not the 30 games played") { r in
            r["errors"] = (r["errors"] as? Int ?? 0) + 1
        }
        expectRefused("result.games: is 31, but the ranges cover 30 games") { $0["games"] = 31 }
        expectRefused("result.games: expected a whole number") { $0["games"] = "thirty" }
        expectRefused("result.games: is missing") { $0["games"] = nil }
        expectRefused("result.unfinished: is null, expected a whole number") { $0["unfinished"] = NSNull() }
    }

    @Test func hugeAndNonIntegerNumbersAreRefused() {
        for bad: Any in [1.5, 1e30, "nan"] {
            do {
                _ = try decode { $0["draws"] = bad }
                Issue.record("accepted \(bad)")
            } catch let error as SimulationResult.DecodeError {
                #expect(error.field == "result.draws", "\(error)")
            } catch {
                Issue.record("\(error)")
            }
        }
        expectRefused("result.study.games: must be from 1 to 1099511627776, got 9223372036854775807") { r in
            var s = study(r); s["games"] = Int.max; r["study"] = s
        }
        expectRefused("result.seconds: must be a finite number from 0, got nan") { $0["seconds"] = "nan" }
    }

    @Test func rangesMustBePairsInsideTheStudyInOrder() {
        expectRefused("result.ranges[0]: expected [lower, upper], got 3 numbers") { $0["ranges"] = [[0, 10, 30]] }
        expectRefused("result.ranges[0]: [30, 0] is not a non-empty range of the study's games 0..<30") { $0["ranges"] = [[30, 0]] }
        expectRefused("result.ranges[0]: [0, 31] is not a non-empty range of the study's games 0..<30") { $0["ranges"] = [[0, 31]] }
        expectRefused("result.ranges[0]: [-1, 29] is not a non-empty range of the study's games 0..<30") { $0["ranges"] = [[-1, 29]] }
        expectRefused("result.ranges[1]: must start at or after the end of the range before it (20)") { $0["ranges"] = [[0, 20], [10, 30]] }
        expectRefused("result.ranges: expected a list") { $0["ranges"] = "all" }
    }

    @Test func histogramsMustCountTheGamesThatEnded() {
        expectRefused("result.rolls.5: must be a count from 0 to 30, got -2") { r in
            var rolls = r["rolls"] as? [String: Any] ?? [:]; rolls["5"] = -2; r["rolls"] = rolls
        }
        expectRefused("result.rolls.-3: a game cannot last a negative number of rolls") { r in
            var rolls = r["rolls"] as? [String: Any] ?? [:]; rolls["-3"] = 0; r["rolls"] = rolls
        }
        expectRefused("result.turns: the histogram counts 31 games, but 30 ended (won or drawn)") { r in
            var turns = r["turns"] as? [String: Int] ?? [:]; turns["999", default: 0] += 1; r["turns"] = turns
        }
        do {
            _ = try decode { r in var rolls = r["rolls"] as? [String: Any] ?? [:]; rolls["x"] = 1; r["rolls"] = rolls }
            Issue.record("accepted a histogram key that is not a number")
        } catch { #expect("\(error)".hasPrefix("result.rolls: not valid: histogram key 'x' is not an integer"), "\(error)") }
    }

    @Test func notJSONOrTheWrongShapeIsAClearError() {
        #expect(throws: SimulationResult.DecodeError.self) { try SimulationResult.decode(json: Data("{".utf8)) }
        #expect(throws: SimulationResult.DecodeError(field: "result", message: "is missing")) { try SimulationResult.decode(json: Data("{}".utf8)) }
        #expect(throws: SimulationResult.DecodeError(field: "", message: "the file is larger than 64 MiB")) {
            try SimulationResult.decode(json: Data(count: (64 << 20) + 1))
        }
    }

    @Test func shardRangesOfTheLargestStudyNeitherOverflowNorListBlocks() {
        var plan = Simulation.Plan(rulesFile: "x.lua", games: Simulation.maxGames, seed: 1)
        plan.shard = (index: Simulation.maxShards, count: Simulation.maxShards)
        #expect(Simulation.problem(with: plan) == nil)
        #expect(plan.range == (Simulation.maxGames - (1 << 20))..<Simulation.maxGames)
        #expect(Simulation.blockCount(of: 0..<Simulation.maxGames) == Simulation.maxGames / Simulation.blockSize)
        #expect(Simulation.block(Simulation.maxGames / Simulation.blockSize - 1, of: 0..<Simulation.maxGames).upperBound == Simulation.maxGames)
        plan.shard = (index: Int.max, count: Int.max)
        #expect(Simulation.problem(with: plan) == "--shard must be i/n with 1 <= i <= n <= 1048576, got 9223372036854775807/9223372036854775807")
        plan.games = Int.max
        #expect(plan.range.count >= 0)  // computed in double width, no trap
    }
}
