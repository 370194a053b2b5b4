import Foundation
import Testing

/// `make test`'s stages (scripts/test-stage.sh): quiet when they pass, their whole output
/// when they fail, and "N passed, M failed" as the last line.
@Suite struct TestStageScriptTests {
    let script = packageRoot.appendingPathComponent("scripts/test-stage.sh").path

    func stage(_ arguments: [String], in folder: String) throws -> CommandResult {
        try runProgram("/bin/bash", [script] + arguments, in: folder)
    }

    func emptyFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "dicehost-stages-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aPassingStagePrintsOneLineAndKeepsItsOutputInTheLog() throws {
        let folder = try emptyFolder()
        #expect(try stage(["--start"], in: folder).status == 0)
        let swift = try stage(["swift-test", "bash", "-c", "echo noise; echo '✔ Test run with 812 tests in 95 suites passed after 284.000 seconds.'"], in: folder)
        #expect(swift.status == 0, "\(swift)")
        #expect(swift.stdout.hasPrefix("ok   swift-test        812 passed  ("), "\(swift.stdout)")
        #expect(swift.stdout.split(separator: "\n").count == 1, "\(swift.stdout)")
        let rules = try stage(["rule-tests", "bash", "-c", "echo FAIL nothing; echo '54 passed, 0 failed'"], in: folder)
        #expect(rules.stdout.hasPrefix("ok   rule-tests         54 passed"), "\(rules.stdout)")
        #expect(try stage(["example", "true"], in: folder).status == 0)
        let totals = try stage(["--totals"], in: folder)
        #expect(totals.stdout == "867 passed, 0 failed\n", "\(totals.stdout)")
        #expect(try String(contentsOfFile: folder + "/.build/test-logs/swift-test.log", encoding: .utf8).hasPrefix("noise\n"))
    }

    @Test func aFailingStagePrintsItsWholeOutputThenTheTotalsAndFails() throws {
        let folder = try emptyFolder()
        _ = try stage(["--start"], in: folder)
        _ = try stage(["check-lua", "bash", "-c", "echo 'check-lua: 40 Lua files parse'"], in: folder)
        let failing = try stage(["rule-tests", "bash", "-c", "echo 'FAIL rules/tests/x.txt'; echo '53 passed, 1 failed'; exit 1"], in: folder)
        #expect(failing.status == 1)
        let lines = failing.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "FAIL rules/tests/x.txt", "\(failing.stdout)")
        #expect(lines.contains { $0.hasPrefix("FAIL rule-tests (exit status 1 after ") }, "\(failing.stdout)")
        #expect(lines.last == "93 passed, 1 failed", "\(failing.stdout)")
    }
}
