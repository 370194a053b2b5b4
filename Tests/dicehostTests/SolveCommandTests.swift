import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
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

@Suite struct OddsVersusSolverCommandTests {
    @Test func theBotAgainstBestPlayPerSeat() throws {
        let result = try runDicehost(["odds", "examples/rules/pig.lua", "--set", "target=12", "--set", "hold=4", "--vs", "solver", "--quiet"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("bot vs best    best vs best   given away"), "\(result.stdout)")
        let bad = try runDicehost(["odds", "examples/rules/pig.lua", "--vs", "nobody"])
        #expect(bad.status == 2 && bad.stderr.contains("--vs takes 'solver'"), "\(bad)")
    }
}

@Suite struct OddsSweepCommandTests {
    @Test func sweepRowsEqualSeparateRunsAndTheChartIsXML() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let chart = folder.appendingPathComponent("pig.svg").path
        let swept = try runDicehost(["odds", "examples/rules/pig.lua", "--sweep", "target=6..10:2", "--json", "--chart", chart, "--quiet"])
        #expect(swept.status == 0, "\(swept)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(swept.stdout.utf8)) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.map { $0["target"] as? Int } == [6, 8, 10])
        #expect(rows.filter { $0["fairest"] as? Bool == true }.count == 1)
        for row in rows {
            let target = try #require(row["target"] as? Int)
            let single = try runDicehost(["odds", "examples/rules/pig.lua", "--set", "target=\(target)", "--json", "--quiet"])
            let one = try #require(try JSONSerialization.jsonObject(with: Data(single.stdout.utf8)) as? [String: Any])
            let oneWins = try #require(one["wins"] as? [String: [String: Any]])
            let rowWins = try #require(row["wins"] as? [String: Double])
            for (name, win) in rowWins {
                let expected = try #require(oneWins[name]?["decimal"] as? Double)
                #expect(abs(win - expected) < 1e-12, "target \(target) \(name): sweep \(win), odds \(expected)")
            }
        }
        // The chart parses as XML, with a line per seat and the fair line.
        let svg = try String(contentsOfFile: chart, encoding: .utf8)
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 2)
        #expect(svg.contains("fair 50%") && svg.contains(">target</text>"))
        let text = try runDicehost(["odds", "examples/rules/pig.lua", "--sweep", "target=6..8:2", "--quiet"])
        #expect(text.stdout.contains("<- fairest") && text.stdout.contains("| marks 50%"), "\(text.stdout)")
    }
}
