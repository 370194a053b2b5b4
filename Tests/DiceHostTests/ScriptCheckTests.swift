import DiceHost
import Testing

@Suite struct ScriptCheckTests {
    @Test func checkRunsTheScriptInTheSandbox() throws {
        let summary = try ScriptCheck.check(path: "rules/hello.lua")
        #expect(summary.contains("keys in order: a b c"))
    }
}
