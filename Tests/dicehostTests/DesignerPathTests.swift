import Foundation
import Testing

/// A designer's first hour (issue 45): `serve` runs the separate server program,
/// `test --update` does not learn a rule error, and the messages name what went wrong where.
@Suite struct DesignerPathTests {
    /// dicehost alone in a fresh folder (as `make play` builds it), with `server` beside it if given.
    func lonelyDicehost(server: String? = nil) throws -> String {
        let folder = NSTemporaryDirectory() + "dicehost-alone-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: packageRoot.appendingPathComponent(".build/debug/dicehost").path, toPath: folder + "/dicehost")
        if let server {
            try server.write(toFile: folder + "/dicehost-server", atomically: true, encoding: .utf8)
            #expect(chmod(folder + "/dicehost-server", 0o755) == 0)
        }
        return folder + "/dicehost"
    }

    @Test func serveWithoutTheServerProgramSaysHowToBuildItAndExitsTwo() throws {
        let dicehost = try lonelyDicehost()
        let result = try runProgram(dicehost, ["serve", "rules", "--port", "0"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("dicehost: serve needs \((dicehost as NSString).deletingLastPathComponent)/dicehost-server, which is not built: in the dicehost folder run 'make server'"), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "\(result.stdout)")
    }

    @Test func serveReplacesItselfWithTheServerProgramKeepingArgumentsAndProcess() throws {
        // The stand-in prints its arguments and whether its process id is the one dicehost had.
        let dicehost = try lonelyDicehost(server: "#!/bin/sh\necho \"server: $*\"\nexit 7\n")
        let result = try runProgram(dicehost, ["serve", "rules", "--port", "0", "--store", "none"])
        #expect(result.status == 7, "\(result)")
        #expect(result.stdout == "server: rules --port 0 --store none\n", "\(result.stdout)")
    }

    @Test func serveChecksItsOptionsBeforeRunningTheServer() throws {
        let dicehost = try lonelyDicehost(server: "#!/bin/sh\necho ran\n")
        let result = try runProgram(dicehost, ["serve", "rules", "--port", "70000"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("--port must be from 0 to 65535, got 70000"), "\(result.stderr)")
        #expect(!result.stdout.contains("ran"), "\(result.stdout)")
        let help = try runDicehost(["help", "serve"])
        #expect(help.status == 0)
        for option in ["--port", "--store", "--lease", "--allow-origin", "--watch"] {
            #expect(help.stdout.contains(option), "\(option): \(help.stdout)")
        }
    }

    /// A rule script whose roll hook fails on a 6, and a test of it that expects a quiet 6.
    func brokenRulesAndTest() throws -> (rules: String, test: String) {
        let rules = try writeTemporary("""
            local r = rules { name = "Broken", players = {1, 1}, dice = "1d6" }
            function r.roll(g, p, roll)
              if roll.value == 6 then local t = nil; return t.oops end
              if roll.value == 1 then error("not a 1", 0) end
            end
            return r
            """, name: "broken.lua")
        let test = (rules as NSString).deletingLastPathComponent + "/six.txt"
        try "rules: broken.lua\nplayers: Ann\nseed: 1\n\nturn Ann\n> roll 6\n> roll 1\n".write(toFile: test, atomically: true, encoding: .utf8)
        return (rules, test)
    }

    @Test func updateRefusesToRecordARuleErrorAndSaysWhy() throws {
        let (_, test) = try brokenRulesAndTest()
        let before = try String(contentsOfFile: test, encoding: .utf8)
        let result = try runDicehost(["test", "--update", test])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("FAIL \(test): not updated: a rule hook failed, and --update would record that as expected output"), "\(result.stdout)")
        #expect(result.stdout.contains("broken.lua:3: attempt to index a nil value"), "\(result.stdout)")
        #expect(result.stdout.contains("dicehost test --update --accept-errors \(test)"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("0 passed, 1 failed\n"), "\(result.stdout)")
        #expect(try String(contentsOfFile: test, encoding: .utf8) == before)
    }

    @Test func updateWithAcceptErrorsRecordsTheRuleError() throws {
        let (_, test) = try brokenRulesAndTest()
        let result = try runDicehost(["test", "--update", "--accept-errors", test])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("updated \(test)"), "\(result.stdout)")
        let text = try String(contentsOfFile: test, encoding: .utf8)
        #expect(text.contains("error: broken.lua:3: attempt to index a nil value"), "\(text)")
        // A refusal (error with level 0) is not a rule failure: it was recorded as well.
        #expect(text.contains("error: not a 1"), "\(text)")
        #expect(try runDicehost(["test", test]).status == 0)
        let alone = try runDicehost(["test", "--accept-errors", test])
        #expect(alone.status == 2 && alone.stderr.contains("--accept-errors goes with --update"), "\(alone)")
    }

