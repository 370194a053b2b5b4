import Lua
import Testing

/// What a host keeps in a state through `keep` (an analysis's positions) is outside the
/// script's memory cap; everything else the script makes is under it.
@Suite struct LuaHostMemoryTests {
    static let store = "local keep, t, n = ... for i = 1, n do local s = string.rep('k', 1000) .. i keep(t, i, s, s) end return #t"

    @Test func whatTheHostKeepsIsNotChargedToTheScript() throws {
        let lua = try makeState(budget: nil, memory: 2 << 20)
        let table = lua.makeTable(array: [])
        let stored = try lua.call(.function(lua.load(Self.store, chunkName: "host.lua")), [lua.keepFunction(), .table(table), .integer(6000)])
        #expect(stored == [.integer(6000)])
        #expect(lua.hostHeldBytes >= 6000 * 1000 && lua.hostHeldBytes < 6000 * 1200, "\(lua.hostHeldBytes)")
        #expect(lua.scriptMemoryUsed < 2 << 20)
        // The script still has its cap beside what the host keeps (a string.rep needs its
        // result and a buffer as big), and no more.
        #expect(try lua.run("return #string.rep('x', 256 * 1024)", chunkName: "script.lua") == [.integer(256 * 1024)])
        let error = expectError(lua, "local t = {} for i = 1, 128 do t[i] = string.rep('y', 32 * 1024) .. i end")
        #expect(error?.kind == .memory, "\(String(describing: error))")
        try expectUsable(lua)
    }

    @Test func storingWithoutKeepIsChargedToTheCap() throws {
        let lua = try makeState(budget: nil, memory: 2 << 20)
        let table = lua.makeTable(array: [])
        let rawStore = "local _, t, n = ... for i = 1, n do t[i] = string.rep('k', 1000) .. i end return #t"
        #expect(throws: LuaError.self) {
            try lua.call(.function(lua.load(rawStore, chunkName: "host.lua")), [.nil, .table(table), .integer(6000)])
        }
        #expect(lua.hostHeldBytes == 0)
    }
}
