import Foundation
import Testing

@Suite struct PlayCommandTests {
    let session = "roll\nroll\nhold\nroll\nroll 1\nroll\nroll\nroll\nhold\nstate\nlog\n"

    @Test func sameSeedAndInputsGiveTheSameLogInSeparateProcesses() throws {
        let first = try runDicehost(["play", "examples/rules/pig.lua", "--seed", "77", "--players", "Ann,Bob,Cy"], input: session)
        let second = try runDicehost(["play", "examples/rules/pig.lua", "--seed", "77", "--players", "Ann,Bob,Cy"], input: session)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == second.stdout)
        #expect(first.stdout.contains("[0ms] roll Ann"))
        let other = try runDicehost(["play", "examples/rules/pig.lua", "--seed", "78", "--players", "Ann,Bob,Cy"], input: session)
        #expect(other.stdout != first.stdout)
    }

    @Test func pipedSessionPrintsEventsAndClearErrors() throws {
        let result = try runDicehost(["play", "examples/rules/pig.lua", "--seed", "1"], input: "roll 4\nfly\nroll 9\nroll 1 2\nhold\n")
        #expect(result.status == 0)
        #expect(result.stdout == """
            Pig: Ann, Bob
            turn Ann
            say Ann to roll (score 0)
            roll Ann ⚃
            led blink 4 green on=100ms cycle=50ms count=3 priority=0
            error: unknown command 'fly' (try 'help')
            error: a 6-sided die cannot show 9
            error: roll needs 1 value for 1d6, got 2
            say Ann holds at 4
            turn Bob
            say Bob to roll (score 0)

            """)
    }

    @Test func aRuleErrorIsShownAndMakesTheExitStatusOne() throws {
        let path = try writeTemporary("""
            local r = rules { name = "Broken", players = 1 }
            function r.roll(g, p, roll)
              if roll.value == 6 then error("six is not allowed") end
              g:say("rolled %d", roll.value)
            end
            return r
            """)
        let result = try runDicehost(["play", path, "--seed", "1"], input: "roll 6\nroll 2\n")
        #expect(result.status == 1)
        #expect(result.stdout.contains("error: \(path):3: six is not allowed\n"))
        #expect(result.stdout.hasSuffix("roll Ann ⚁\nsay rolled 2\n"))
    }

    @Test func noSeedPrintsTheOneChosen() throws {
        let result = try runDicehost(["play", "examples/rules/pig.lua"], input: "")
        #expect(result.stdout.hasPrefix("seed "))
    }

    @Test func aScriptThatDoesNotLoadExitsThree() throws {
        let path = try writeTemporary("return 1 +")
        let result = try runDicehost(["play", path], input: "")
        #expect(result.status == 3)
        #expect(result.stderr.contains("\(path):1:"))
    }
}

@Suite struct AutoAndRecordTests {
    @Test(arguments: ["rules/race.lua", "rules/race-doubles.lua", "rules/snap.lua"])
    func botsPlayEveryShippedGameToTheEnd(_ rules: String) throws {
        let result = try runDicehost(["play", rules, "--auto", "--seed", "3", "--players", "Ann,Bob,Cy"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").last?.hasPrefix("win ") == true, "\(result.stdout.suffix(200))")
    }

    @Test func crapsBotPlaysOneDecisionWithRoundsOne() throws {
        let result = try runDicehost(["play", "rules/craps.lua", "--auto", "--seed", "3", "--players", "Ann", "--set", "rounds=1"])
        let last = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last == "win Ann" || last == "draw", "\(last)")
    }

    @Test func aRecordedSessionIsAPassingRuleTest() throws {
        let record = try writeTemporary("", name: "recorded.txt")
        let rules = packageRoot.appendingPathComponent("rules/craps.lua").path
        let played = try runDicehost(["play", rules, "--seed", "4", "--players", "Ann", "--record", record],
                                     input: "roll 2 2\nfly\nroll 3 4\n")
        #expect(played.status == 0)
        let text = try String(contentsOfFile: record, encoding: .utf8)
        #expect(text.contains("> roll 2 2\n"))
        #expect(text.contains("> roll 3 4\n"))
        #expect(!text.contains("fly"))  // a typo changes nothing, so it is not recorded
        let tested = try runDicehost(["test", record])
        #expect(tested.stdout.hasSuffix("1 passed, 0 failed\n"), "\(tested.stdout)")
    }
}
