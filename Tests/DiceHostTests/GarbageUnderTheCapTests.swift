import Foundation
import Testing
@testable import DiceHost

/// The game's memory cap counts what a script holds, not garbage the collector has not
/// reached yet. Under an analysis the positions the host keeps in the same Lua heap make
/// the collector wait for a heap twice their size, and garbage alone passed the cap:
/// `solve` of Pig to 100 stopped at `g:record` after 220,000 positions.
@Suite struct GarbageUnderTheCapTests {
    @Test func garbageUnderAnAnalysisIsCollectedBeforeTheCapRefusesARecord() throws {
        var options = BestPlay.Options()
        options.players = ["Ann", "Bob"]
        options.params = [("target", "30")]
        // A cap the positions alone would pass several times over.
        options.memoryBytes = 2 << 20
        let result = try BestPlay.solve(rulesFile: "examples/rules/pig.lua", options: options)
        #expect(result.states > 15_000)
    }
}
