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

/// Pig to `target` with each seat holding at its own turn total (a roll that reaches the
/// target wins at once; a 1 loses the turn total): the first seat's chance of winning, by
/// value iteration over (whose turn, both scores, turn total), written apart from DiceHost.
func pigFirstSeatWins(target: Int, holds: [Int]) -> Double {
    let n = target
    func index(_ turn: Int, _ a: Int, _ b: Int, _ t: Int) -> Int { ((turn * n + a) * n + b) * n + t }
    var w = [Double](repeating: 0, count: 2 * n * n * n)
    var change = 1.0
    while change > 1e-15 {
        change = 0
        for turn in 0..<2 { for a in 0..<n { for b in 0..<n { for t in 0..<n {
            let mine = turn == 0 ? a : b
            guard mine + t < n else { continue }
            let value: Double
            if t > 0 && t >= holds[turn] {
                value = turn == 0 ? w[index(1, a + t, b, 0)] : w[index(0, a, b + t, 0)]
            } else {
                var sum = w[index(1 - turn, a, b, 0)]  // a 1
                for face in 2...6 {
                    if mine + t + face >= n { sum += turn == 0 ? 1 : 0 } else { sum += w[index(turn, a, b, t + face)] }
                }
                value = sum / 6
            }
            change = max(change, abs(value - w[index(turn, a, b, t)]))
            w[index(turn, a, b, t)] = value
        } } } }
    }
    return w[index(0, 0, 0, 0)]
}

@Suite struct OddsVersusPolicyCommandTests {
    @Test func aPolicyModuleInEachSeatAgainstTheBot() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vs-policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let policy = folder.appendingPathComponent("hold2.lua").path
        try "return { move = function(g, p) if g.state.turn_total >= 2 then return \"hold\" end end }\n"
            .write(toFile: policy, atomically: true, encoding: .utf8)
        let result = try runDicehost(["odds", "examples/rules/pig.lua", "--set", "target=8", "--set", "hold=4",
                                      "--players", "Ann,Bob", "--vs", policy, "--json", "--quiet"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let rows = try #require(object["policyInSeat"] as? [[Double]])
        let bots = try #require(object["botOnly"] as? [Double])
        let policyFirst = pigFirstSeatWins(target: 8, holds: [2, 4])
        let policySecond = pigFirstSeatWins(target: 8, holds: [4, 2])
        let botsOnly = pigFirstSeatWins(target: 8, holds: [4, 4])
        #expect(abs(rows[0][0] - policyFirst) < 1e-9, "\(rows[0][0]) vs \(policyFirst)")
        #expect(abs(rows[1][1] - (1 - policySecond)) < 1e-9, "\(rows[1][1]) vs \(1 - policySecond)")
        #expect(abs(bots[0] - botsOnly) < 1e-9, "\(bots[0]) vs \(botsOnly)")
        let text = try runDicehost(["odds", "examples/rules/pig.lua", "--set", "target=8", "--vs", policy, "--quiet"])
        #expect(text.stdout.contains("policy vs bot  bot vs bot     gained"), "\(text)")
    }

    @Test func aMissingOrBadModuleIsAClearError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vs-policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let missing = folder.appendingPathComponent("none.lua").path
        let gone = try runDicehost(["odds", "examples/rules/pig.lua", "--set", "target=6", "--vs", missing, "--quiet"])
        #expect(gone.status == 1 && gone.stderr.contains("no such file") && gone.stderr.contains("solve RULES --policy"), "\(gone)")
        let broken = folder.appendingPathComponent("broken.lua").path
        try "return {move = function(g, p) return \"hold\" end".write(toFile: broken, atomically: true, encoding: .utf8)
        let syntax = try runDicehost(["odds", "examples/rules/pig.lua", "--set", "target=6", "--vs", broken, "--quiet"])
        #expect(syntax.status == 1 && syntax.stderr.contains("does not load"), "\(syntax)")
        let number = folder.appendingPathComponent("number.lua").path
        try "return 42".write(toFile: number, atomically: true, encoding: .utf8)
        let notTable = try runDicehost(["odds", "examples/rules/pig.lua", "--set", "target=6", "--vs", number, "--quiet"])
        #expect(notTable.status == 1 && notTable.stderr.contains("returns number, expected a table with a function move(g, p)"), "\(notTable)")
        let illegal = folder.appendingPathComponent("illegal.lua").path
        try "return {move = function(g, p) return \"fold\" end}".write(toFile: illegal, atomically: true, encoding: .utf8)
        let wrong = try runDicehost(["odds", "examples/rules/pig.lua", "--set", "target=6", "--vs", illegal, "--quiet"])
        #expect(wrong.status == 1 && wrong.stderr.contains("answered 'fold', which is not a legal move"), "\(wrong)")
        let bad = try runDicehost(["odds", "examples/rules/pig.lua", "--vs", "nobody"])
        #expect(bad.status == 2 && bad.stderr.contains("or a policy module FILE.lua"), "\(bad)")
    }
}
