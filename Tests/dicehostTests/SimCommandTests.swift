import Foundation
import Testing

@Suite struct SimCommandTests {
    @Test func reportsWinRatesLengthsAndMetrics() throws {
        let result = try runDicehost(["sim", "rules/craps.lua", "--games", "2000", "--seed", "4", "--players", "Ann", "--set", "rounds=1", "--threads", "2"])
        #expect(result.status == 0, "\(result)")
        let out = result.stdout
        #expect(out.hasPrefix("Craps (rules/craps.lua, rounds=1): 2000 games, seed 4, players Ann;"))
        #expect(out.contains("  Ann wins "))
        #expect(out.contains("  losses/draws "))  // one player: the house's win
        #expect(out.contains("rolls per game: mean "))
        #expect(out.contains("  won "))
        #expect(!out.contains("seed 4\n"))  // a given seed is not echoed on its own line
    }

    @Test func withoutASeedOneIsChosenAndPrinted() throws {
        let result = try runDicehost(["sim", "rules/race.lua", "--games", "50"])
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").first?.hasPrefix("seed ") == true)
    }

    @Test func shardsWrittenAsJSONMergeIntoTheWholeRun() throws {
        let dir = NSTemporaryDirectory() + "dicehost-shards-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let common = ["sim", "rules/race-doubles.lua", "--games", "600", "--seed", "11", "--json"]
        let whole = try runDicehost(common)
        #expect(whole.status == 0, "\(whole)")
        var files: [String] = []
        for i in 1...2 {
            let part = try runDicehost(common + ["--shard", "\(i)/2", "--threads", "1"])
            #expect(part.status == 0)
            files.append(dir + "/part-\(i).json")
            try part.stdout.write(toFile: files.last!, atomically: true, encoding: .utf8)
        }
        let merged = try runDicehost(["sim", "merge", "--json"] + files.reversed())
        #expect(merged.status == 0, "\(merged)")
        #expect(try stripTimes(merged.stdout) == stripTimes(whole.stdout))
        let text = try runDicehost(["sim", "merge", files[0]])
        #expect(text.stderr.contains("do not cover games 300..<600 of 600"))
        let twice = try runDicehost(["sim", "merge", files[0], files[0]])
        #expect(twice.status == 1)
        #expect(twice.stderr.contains("overlapping"))
        try "{}".write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        let bad = try runDicehost(["sim", "merge", dir + "/bad.json"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("bad.json: not a simulation result: 'result' is missing"))
    }

    @Test func compareSaysWhetherTheDifferenceIsSignificant() throws {
        let result = try runDicehost(["sim", "rules/race.lua", "--compare", "rules/race-doubles.lua", "--games", "3000", "--seed", "2"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("A: Race to Space (rules/race.lua): 3000 games"))
        #expect(result.stdout.contains("B: Race to Space (doubles) (rules/race-doubles.lua): 3000 games"))
        let annRow = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("Ann wins") })
        #expect(annRow.hasSuffix("significant"))
    }

    @Test func badArgumentsAreUsageErrorsAndBrokenRulesExitThree() throws {
        let shard = try runDicehost(["sim", "rules/craps.lua", "--shard", "3/2"])
        #expect(shard.status == 2)
        #expect(shard.stderr.contains("--shard expects i/n with 1 <= i <= n <= 1048576, e.g. 3/8, got '3/2'"))
        let games = try runDicehost(["sim", "rules/craps.lua", "--games", "0"])
        #expect(games.status == 2)
        #expect(games.stderr.contains("--games must be from 1 to 1099511627776, got 0"))
        let path = try writeTemporary("local r = rules { name = 'X', players = {1, 1} }\nreturn r +\n")
        let broken = try runDicehost(["sim", path, "--games", "5"])
        #expect(broken.status == 3)
        #expect(broken.stderr.contains("script.lua:3: unexpected symbol near <eof>"))
    }

    @Test func gamesThatFailAreCountedShownWithTheirSeedAndExitOne() throws {
        let path = try writeTemporary("""
            local r = rules { name = "Flaky", players = {1, 1}, dice = "1d6" }
            function r.roll(g, p, roll)
              if roll.total == 6 then error("a six breaks it") end
              g:win(p)
            end
            return r
            """)
        let result = try runDicehost(["sim", path, "--games", "200", "--seed", "1"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("  rule errors "))
        #expect(result.stdout.contains("a six breaks it"))
        #expect(result.stdout.contains("replay it: dicehost play \(path) --seed "))
    }
}

/// The JSON without the timing fields, which differ from run to run.
func stripTimes(_ json: String) throws -> String {
    json.split(separator: "\n").filter { !$0.contains("\"seconds\"") && !$0.contains("\"gamesPerSecond\"") }.joined(separator: "\n")
}
