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
        #expect(install.stdout.contains("with dicehost-server: 'dicehost serve' works"), "\(install.stdout)")
        #expect(install.stdout.contains("\(prefix)/bin is not on a new login shell's PATH"), "\(install.stdout)")
        // Found by name on a PATH with only the prefix and the system folders.
        let onPath = try run("/usr/bin/env", ["dicehost", "check", "examples/rules/pig.lua"], path: "\(prefix)/bin:/usr/bin:/bin")
        #expect(onPath.status == 0, "\(onPath)")
        #expect(onPath.stdout.hasPrefix("examples/rules/pig.lua: ok\n"), "\(onPath.stdout)")
        #expect(FileManager.default.fileExists(atPath: "\(prefix)/lib/dicehost/DiceHost_DiceHostServer.resources/Web/index.html"))
        #expect(FileManager.default.isExecutableFile(atPath: "\(prefix)/lib/dicehost/dicehost-server"))
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
        #expect(unbuilt.status == 1 && unbuilt.stderr.contains("install: no built dicehost in no/such/build (run 'make play' or 'make build' first)"), "\(unbuilt)")
    }

    /// A home folder as Debian makes one for a new user (/etc/skel's ~/.profile), or an empty one.
    func temporaryHome(withSkeletonProfile: Bool) throws -> String {
        let home = try temporaryPrefix()
        if withSkeletonProfile {
            let profile = (try? String(contentsOfFile: "/etc/skel/.profile", encoding: .utf8))
                ?? "if [ -d \"$HOME/.local/bin\" ] ; then\n    PATH=\"$HOME/.local/bin:$PATH\"\nfi\n"
            try profile.write(toFile: home + "/.profile", atomically: true, encoding: .utf8)
        }
        return home
    }

    /// What a new login shell of that home finds (only HOME kept, as at a login).
    func loginShellFinds(home: String) throws -> String {
        try runProgram("/usr/bin/env", ["-i", "HOME=\(home)", "bash", "-lc", "command -v dicehost"]).stdout
    }

    @Test func aUsersInstallIsFoundByTheirNextLoginShell() throws {
        let home = try temporaryHome(withSkeletonProfile: true)
        let install = try runProgram("/bin/bash", ["scripts/install.sh", "\(home)/.local", ".build/debug"],
                                     environment: ["HOME": home, "PATH": "/usr/bin:/bin"])
        #expect(install.status == 0, "\(install)")
        #expect(install.stdout.contains("a new login shell finds it: open a new terminal (or log in again) and type dicehost"), "\(install.stdout)")
        #expect(try loginShellFinds(home: home) == "\(home)/.local/bin/dicehost\n")
    }

    /// Root's ~/.profile has no ~/.local/bin clause: the installer says so, and what it says to add works.
    @Test func anInstallOffTheLoginPathSaysExactlyWhatToAdd() throws {
        let home = try temporaryHome(withSkeletonProfile: false)
        let prefix = try temporaryPrefix()
        let install = try runProgram("/bin/bash", ["scripts/install.sh", prefix, ".build/debug"],
                                     environment: ["HOME": home, "PATH": "/usr/bin:/bin"])
        #expect(install.status == 0, "\(install)")
        #expect(try loginShellFinds(home: home) == "")
        let advice = "echo 'export PATH=\"\(prefix)/bin:$PATH\"' >> \(home)/.profile"
        #expect(install.stdout.contains("\(prefix)/bin is not on a new login shell's PATH\nto put it there: \(advice)   (then log in again)"), "\(install.stdout)")
        #expect(try runProgram("/bin/bash", ["-c", advice]).status == 0)
        #expect(try loginShellFinds(home: home) == "\(prefix)/bin/dicehost\n")
    }

    @Test func anInstallWithoutTheServerSaysHowToGetServe() throws {
        let built = try temporaryPrefix()
        try FileManager.default.copyItem(atPath: packageRoot.appendingPathComponent(".build/debug/dicehost").path, toPath: built + "/dicehost")
        let prefix = try temporaryPrefix()
        let install = try runProgram("/bin/bash", ["scripts/install.sh", prefix, built], environment: ["HOME": prefix, "PATH": "/usr/bin:/bin"])
        #expect(install.status == 0, "\(install)")
        #expect(install.stdout.contains("without dicehost-server: 'dicehost serve' needs it; 'make server' builds it (several minutes), then 'make install' again"), "\(install.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(prefix)/lib/dicehost") == ["dicehost"])
    }
}
