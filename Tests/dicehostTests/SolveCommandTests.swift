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

    /// A game with secrets from the command line: the equilibrium's report, --open's label,
    /// a sweep under the equilibrium, and a bad target.
    @Test func aGameWithSecretsIsSolvedAsOneAndSaysSo() throws {
        let rules = "examples/rules/liars-dice-openspiel.lua"
        let text = try runDicehost(["solve", rules, "--set", "faces=3", "--exploitability", "1e-3", "--quiet"])
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.contains("best play with secrets: a Nash equilibrium over what each seat has been shown"))
        #expect(text.stdout.contains("perfect recall") && text.stdout.contains("the game's value for Ann lies in ["))
        let open = try runDicehost(["solve", rules, "--set", "faces=3", "--open", "--quiet"])
        #expect(open.status == 0 && open.stdout.contains("everyone sees everything (--open)"), "\(open)")
        let sweep = try runDicehost(["solve", rules, "--sweep", "faces=2..3", "--exploitability", "1e-3", "--quiet", "--json"])
        #expect(sweep.status == 0, "\(sweep)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(sweep.stdout.utf8)) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.count == 2 && object["secrets"] as? Bool == true)
        for row in rows { #expect((row["exploitability"] as? Double ?? 1) <= 1e-3) }
        // With two faces the sixes-wild rule makes every cup hold a match half the time: Ann, first to bid, is ahead.
        let two = try #require((rows.first?["wins"] as? [String: Double])?["Ann"])
        #expect(two > 0.6)
        let bad = try runDicehost(["solve", rules, "--exploitability", "0", "--quiet"])
        #expect(bad.status == 2 && bad.stderr.contains("--exploitability must be between 0 and 1"), "\(bad)")
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

@Suite struct SolveExplainCommandTests {
    /// Optimal Pig to `target` with a die of `sides` (a 1 loses the turn total; a roll that
    /// reaches the target wins at once; hold banks it, legal at any turn total), written
    /// here: for each (my score, the opponent's), the smallest turn total at which holding
    /// is strictly better than rolling (nil: never).
    func pigHoldThresholds(target n: Int, sides: Int) -> [[Int?]] {
        var p = [[[Double]]](repeating: [[Double]](repeating: [Double](repeating: 0, count: n), count: n), count: n)
        func roll(_ i: Int, _ j: Int, _ t: Int) -> Double {
            var sum = 1 - p[j][i][0]
            for face in 2...sides { sum += i + t + face >= n ? 1 : p[i][j][t + face] }
            return sum / Double(sides)
        }
        func hold(_ i: Int, _ j: Int, _ t: Int) -> Double { 1 - p[j][i + t][0] }
        var change = 1.0
        while change > 1e-15 {
            change = 0
            for i in 0..<n { for j in 0..<n { for t in 0..<(n - i) {
                let v = max(roll(i, j, t), hold(i, j, t))
                change = max(change, abs(v - p[i][j][t]))
                p[i][j][t] = v
            } } }
        }
        // Turn totals a turn reaches: 0 and sums of faces 2...sides (never 1).
        return (0..<n).map { i in (0..<n).map { j in
            (0..<(n - i)).first { t in t != 1 && hold(i, j, t) > roll(i, j, t) + 1e-9 }
        } }
    }

    @Test func pigsHoldThresholdByBothScoresMatchesAValueIterationWrittenHere() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("explain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Pig with a three-sided die: a 1 in three busts, so best play holds.
        let pig = try String(contentsOfFile: "examples/rules/pig.lua", encoding: .utf8)
        #expect(pig.contains("dice = \"1d6\""))
        let rules = folder.appendingPathComponent("pig3.lua").path
        try pig.replacingOccurrences(of: "dice = \"1d6\"", with: "dice = \"1d3\"").write(toFile: rules, atomically: true, encoding: .utf8)
        let result = try runDicehost(["solve", rules, "--set", "target=12", "--explain", "--json", "--quiet"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let explain = try #require(object["explain"] as? [String: Any])
        #expect(explain["action"] as? String == "hold" && explain["turnField"] as? String == "turn_total" && explain["scoreField"] as? String == "score")
        let cells = try #require(explain["threshold"] as? [String: [String: [String: Any]]])
        let expected = pigHoldThresholds(target: 12, sides: 3)
        var compared = 0, holding = 0
        for (i, row) in cells {
            for (j, cell) in row {
                let mine = try #require(Int(i)), theirs = try #require(Int(j))
                let at = cell["at"] as? Int
                #expect(at == expected[mine][theirs], "my score \(mine), theirs \(theirs): \(String(describing: at)) vs \(String(describing: expected[mine][theirs]))")
                compared += 1
                if at != nil { holding += 1 }
            }
        }
        #expect(compared > 50 && holding > 0, "\(compared) cells, \(holding) that hold")
        let text = try runDicehost(["solve", rules, "--set", "target=12", "--explain", "--quiet"])
        #expect(text.stdout.contains("best play: hold once turn_total reaches the number shown, by score"), "\(text.stdout)")
        #expect(text.stdout.contains("me \\ opp"))
    }

    @Test func explainSaysWhyBestPlayOfPigToASmallTargetNeverHolds() throws {
        // The value iteration written here agrees: with a six-sided die and a target of 12,
        // rolling on is never worse than holding.
        #expect(pigHoldThresholds(target: 12, sides: 6).allSatisfy { $0.allSatisfy { $0 == nil } })
        let result = try runDicehost(["solve", "examples/rules/pig.lua", "--set", "target=12", "--explain", "--quiet"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("best play never holds: wherever a player decides, rolling on wins at least as often as 'hold'"), "\(result.stdout)")
        #expect(result.stdout.contains("in this game it never does"))
        #expect(!result.stdout.contains("me \\ opp"), "no table of dashes: \(result.stdout)")
    }

    @Test func otherGamesGetTheBestMovesByEachFieldsValue() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("explain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // One decision: bet 1, 2 or 3 (6 refused), then one roll wins when at most the bet.
        let rules = folder.appendingPathComponent("onebet.lua").path
        try """
            local game = rules { name = "One bet", players = 1, choices = { bet = {1, 2, 3, 6} } }
            function game.setup(g) g.state.bet = 0 end
            game.actions = {
              bet = function(g, p, k)
                if g.state.bet > 0 then error("you have bet already", 0) end
                if k > 3 then error("the most you may bet is 3", 0) end
                g.state.bet = k
              end,
            }
            function game.roll(g, p, r)
              if g.state.bet == 0 then error("bet first", 0) end
              if r.value <= g.state.bet then g:win(p) else g:lose(p) end
            end
            return game
            """.write(toFile: rules, atomically: true, encoding: .utf8)
        let result = try runDicehost(["solve", rules, "--explain", "--json", "--quiet"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let byField = try #require((object["explain"] as? [String: Any])?["byField"] as? [String: [String: [String: Int]]])
        // Before a bet the best is bet 3 (1/2); after any bet the only move is the roll.
        #expect(byField["state.bet"] == ["0": ["bet 3": 1], "1": ["roll": 1], "2": ["roll": 1], "3": ["roll": 1]], "\(byField)")
        let text = try runDicehost(["solve", rules, "--explain", "--quiet"])
        #expect(text.stdout.contains("by the value of each field") && text.stdout.contains("state.bet:"), "\(text.stdout)")
    }
}

@Suite struct SimSweepCommandTests {
    @Test func rowsEqualSeparateStudiesAndContainTheExactOdds() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sim-sweep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let chart = folder.appendingPathComponent("pig.svg").path
        let swept = try runDicehost(["sim", "examples/rules/pig.lua", "--set", "target=10", "--sweep", "hold=2..8:3",
                                     "--games", "20000", "--seed", "11", "--threads", "2", "--json", "--chart", chart])
        #expect(swept.status == 0, "\(swept)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(swept.stdout.utf8)) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.map { $0["hold"] as? Int } == [2, 5, 8])
        var spreads: [Double] = []
        for row in rows {
            let hold = try #require(row["hold"] as? Int)
            let wins = try #require(row["wins"] as? [String: Double])
            let intervals = try #require(row["intervals"] as? [String: [Double]])
            // The same seed alone gives the same counts.
            let single = try runDicehost(["sim", "examples/rules/pig.lua", "--set", "target=10", "--set", "hold=\(hold)",
                                          "--games", "20000", "--seed", "11", "--json"])
            let one = try #require(try JSONSerialization.jsonObject(with: Data(single.stdout.utf8)) as? [String: Any])
            let counts = try #require((one["result"] as? [String: Any])?["wins"] as? [Int])
            #expect(abs((wins["Ann"] ?? 0) - Double(counts[0]) / 20000) < 1e-12 && abs((wins["Bob"] ?? 0) - Double(counts[1]) / 20000) < 1e-12)
            // The exact odds lie in each 95% interval (at this seed), and the interval is about ±1.96·sqrt(pq/n).
            let exact = try runDicehost(["odds", "examples/rules/pig.lua", "--set", "target=10", "--set", "hold=\(hold)", "--json", "--quiet"])
            let odds = try #require(try JSONSerialization.jsonObject(with: Data(exact.stdout.utf8)) as? [String: Any])
            let exactWins = try #require(odds["wins"] as? [String: [String: Any]])
            for name in ["Ann", "Bob"] {
                let p = try #require(exactWins[name]?["decimal"] as? Double), range = try #require(intervals[name])
                #expect(range[0] <= p && p <= range[1], "hold \(hold) \(name): exact \(p) outside \(range)")
                let half = 1.96 * (p * (1 - p) / 20000).squareRoot()
                #expect(abs((range[1] - range[0]) / 2 - half) < 0.001, "hold \(hold) \(name): \(range)")
            }
            spreads.append(abs((wins["Ann"] ?? 0) - (wins["Bob"] ?? 0)))
        }
        let fairest = try #require(spreads.indices.min { spreads[$0] < spreads[$1] })
        #expect(rows.indices.filter { rows[$0]["fairest"] as? Bool == true } == [fairest])
        // One chart drawing for odds and sim: a line per seat and a bar per seat and row.
        let svg = try String(contentsOfFile: chart, encoding: .utf8)
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse())
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 2)
        #expect(svg.contains("fair 50%") && svg.contains(">hold</text>") && svg.contains("95% intervals"))
        let text = try runDicehost(["sim", "examples/rules/pig.lua", "--set", "target=10", "--sweep", "hold=2..4:2", "--games", "500", "--seed", "3"])
        #expect(text.status == 0 && text.stdout.contains("Ann [95%]") && text.stdout.contains("<- fairest") && text.stdout.contains("mean rolls"), "\(text.stdout)")
        let lonely = try runDicehost(["sim", "examples/rules/pig.lua", "--chart", chart])
        #expect(lonely.status == 2 && lonely.stderr.contains("--chart draws a --sweep"), "\(lonely)")
        let mixed = try runDicehost(["sim", "examples/rules/pig.lua", "--sweep", "hold=2..4", "--compare", "examples/rules/pig.lua"])
        #expect(mixed.status == 2 && mixed.stderr.contains("--sweep does not combine with --compare"), "\(mixed)")
    }
}
