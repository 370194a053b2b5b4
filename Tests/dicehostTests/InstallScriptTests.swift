import Foundation
import Testing

/// `make install` (scripts/install.sh) puts the built dicehost on the PATH, with the web
/// files `serve` reads beside it, and replaces only what an earlier install made.
@Suite struct InstallScriptTests {
    /// `executable` in the package folder; with `path`, on that PATH alone.
    func run(_ executable: String, _ arguments: [String], path: String? = nil) throws -> CommandResult {
        try runProgram(executable, arguments, environment: path.map { ["PATH": $0, "HOME": NSTemporaryDirectory()] })
    }

    func temporaryPrefix() throws -> String {
        let prefix = NSTemporaryDirectory() + "dicehost-install-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: true)
        return prefix
    }

    @Test func installPutsDicehostOnThePathWithItsWebFiles() throws {
        let prefix = try temporaryPrefix()
        let install = try run("/bin/bash", ["scripts/install.sh", prefix, ".build/debug"])
        #expect(install.status == 0, "\(install)")
        #expect(install.stdout.contains("installed \(prefix)/bin/dicehost (0.1.0, from .build/debug)"), "\(install.stdout)")
        #expect(install.stdout.contains("\(prefix)/bin is not on your PATH: add it"), "\(install.stdout)")
        // Found by name on a PATH with only the prefix and the system folders.
        let onPath = try run("/usr/bin/env", ["dicehost", "check", "examples/rules/pig.lua"], path: "\(prefix)/bin:/usr/bin:/bin")
        #expect(onPath.status == 0, "\(onPath)")
        #expect(onPath.stdout.hasPrefix("examples/rules/pig.lua: ok\n"), "\(onPath.stdout)")
        #expect(FileManager.default.fileExists(atPath: "\(prefix)/lib/dicehost/DiceHost_DiceHostServer.resources/Web/index.html"))
        // Installing again replaces the earlier install and leaves no staging folder.
        #expect(try run("/bin/bash", ["scripts/install.sh", prefix, ".build/debug"]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(prefix)/lib") == ["dicehost"])
        let again = try run("/usr/bin/env", ["dicehost", "--version"], path: "\(prefix)/bin:/usr/bin:/bin")
        #expect(again.status == 0 && again.stdout == "0.1.0\n", "\(again)")
    }

    @Test func installLeavesAlonePathsItDidNotMake() throws {
        let prefix = try temporaryPrefix()
        try FileManager.default.createDirectory(atPath: "\(prefix)/lib", withIntermediateDirectories: true)
        try "someone else's".write(toFile: "\(prefix)/lib/dicehost", atomically: true, encoding: .utf8)
        let result = try run("/bin/bash", ["scripts/install.sh", prefix, ".build/debug"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("install: \(prefix)/lib/dicehost exists and is not an earlier dicehost install; move it away first"), "\(result.stderr)")
        #expect(try String(contentsOfFile: "\(prefix)/lib/dicehost", encoding: .utf8) == "someone else's")
        #expect(!FileManager.default.fileExists(atPath: "\(prefix)/bin/dicehost"))
        let unbuilt = try run("/bin/bash", ["scripts/install.sh", prefix, "no/such/build"])
        #expect(unbuilt.status == 1 && unbuilt.stderr.contains("install: no built dicehost in no/such/build (run 'make build' first)"), "\(unbuilt)")
    }
}
