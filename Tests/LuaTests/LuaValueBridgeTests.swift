import Lua
import Testing

@Suite struct LuaValueBridgeTests {
    @Test func scalarsKeepTheirTypes() throws {
        let lua = try makeState()
        let results = try lua.run("return nil, true, false, 3, 3.0, 'text', 2^63", chunkName: "t.lua")
        #expect(results == [.nil, .boolean(true), .boolean(false), .integer(3), .number(3.0), .string("text"), .number(9.2233720368547758e18)])
    }

    @Test func integersAndFloatsRoundTripDistinctly() throws {
        let lua = try makeState()
        let f = try lua.load("local a, b = ... return math.type(a), math.type(b), a, b", chunkName: "t.lua")
        let results = try lua.call(.function(f), [.integer(7), .number(7)])
        #expect(results == [.string("integer"), .string("float"), .integer(7), .number(7)])
    }

    @Test func stringsWithEmbeddedNulsStayIntact() throws {
        let lua = try makeState()
        let f = try lua.load("local s = ... return #s, s .. '\\0end'", chunkName: "t.lua")
        let results = try lua.call(.function(f), [.string("a\0b")])
        #expect(results == [.integer(3), .string("a\0b\0end")])
    }

    @Test func tablesAndFunctionsAreReferences() throws {
        let lua = try makeState()
        let results = try lua.run("local t = {1, 2, x = 'y'} return t, function(n) return n + #t end", chunkName: "t.lua")
        guard case .table(let table) = results[0], case .function = results[1] else {
            Issue.record("expected a table and a function"); return
        }
        #expect(lua.array(table) == [.integer(1), .integer(2)])
        #expect(lua.get(table, "x") == .string("y"))
        lua.set(table, .integer(3), .integer(3))
        #expect(try lua.call(results[1], [.integer(10)]) == [.integer(13)])
    }

    @Test func recursiveTablesComeBackWithoutHanging() throws {
        let lua = try makeState()
        let results = try lua.run("local t = {} t.self = t t[1] = t return t", chunkName: "t.lua")
        let table = try #require(results.first?.tableRef)
        #expect(lua.get(table, "self") == results[0])
        #expect(lua.entries(table).count == 2)
    }

    @Test func referencesAreReleasedOverAMillionCalls() throws {
        let lua = try makeState(budget: nil)
        let f = try lua.load("return {}, function() end, 'x'", chunkName: "t.lua")
        for _ in 0..<10_000 { _ = try lua.call(.function(f)) }
        lua.collectGarbage()
        let before = lua.memoryUsed
        for _ in 0..<1_000_000 { _ = try lua.call(.function(f)) }
        lua.collectGarbage()
        #expect(lua.memoryUsed < before + 64 * 1024, "memory grew from \(before) to \(lua.memoryUsed)")
    }

    @Test func entriesFollowTheSandboxPairsOrder() throws {
        let lua = try makeState()
        let t = try #require(try lua.run("return {b = 1, a = 2, [2] = 'two', [1] = 'one', [true] = 0}", chunkName: "t.lua")[0].tableRef)
        #expect(lua.entries(t).map(\.key) == [.integer(1), .integer(2), .string("a"), .string("b"), .boolean(true)])
    }
}
