import Foundation
import Testing

/// The game's memory cap holds for a script however it is run: a script's load-time code
/// and its setup hook, each building a string of about 100 MB under pcall, are refused
/// inside the script by `check`, `odds`, `solve`, `fuzz` and `sim` as by `play` (an
/// analysis used to give the analysed game a heap of gigabytes).
@Suite struct GameMemoryCapCommandTests {
    static let probe = "Tests/LuaTests/Fixtures/memory-cap-probe.lua"

    static func expectCapHeld(_ result: CommandResult, sourceLocation: SourceLocation = #_sourceLocation) {
        let output = result.stdout + result.stderr
        #expect(!output.contains("memory cap did not hold"), "\(output)", sourceLocation: sourceLocation)
        #expect(result.status == 0, "\(output)", sourceLocation: sourceLocation)
    }

    @Test func checkRefusesTheProbesAndAnalysesTheGame() throws {
        let result = try runDicehost(["check", Self.probe])
        Self.expectCapHeld(result)
        #expect(result.stdout.contains("analysable by `dicehost odds`"), "\(result.stdout)")
    }

    @Test func oddsRefusesTheProbes() throws {
        Self.expectCapHeld(try runDicehost(["odds", Self.probe, "--players", "Ann,Bob"]))
    }

    @Test func solveRefusesTheProbes() throws {
        Self.expectCapHeld(try runDicehost(["solve", Self.probe, "--players", "Ann,Bob", "--quiet"]))
    }

    @Test func fuzzRefusesTheProbes() throws {
        Self.expectCapHeld(try runDicehost(["fuzz", Self.probe, "--inputs", "6", "--seed", "1", "--threads", "1"]))
    }

    @Test func simRefusesTheProbes() throws {
        Self.expectCapHeld(try runDicehost(["sim", Self.probe, "--games", "3", "--seed", "1", "--threads", "1"]))
    }
}
