import Foundation
import Lua
import Testing

/// `require` finds rule scripts inside the rules' folder only: no absolute paths, no
/// `..`, no symlink that leads out, and nothing but regular files (a FIFO would block).
@Suite struct LuaRequireConfinementTests {
    /// A temporary rules folder with `main.lua` and a secret beside it (outside).
    func folder() throws -> (rules: String, outside: String) {
        let root = NSTemporaryDirectory() + "dicehost-require-\(UUID().uuidString)"
        let rules = root + "/rules"
        try FileManager.default.createDirectory(atPath: rules + "/lib", withIntermediateDirectories: true)
        try "return 'secret text'".write(toFile: root + "/secret.lua", atomically: true, encoding: .utf8)
        try "return 'fine'".write(toFile: rules + "/lib/ok.lua", atomically: true, encoding: .utf8)
        return (rules, root)
    }

    func requireError(_ name: String, in rules: String) throws -> String {
        let lua = try makeState()
        lua.moduleDirectory = rules
        do {
            let chunk = try lua.load("return require(...)", chunkName: rules + "/main.lua")
            let results = try lua.call(.function(chunk), [.string(name)])
            return "loaded: \(results)"
        } catch let error as LuaError {
            return error.message
        }
    }

    @Test func aModuleInsideTheFolderLoads() throws {
        let (rules, _) = try folder()
        let lua = try makeState()
        lua.moduleDirectory = rules
        #expect(try lua.run("return require 'lib.ok'", chunkName: rules + "/main.lua") == [.string("fine")])
    }

    @Test(arguments: ["../secret", "/etc/passwd", "..secret", "lib..ok", "", "a/b", "lib.ok.", ".lib"])
    func namesThatCouldLeaveTheFolderAreRefused(_ name: String) throws {
        let (rules, _) = try folder()
        let message = try requireError(name, in: rules)
        #expect(message.contains("bad module name"), "\(message)")
        #expect(!message.contains("secret text"))
    }

    @Test func aSymlinkThatLeadsOutIsRefused() throws {
        let (rules, outside) = try folder()
        try FileManager.default.createSymbolicLink(atPath: rules + "/escape.lua", withDestinationPath: outside + "/secret.lua")
        try FileManager.default.createSymbolicLink(atPath: rules + "/up", withDestinationPath: outside)
        #expect(try requireError("escape", in: rules).contains("leads outside the rules' folder"))
        #expect(try requireError("up.secret", in: rules).contains("leads outside the rules' folder"))
        // A symlink that stays inside is fine.
        try FileManager.default.createSymbolicLink(atPath: rules + "/alias.lua", withDestinationPath: rules + "/lib/ok.lua")
        #expect(try requireError("alias", in: rules) == "loaded: [fine]")
    }

    @Test func aModuleThatIsNotARegularFileIsRefusedWithoutBlocking() throws {
        let (rules, _) = try folder()
        #expect(mkfifo(rules + "/pipe.lua", 0o600) == 0)
        try FileManager.default.createDirectory(atPath: rules + "/dir.lua", withIntermediateDirectories: true)
        #expect(try requireError("pipe", in: rules).contains("not a regular file"))
        #expect(try requireError("dir", in: rules).contains("not a regular file"))
    }
}
