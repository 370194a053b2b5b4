import Lua
import Testing

/// The host's own chunks (the prelude, the game runtime) load once compiled, without
/// debug info, into every state; a script never does (issue 32: an idle room's memory).
@Suite struct LuaHostChunkTests {
    @Test func aHostChunkLoadsWithoutDebugInfoAndStillCountsItsParameters() throws {
        let lua = try makeState()
        let chunk = try lua.loadHostChunk("return function(g, viewer) return viewer end", chunkName: "dicehost-test-params")
        let function = try #require(try lua.call(.function(chunk)).first)
        // Names are debug info; the count is not (a view hook's second parameter is how
        // the host knows a view depends on its viewer).
        #expect(lua.parameters(of: function)?.names == ["?", "?"])
        #expect(lua.parameters(of: function)?.isVararg == false)
        let script = try lua.load("return function(g, viewer) return viewer end", chunkName: "rules.lua")
        let scripted = try #require(try lua.call(.function(script)).first)
        #expect(lua.parameters(of: scripted)?.names == ["g", "viewer"])
    }

    @Test func anErrorInsideAHostChunkIsLocatedAtTheScriptsLine() throws {
        let lua = try makeState()
        let chunk = try lua.loadHostChunk("return function(t) return t.x end", chunkName: "dicehost-test-error")
        let helper = try #require(try lua.call(.function(chunk)).first)
        lua.set(lua.globals, "helper", helper)
        let error = try #require(expectError(lua, "local a = 1\nlocal b = helper(nil)\nreturn b"))
        #expect(error.file == "test.lua")
        #expect(error.line == 2)
        #expect(error.message.hasPrefix("attempt to index a nil value"))
        #expect(!error.message.contains("-1"))
        #expect(error.traceback?.contains("dicehost-test-error") == true)
    }

    @Test func aHostChunkWhoseSourceChangedIsCompiledAgain() throws {
        let lua = try makeState()
        let first = try lua.loadHostChunk("return 1", chunkName: "dicehost-test-changed")
        #expect(try lua.call(.function(first)) == [.integer(1)])
        let second = try lua.loadHostChunk("return 2", chunkName: "dicehost-test-changed")
        #expect(try lua.call(.function(second)) == [.integer(2)])
        let other = try makeState()
        let again = try other.loadHostChunk("return 2", chunkName: "dicehost-test-changed")
        #expect(try other.call(.function(again)) == [.integer(2)])
    }

    @Test func onlyChunksNamedAsTheHostsLoadWithoutDebugInfo() throws {
        let lua = try makeState()
        #expect(throws: LuaError.self) { try lua.loadHostChunk("return 1", chunkName: "rules/race.lua") }
    }

    @Test func aScriptStillCannotLoadABinaryChunk() throws {
        let lua = try makeState()
        let results = try lua.run("return load('\\27Lua\\84\\0')", chunkName: "test.lua")
        #expect(results.first == .nil)
        #expect(results.dropFirst().first?.description.contains("binary") == true)
    }
}
