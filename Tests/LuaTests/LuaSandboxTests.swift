import Lua
import Testing

@Suite struct LuaSandboxTests {
    @Test(arguments: ["io", "os", "debug", "package", "dofile", "loadfile", "string.dump", "require ~= nil and package",
                      "rawget(_G, 'io')", "collectgarbage == nil"])
    func removedFunctionsAreAbsent(_ expression: String) throws {
        let lua = try makeState()
        let results = try lua.run("return \(expression)", chunkName: "t.lua")
        #expect(results.first?.isTruthy != true, "\(expression) is \(results)")
    }

    @Test func binaryChunksAreRefused() throws {
        let lua = try makeState()
        let results = try lua.run("return load('\\27Lua\\84\\0')", chunkName: "t.lua")
        #expect(results == [.nil, .string("attempt to load a binary chunk (mode is 't')")])
        #expect(throws: LuaError.self) { try lua.load("\u{1B}Lua", chunkName: "bin.lua") }
    }

    @Test func loadedChunksSeeTheSandboxNotTheRealGlobals() throws {
        let lua = try makeState()
        let results = try lua.run("return load('return io, os, print ~= nil')()", chunkName: "t.lua")
        #expect(results == [.nil, .nil, .boolean(true)])
    }

    @Test func stringMetatableIsProtected() throws {
        let lua = try makeState()
        // getmetatable('') answers as Lua's does (its __index is string), but it is a
        // read-only stand-in: the real metatable cannot be reached or changed.
        #expect(try lua.run("return getmetatable('').__index == string, type(getmetatable(''))", chunkName: "t.lua") == [.boolean(true), .string("table")])
        let error = try #require(expectError(lua, "getmetatable('').__index = {upper = function() return 'pwned' end}"))
        #expect(error.message.contains("read-only"), "\(error)")
        #expect(try lua.run("return ('abc'):upper(), ('x'):rep(3)", chunkName: "t.lua") == [.string("ABC"), .string("xxx")])
        #expect(try lua.run("return ('x').dump", chunkName: "t.lua") == [.nil])
    }

    @Test func finalizersCannotBeInstalled() throws {
        let lua = try makeState()
        let error = try #require(expectError(lua, "setmetatable({}, {__gc = function() end})"))
        #expect(error.message == "bad argument #2 to 'setmetatable' (__gc metamethods are not allowed in rule scripts)")
        #expect(try lua.run("return getmetatable(setmetatable({}, {__index = {a = 1}})).__index.a", chunkName: "t.lua") == [.integer(1)])
    }

    @Test func collectgarbageOnlyCounts() throws {
        let lua = try makeState()
        #expect(try lua.run("return collectgarbage('count') > 0", chunkName: "t.lua") == [.boolean(true)])
        #expect(expectError(lua, "collectgarbage('collect')")?.message == "bad argument #1 to 'collectgarbage' (only \"count\" is allowed in rule scripts)")
        #expect(expectError(lua, "collectgarbage()") != nil)
    }

    @Test func mathRandomUsesTheHostGenerator() throws {
        let a = try makeState(), b = try makeState()
        a.random.seed(42)
        b.random.seed(42)
        let script = "local t = {} for i = 1, 20 do t[i] = math.random(1, 6) end return table.concat(t, ','), math.random()"
        let ra = try a.run(script, chunkName: "t.lua")
        #expect(ra == (try b.run(script, chunkName: "t.lua")))
        b.random.seed(43)
        #expect(ra != (try b.run(script, chunkName: "t.lua")))
    }

    @Test func mathRandomKeepsLuaSemantics() throws {
        let lua = try makeState()
        let results = try lua.run("""
            local lo, hi = 100, 0
            for i = 1, 10000 do local r = math.random(6) lo = math.min(lo, r) hi = math.max(hi, r) end
            local f = math.random()
            return lo, hi, f >= 0 and f < 1, math.type(math.random(0)), math.random(5, 5)
            """, chunkName: "t.lua")
        #expect(results == [.integer(1), .integer(6), .boolean(true), .string("integer"), .integer(5)])
        #expect(expectError(lua, "return math.random(2, 1)")?.message == "bad argument #2 to 'random' (interval is empty)")
    }

    @Test func mathRandomseedReseedsTheHostGenerator() throws {
        let lua = try makeState()
        let results = try lua.run("math.randomseed(7) local a = math.random(1000) math.randomseed(7) return a == math.random(1000)", chunkName: "t.lua")
        #expect(results == [.boolean(true)])
    }

    @Test func pairsVisitsKeysInAFixedOrder() throws {
        let lua = try makeState()
        let results = try lua.run("""
            local t = {zeta = 1, alpha = 2, [10] = 3, [2] = 4, [1.5] = 5, mid = 6, [true] = 7, [false] = 8}
            local keys = {}
            for k in pairs(t) do keys[#keys + 1] = tostring(k) end
            return table.concat(keys, ' ')
            """, chunkName: "t.lua")
        #expect(results == [.string("1.5 2 10 alpha mid zeta false true")])
    }

    @Test func pairsToleratesClearingFieldsDuringTraversal() throws {
        let lua = try makeState()
        let results = try lua.run("""
            local t = {a = 1, b = 2, c = 3}
            local seen = {}
            for k in pairs(t) do seen[#seen + 1] = k; t.b = nil end
            return table.concat(seen, ',')
            """, chunkName: "t.lua")
        #expect(results == [.string("a,c")])
    }

    @Test func pairsHonoursThePairsMetamethod() throws {
        let lua = try makeState()
        let results = try lua.run("""
            local t = setmetatable({}, {__pairs = function(t) return function(_, k) if not k then return 1, 'one' end end, t, nil end})
            for k, v in pairs(t) do return k, v end
            """, chunkName: "t.lua")
        #expect(results == [.integer(1), .string("one")])
    }

    @Test func printGoesToTheHost() throws {
        let lua = try makeState()
        var lines: [String] = []
        lua.output = { lines.append($0) }
        try lua.run("print('a', 1, nil, 2.5, true)", chunkName: "t.lua")
        #expect(lines == ["a\t1\tnil\t2.5\ttrue"])
    }

    @Test func requireFindsScriptsBesideTheLoadedOne() throws {
        let dir = try temporaryDirectory()
        try "return { value = 41 }".write(toFile: dir + "/base.lua", atomically: true, encoding: .utf8)
        try "local M = {}\nfunction M.f() return 1 end\nreturn M".write(toFile: dir + "/sub.lua", atomically: true, encoding: .utf8)
        try "return {1, +}".write(toFile: dir + "/broken.lua", atomically: true, encoding: .utf8)
        let lua = try makeState()
        lua.moduleDirectory = dir
        #expect(try lua.run("return require('base').value + require('sub').f(), require('base') == require('base')", chunkName: dir + "/main.lua")
                == [.integer(42), .boolean(true)])
        #expect(lua.loadedModulePaths == [dir + "/base.lua", dir + "/sub.lua"])
        let missing = try #require(expectError(lua, "\nlocal x = require('nope')"))
        #expect(missing.description == "test.lua:2: module 'nope' not found: no file '\(dir)/nope.lua'")
        #expect(expectError(lua, "require('../etc/passwd')")?.message.hasPrefix("bad module name") == true)
        let broken = try #require(expectError(lua, "require('broken')"))
        #expect(broken.file == dir + "/broken.lua" && broken.line == 1, "\(broken) \(String(describing: broken.file))")
    }
}

import Foundation

func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "dicehost-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
