import Foundation
import Testing

@Suite struct TestCommandTests {
    @Test func shippedExampleTranscriptsPass() throws {
        let result = try runDicehost(["test", "examples/rules/tests"])
        #expect(result.status == 0, "\(result.stdout)")
        let count = (try FileManager.default.contentsOfDirectory(atPath: packageRoot.path + "/examples/rules/tests")).filter { $0.hasSuffix(".txt") }.count
        #expect(count >= 4)
        #expect(result.stdout.hasSuffix("\(count) passed, 0 failed\n"), "\(result.stdout)")
    }

    @Test func aWrongExpectationFailsWithADiff() throws {
        let rules = packageRoot.appendingPathComponent("examples/rules/pig.lua").path
        let path = try writeTemporary("""
            # A wrong expectation: the roll was a 5.
            rules: \(rules)
            players: Ann, Bob
            seed: 1

            turn Ann
            say Ann to roll (score 0)
            > roll 5
            roll Ann ⚅
            led blink 5 green on=100ms cycle=50ms count=3 priority=0

            """, name: "wrong.txt")
        let result = try runDicehost(["test", path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL \(path)"))
        #expect(result.stdout.contains("- roll Ann ⚅\n"))
        #expect(result.stdout.contains("+ roll Ann ⚄\n"))
        #expect(result.stdout.hasSuffix("0 passed, 1 failed\n"))
        let update = try runDicehost(["test", "--update", path])
        #expect(update.status == 0)
        #expect(try runDicehost(["test", path]).stdout.hasSuffix("1 passed, 0 failed\n"))
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("# A wrong expectation: the roll was a 5."))
    }

    @Test func aMalformedHeaderNamesFileAndLine() throws {
        let path = try writeTemporary("rules: x.lua\nplayrs: Ann\n\n> roll\n", name: "bad.txt")
        let result = try runDicehost(["test", path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL \(path):2: unknown header key 'playrs' (use rules, players, seed, set)"))
    }
}
