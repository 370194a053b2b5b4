import Foundation
import Testing

/// `dicehost report`: its figures against values worked out here by other means, its
/// answers to bad input, and the JSON it writes.
@Suite(.serialized) struct ReportCommandTests {
    /// Runs `report` into a fresh folder; the page, the JSON (parsed) and the result.
    func report(_ arguments: [String], budget: Int = 20) throws -> (result: CommandResult, json: [String: Any]?, html: String?, folder: String) {
        let folder = NSTemporaryDirectory() + "dicehost-report-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let page = folder + "/page.html", json = folder + "/figures.json"
        let result = try runDicehost(["report"] + arguments + ["-o", page, "--json", json, "--budget", String(budget)])
        let object = (try? Data(contentsOf: URL(fileURLWithPath: json))).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        return (result, object, try? String(contentsOfFile: page, encoding: .utf8), folder)
    }

    func section(_ json: [String: Any]?, _ key: String, in part: String = "report") -> [String: Any]? {
        ((json?[part] as? [String: Any])?["sections"] as? [String: Any])?[key] as? [String: Any]
    }

    func figure(_ json: [String: Any]?, _ key: String, _ id: String, in part: String = "report") -> [String: Any]? {
        (section(json, key, in: part)?["figures"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    func value(_ json: [String: Any]?, _ key: String, _ id: String, in part: String = "report") -> Double? {
        figure(json, key, id, in: part)?["value"] as? Double
    }

    func kind(_ f: [String: Any]?) -> String? { (f?["method"] as? [String: Any])?["kind"] as? String }
    func fraction(_ f: [String: Any]?) -> String? { (f?["method"] as? [String: Any])?["fraction"] as? String }

    // MARK: Values worked out here

    /// Pig to `target` (the shipped examples/rules/pig.lua: a 1 loses the turn total,
    /// reaching the target wins at once), Ann moving first: Ann's chance when Ann holds at
    /// `annHolds` (nil: Ann plays her best) and Bob at `bobHolds`, by value iteration.
    /// v[mover][a][b][k]: Ann's chance, Ann's score a, Bob's b, the mover's turn total k.
    static func pig(target: Int, annHolds: Int?, bobHolds: Int) -> Double {
        let row = [Double](repeating: 0, count: target)
        var v = [[[[Double]]]](repeating: [[[Double]]](repeating: [[Double]](repeating: row, count: target), count: target), count: 2)
        var change = 1.0
        while change > 1e-14 {
            change = 0
            for a in 0..<target {
                for b in 0..<target {
                    for k in 0..<target {
                        if a + k < target {  // Ann to move
                            var roll = v[1][a][b][0] / 6
                            for face in 2...6 { roll += (a + k + face >= target ? 1 : v[0][a][b][k + face]) / 6 }
                            let hold = v[1][a + k][b][0]
                            let value: Double
                            if let h = annHolds { value = k >= h ? hold : roll } else { value = max(roll, hold) }
                            change = max(change, abs(value - v[0][a][b][k])); v[0][a][b][k] = value
                        }
                        if b + k < target {  // Bob to move
                            var roll = v[0][a][b][0] / 6
                            for face in 2...6 { roll += (b + k + face >= target ? 0 : v[1][a][b][k + face]) / 6 }
                            let value = k >= bobHolds ? v[0][a][b + k][0] : roll
                            change = max(change, abs(value - v[1][a][b][k])); v[1][a][b][k] = value
                        }
                    }
                }
            }
        }
        return v[0][0][0][0]
    }

    /// Race to `target` with one d6 each, Ann first: her chance, and the expected rolls.
    /// P(n): the chance that a racer first reaches the target on roll n.
    static func race(target: Int) -> (ann: Double, rolls: Double) {
        var at = [Double](repeating: 0, count: target)
        at[0] = 1
        var first: [Double] = [0]
        while at.reduce(0, +) > 1e-16 {
            var next = [Double](repeating: 0, count: target)
            var finished = 0.0
            for (score, p) in at.enumerated() where p > 0 {
                for face in 1...6 { if score + face >= target { finished += p / 6 } else { next[score + face] += p / 6 } }
            }
            first.append(finished)
            at = next
        }
        var ann = 0.0, rolls = 0.0, annNotYet = 1.0, bobNotYet = 1.0
        for n in 1..<first.count {
            // Ann's n-th roll comes before Bob's n-th.
            ann += first[n] * bobNotYet
            rolls += first[n] * bobNotYet * Double(2 * n - 1)
            annNotYet -= first[n]
            rolls += first[n] * annNotYet * Double(2 * n)
            bobNotYet -= first[n]
        }
        return (ann, rolls)
    }

    // MARK: Figures
    // A figure asserted exact gets a budget far above what it needs on a quiet machine: the
    // budget is wall time, and a loaded CI machine is several times slower.

    @Test func pigHoldAtTwentyAgainstItselfAndBestPlayAgainstItMatchValuesWorkedOutHere() throws {
                // Pig to 25 (to 100 takes minutes in a debug build): both bots hold at 20.
        let r = try report(["examples/rules/pig.lua", "--set", "target=25", "--set", "hold=20", "--players", "Ann,Bob"], budget: 300)
        #expect(r.result.status == 0, "\(r.result.stderr)")
        let bots = Self.pig(target: 25, annHolds: 20, bobHolds: 20)
        let best = Self.pig(target: 25, annHolds: nil, bobHolds: 20)
        let win = figure(r.json, "fairness", "win.Ann")
        #expect(kind(win) == "exact")
        #expect(abs((win?["value"] as? Double ?? -1) - bots) < 1e-9, "report \(String(describing: win)), by hand \(bots)")
        #expect(abs((value(r.json, "fairness", "win.Bob") ?? -1) - (1 - bots)) < 1e-9)
        let skill = figure(r.json, "skill", "best_vs_bots.Ann")
        #expect(kind(skill) == "solved")
        #expect(abs((skill?["value"] as? Double ?? -1) - best) < 1e-8, "report \(String(describing: skill)), by hand \(best)")
        #expect(abs((value(r.json, "skill", "gain.Ann") ?? -1) - (best - bots) * 100) < 1e-6)
        // The bots' own chances, through the skill section's graph, agree with the exact odds.
        let random = try #require(value(r.json, "skill", "random_vs_bots.Ann"))
        #expect(random < bots && bots < best)
        #expect((value(r.json, "decisions", "decisions.per_game") ?? 0) > 1)
        #expect(kind(figure(r.json, "drama", "lead_changes")) == "sampled")
    }

    @Test func crapsPassLineIsExact() throws {
        let r = try report(["rules/craps.lua", "--set", "rounds=1", "--players", "Ann"], budget: 30)
        #expect(r.result.status == 0, "\(r.result.stderr)")
        #expect(fraction(figure(r.json, "fairness", "win.Ann")) == "244/495")
        #expect(fraction(figure(r.json, "length", "rolls.mean")) == "557/165")
        #expect(section(r.json, "drama")?["why_not"] as? String == "one seat: there is no lead to change")
    }

    @Test func raceToTwentyFiveMatchesTheRollCountsWorkedOutHere() throws {
        let r = try report(["rules/race.lua", "--players", "Ann,Bob"], budget: 60)
        #expect(r.result.status == 0, "\(r.result.stderr)")
        let byHand = Self.race(target: 25)
        #expect(kind(figure(r.json, "fairness", "win.Ann")) == "exact")
        #expect(abs((value(r.json, "fairness", "win.Ann") ?? -1) - byHand.ann) < 1e-9, "by hand \(byHand.ann)")
        #expect(abs((value(r.json, "length", "rolls.mean") ?? -1) - byHand.rolls) < 1e-9, "by hand \(byHand.rolls)")
        #expect(section(r.json, "decisions")?["why_not"] as? String == "no player ever chooses: every position the bots reach has one legal move")
    }

    @Test func aGameTooLargeForTheBudgetIsSampledWithIntervals() throws {
        let r = try report(["rules/liars-dice.lua"], budget: 4)
        #expect(r.result.status == 0, "\(r.result.stderr)")
        let win = try #require((section(r.json, "fairness")?["figures"] as? [[String: Any]])?.first)
        let method = try #require(win["method"] as? [String: Any])
        #expect(method["kind"] as? String == "sampled")
        let lower = try #require(method["lower"] as? Double), upper = try #require(method["upper"] as? Double)
        let v = try #require(win["value"] as? Double)
        #expect(lower <= v && v <= upper && (method["games"] as? Int ?? 0) >= 200)
        #expect((section(r.json, "fairness")?["method"] as? String ?? "").hasPrefix("sampled"))
        #expect(r.html?.contains("tag sampled") == true && r.html?.contains("95% [") == true)
    }

    // MARK: Bad input

    @Test func aScriptWithoutABotGetsBestPlayAndALineForTheRest() throws {
        let rules = try writeTemporary("""
            local g0 = rules { name = "Stop", players = 2, dice = "1d6" }
            function g0.setup(g) g.state.t = 0 end
            function g0.roll(g, p, r)
              g.state.t = g.state.t + r.value
              if g.state.t >= 6 then g:win(p) end
            end
            g0.actions = { pass = function(g, p) g:next_turn() end }
            return g0
            """, name: "stop.lua")
        let r = try report([rules])
        #expect(r.result.status == 0, "\(r.result.stderr)")
        #expect((section(r.json, "fairness")?["why_not"] as? String ?? "").contains("no bot(g, p)"))
        #expect(kind(figure(r.json, "skill", "best.Player1") ?? figure(r.json, "skill", "best.Ann")) == "solved"
                || ((section(r.json, "skill")?["figures"] as? [[String: Any]])?.isEmpty == false))
        #expect(r.html?.contains("not computed: the rules have no bot(g, p)") == true)
    }

    @Test func aScriptThatDoesNotLoadStillGetsAPageAndExitsOne() throws {
        let rules = try writeTemporary("local g0 = rules { name = \"Broken\", players = 2 \nreturn g0\n", name: "broken.lua")
        let r = try report([rules], budget: 2)
        #expect(r.result.status == 1, "\(r.result)")
        #expect(r.html?.contains("not computed: the rule script does not load") == true)
        #expect(r.result.stderr.contains("nothing could be reported"))
        #expect((section(r.json, "fairness")?["why_not"] as? String ?? "").contains("broken.lua:"))
    }

    @Test func theOutputIsNeverWrittenOverTheRules() throws {
        let rules = try writeTemporary(try String(contentsOfFile: "rules/race.lua", encoding: .utf8), name: "race.lua")
        let before = try String(contentsOfFile: rules, encoding: .utf8)
        let result = try runDicehost(["report", rules, "-o", rules, "--budget", "2"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("it is the rules script"), "\(result.stderr)")
        #expect(try String(contentsOfFile: rules, encoding: .utf8) == before)
    }

    @Test func anUnwritablePlaceIsRefusedWithTheReason() throws {
        let missing = try runDicehost(["report", "rules/race.lua", "-o", "/nonexistent-\(UUID().uuidString)/page.html", "--budget", "2"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("-o: cannot write") && missing.stderr.contains("no such folder"), "\(missing.stderr)")
        let proc = try runDicehost(["report", "rules/race.lua", "--players", "Ann,Bob", "--set", "target=6", "-o", "/proc/dicehost-report.html", "--budget", "2"])
        #expect(proc.status == 1)
        #expect(proc.stderr.contains("cannot write /proc/dicehost-report.html"), "\(proc.stderr)")
    }

    @Test func anExistingFileThatIsNotAReportIsKeptWithoutForce() throws {
        let notes = try writeTemporary("my notes\n", name: "notes.html")
        let result = try runDicehost(["report", "rules/race.lua", "--set", "target=6", "-o", notes, "--budget", "2"])
        #expect(result.status == 1 && result.stderr.contains("--force replaces it"), "\(result.stderr)")
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "my notes\n")
    }

    @Test func compareAndSweepTogetherIsBadUsage() throws {
        let result = try runDicehost(["report", "rules/race.lua", "--compare", "rules/race-doubles.lua", "--sweep", "target=5..6"])
        #expect(result.status == 2, "\(result)")
    }

    // MARK: The JSON and the page

    @Test func theJSONGivesEveryFigureWithHowItWasObtained() throws {
        let r = try report(["rules/race.lua", "--set", "target=8", "--compare", "rules/race-doubles.lua"], budget: 6)
        #expect(r.result.status == 0, "\(r.result.stderr)")
        let json = try #require(r.json)
        #expect(json["format"] as? String == "dicehost-report/1")
        for part in ["report", "compare"] {
            let sections = try #require((json[part] as? [String: Any])?["sections"] as? [String: Any])
            #expect(Set(sections.keys) == ["fairness", "length", "skill", "decisions", "drama", "health"])
            for (key, value) in sections {
                let s = try #require(value as? [String: Any])
                let computed = try #require(s["computed"] as? Bool)
                #expect(computed ? s["method"] is String : s["why_not"] is String, "\(key)")
                for f in s["figures"] as? [[String: Any]] ?? [] {
                    #expect(f["id"] is String && f["label"] is String && ["probability", "number", "count"].contains(f["unit"] as? String ?? ""))
                    let method = try #require(f["method"] as? [String: Any])
                    switch method["kind"] as? String {
                    case "exact": #expect(method["fraction"] == nil || method["fraction"] is String)
                    case "solved": #expect(method["tolerance"] is Double || method["tolerance"] is NSNull)
                    case "sampled": #expect(method["games"] is Int && method["lower"] != nil && method["upper"] != nil)
                    case "counted": break
                    default: Issue.record("\(key): a figure with no method: \(f)")
                    }
                }
            }
        }
        let differences = try #require(json["differences"] as? [[String: Any]])
        let win = try #require(differences.first { $0["id"] as? String == "win.Player 1" || ($0["id"] as? String ?? "").hasPrefix("win.") })
        let a = try #require(win["a"] as? Double), b = try #require(win["b"] as? Double), d = try #require(win["difference"] as? Double)
        #expect(abs(b - a - d) < 1e-12)
        let html = try #require(r.html)
        #expect(html.hasPrefix("<!DOCTYPE html>\n<!-- dicehost report:"))
        #expect(html.contains("B − A") && html.contains("name=\"viewport\""))
        #expect(!html.contains("<script") && !html.contains("<link") && !html.contains("@import") && !html.contains("url("))
    }

    @Test func aSweepDrawsEachSeatsChanceByTheParam() throws {
        let r = try report(["examples/rules/pig.lua", "--set", "hold=4", "--sweep", "target=6..10:2"], budget: 8)
        #expect(r.result.status == 0, "\(r.result.stderr)")
        let sweep = try #require(section(r.json, "fairness")?["sweep"] as? [String: Any])
        #expect(sweep["param"] as? String == "target")
        #expect((sweep["rows"] as? [[String: Any]])?.map { $0["value"] as? Int } == [6, 8, 10])
        #expect(r.html?.contains("Each seat&#39;s chance by target") == true || r.html?.contains("chance by target") == true)
    }

    @Test func healthCountsTheRuleTestsAndTheLinesTheyNeverRun() throws {
        let r = try report(["rules/craps.lua", "--players", "Ann", "--set", "rounds=1"], budget: 20)
        let passed = try #require(value(r.json, "health", "tests.passed"))
        #expect(passed >= 17 && value(r.json, "health", "tests.failed") == 0, "\(String(describing: section(r.json, "health")))")
        #expect(value(r.json, "health", "coverage.lines") ?? 0 > 0)
        #expect(value(r.json, "health", "fuzz.inputs") ?? 0 > 0 && value(r.json, "health", "fuzz.found") == 0)
    }
}
