import Foundation
import Testing

/// The command line as a newcomer meets it: mistakes get an answer that says what to do.
@Suite struct FirstHourCommandTests {
    @Test func helpOfAnUnknownCommandIsAUsageError() throws {
        let unknown = try runDicehost(["help", "frobnicate"])
        #expect(unknown.status == 2, "\(unknown)")
        #expect(unknown.stderr.hasPrefix("dicehost: help: no command 'frobnicate' (the commands: play, test, sim, check"), "\(unknown.stderr)")
        #expect(unknown.stdout.isEmpty)
        let typo = try runDicehost(["help", "chek"])
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("no command 'chek': did you mean 'check'?"), "\(typo.stderr)")
        #expect(try runDicehost(["help", "check"]).status == 0)
    }

    @Test func aMistypedSubcommandSuggestsTheCommandMeant() throws {
        let result = try runDicehost(["plya", "rules/race.lua"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("dicehost: no command 'plya': did you mean 'play'?"), "\(result.stderr)")
    }

    @Test func checkFailsWhenABotGameRunsIntoAHookError() throws {
        let rules = try writeTemporary("""
            local r = rules { name = "Typo", players = {2, 2}, dice = "1d6" }
            function r.setup(g) end
            function r.roll(g, p, roll)
              if roll.value == 6 then g:nextturn() end
              g:next_turn()
            end
            return r
            """, name: "typo.lua")
        let result = try runDicehost(["check", rules])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("\(rules): loads, but a bot game fails"), "\(result.stdout)")
        #expect(result.stdout.contains("error: a bot game failed at move "), "\(result.stdout)")
        #expect(result.stdout.contains("typo.lua:4: attempt to call a nil value (method 'nextturn')"), "\(result.stdout)")
        #expect(result.stdout.contains("(to see it: dicehost play \(rules) --players "), "\(result.stdout)")
    }

    @Test func checkPlaysTheShippedGamesBotsWithoutError() throws {
        for rules in ["rules/race.lua", "rules/snap.lua", "examples/rules/pig.lua"] {
            let result = try runDicehost(["check", rules])
            #expect(result.status == 0, "\(rules): \(result)")
            #expect(result.stdout.contains("bot games: 3 seeds played without an error"), "\(rules): \(result.stdout)")
        }
    }

    @Test func oddsOfAGameItCannotAnalysePointsToSim() throws {
        let result = try runDicehost(["odds", "rules/snap.lua"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("rules/snap.lua: not analysable"), "\(result.stderr)")
        #expect(result.stderr.contains("estimate the odds by simulation instead: dicehost sim rules/snap.lua"), "\(result.stderr)")
    }

    /// A test that goes wrong early in a long output: the diff is cut, but the actual
    /// line where it went wrong (here an error) is shown, and so is the way to accept it.
    @Test func aFailingRuleTestShowsTheLineThatFailedAndNamesUpdate() throws {
        let rules = try writeTemporary("""
            local r = rules { name = "Chatty", players = {1, 1}, dice = "1d6" }
            function r.setup(g) end
            function r.roll(g, p, roll)
              for i = 1, 60 do g:say("line %d of %d", i, roll.value) end
              if roll.value == 3 then error("three is not allowed here") end
            end
            return r
            """, name: "chatty.lua")
        let expected = (1...60).map { "say line \($0) of 2" }.joined(separator: "\n")
        let folder = URL(fileURLWithPath: rules).deletingLastPathComponent().path
        let test = folder + "/long.txt"
        try """
            rules: chatty.lua
            players: Ann
            seed: 1

            turn Ann
            > roll 3
            roll Ann ⚂
            \(expected)

            """.write(toFile: test, atomically: true, encoding: .utf8)
        let result = try runDicehost(["test", test])
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL \(test) (the output of '> roll 3' differs)"), "\(result.stdout)")
        #expect(result.stdout.contains("+ error: chatty.lua:5: three is not allowed here"), "\(result.stdout)")
        #expect(result.stdout.contains("(if the new output is right: dicehost test --update \(test))"), "\(result.stdout)")
        #expect(result.stdout.split(separator: "\n").count < 60, "the diff is still cut: \(result.stdout)")
    }
}