    @Test func updateRecordsARefusalWithoutBeingAsked() throws {
        let (_, test) = try brokenRulesAndTest()
        try "rules: broken.lua\nplayers: Ann\nseed: 1\n\nturn Ann\n> roll 1\n".write(toFile: test, atomically: true, encoding: .utf8)
        let result = try runDicehost(["test", "--update", test])
        #expect(result.status == 0, "\(result)")
        #expect(try String(contentsOfFile: test, encoding: .utf8).contains("error: not a 1"))
    }

    @Test func newWritesATestThatChecksNoRuleErrorHappens() throws {
        let folder = NSTemporaryDirectory() + "dicehost-new-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let made = try runDicehost(["new", "dice-duel", "--folder", folder])
        #expect(made.status == 0, "\(made)")
        let test = try String(contentsOfFile: folder + "/tests/dice-duel/first-turns.txt", encoding: .utf8)
        let header = test.components(separatedBy: "\n\n")[0]
        #expect(header.contains("# check: no-rule-error"), "\(test)")
        let run = try runDicehost(["test", folder + "/tests"])
        #expect(run.status == 0 && run.stdout.hasSuffix("1 passed, 0 failed\n"), "\(run)")
        // Break the roll hook: the test fails on the check, and --update will not accept it.
        let script = folder + "/dice-duel.lua"
        let source = try String(contentsOfFile: script, encoding: .utf8)
        let broken = source.replacingOccurrences(of: "function game.roll(g, p, r)", with: "function game.roll(g, p, r)\n  if r.value == 5 then return nil .. 1 end")
        #expect(broken != source, "the template's roll hook is no longer written as 'function game.roll(g, p, r)'")
        try broken.write(toFile: script, atomically: true, encoding: .utf8)
        let failing = try runDicehost(["test", "--update", folder + "/tests"])
        #expect(failing.status == 1, "\(failing)")
        #expect(failing.stdout.contains("no-rule-error"), "\(failing.stdout)")
    }

    @Test func checkNamesTheFailingHookAndPlaysAsAnnAndBob() throws {
        let rules = try writeTemporary("""
            local r = rules { name = "Typo", players = {2, 4}, dice = "1d6", actions = {} }
            function r.setup(g) end
            function r.roll(g, p, roll)
              g:next_turn()
            end
            function r.actions.hold(g, p)
              g:nextturn()
            end
            function r.bot(g, p)
              return "hold"
            end
            return r
            """, name: "typo.lua")
        let result = try runDicehost(["check", rules])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("error: a bot game failed at move 1, Ann's, in action hold: "), "\(result.stdout)")
        #expect(result.stdout.contains("--players Ann,Bob --seed 1 --auto"), "\(result.stdout)")
    }

    @Test func aMisspelledHookIsReportedWhereItIsDefined() throws {
        let rules = try writeTemporary("""
            local r = rules { name = "Misspelt", players = {1, 1}, dice = "1d6" }
            function r.roll(g, p, roll) end

            function r.stauts(g)
              return "hi"
            end
            return r
            """, name: "misspelt.lua")
        let result = try runDicehost(["check", rules])
        #expect(result.stdout.contains("warning: unknown rule field 'stauts' (\(rules):4): the host never calls it; did you mean 'status'?"), "\(result.stdout)")
    }

    @Test func aTickFoldsRepeatedLinesWithACount() throws {
        let rules = try writeTemporary("""
            local r = rules { name = "Ticker", players = {1, 1}, dice = "1d6" }
            function r.setup(g) timer.every(1000, function(g) g:say("tock") end) end
            function r.roll(g, p, roll) end
            return r
            """, name: "ticker.lua")
        let result = try runDicehost(["play", rules], input: "tick 5s\n")
        #expect(result.stdout.contains("say tock ×5\n"), "\(result.stdout)")
        #expect(!result.stdout.contains("say tock\nsay tock"), "\(result.stdout)")
    }

    @Test func helpOfNewIsWrappedAsParagraphs() throws {
        let result = try runDicehost(["help", "new"], environment: ["COLUMNS": "80"])
        #expect(result.status == 0)
        // The discussion's paragraphs, after the OVERVIEW line: each wrapped once, so every
        // line but a paragraph's last is nearly full (ragged: a short line in the middle).
        let paragraphs = result.stdout.components(separatedBy: "\n\n").dropFirst().prefix { !$0.hasPrefix("USAGE:") }
        #expect(paragraphs.count == 2, "\(result.stdout)")
        for paragraph in paragraphs {
            let lines = paragraph.split(separator: "\n")
            #expect(lines.count >= 2, "\(paragraph)")
            for line in lines.dropLast() { #expect(line.count > 60, "a ragged line: '\(line)'\n\(result.stdout)") }
        }
    }
}
