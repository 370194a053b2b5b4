import Lua
import Testing

/// Freezing moves a table's fields to a backing table; the table scripts keep must not
/// keep the room they took as well (issue 32: every state freezes its globals and
/// libraries, about 5 KiB of each idle room).
@Suite struct LuaFrozenTableMemoryTests {
    static let fields = (1...60).map { "k\($0) = \($0)" }.joined(separator: ", ")

    @Test func freezingATableCostsLessThanASecondCopyOfIt() throws {
        let lua = try makeState()
        guard case .table(let table) = try lua.run("return {\(Self.fields)}", chunkName: "t.lua").first else {
            Issue.record("no table")
            return
        }
        lua.collectGarbage()
        let withOne = lua.memoryUsed
        // The same fields again (their names are shared strings already): one table's size.
        let second = try lua.run("return {\(Self.fields)}", chunkName: "t.lua")
        lua.collectGarbage()
        let oneTable = lua.memoryUsed - withOne
        #expect(oneTable > 1024)
        lua.freeze(table, as: "the test table")
        lua.collectGarbage()
        let freezing = lua.memoryUsed - withOne - oneTable
        // The backing is one table's size and the proxy's metatable and functions come
        // on top; the emptied table's own 64 slots (1.5 KiB) go.
        #expect(freezing < oneTable, "freezing took \(freezing) bytes, a table \(oneTable)")
        #expect(second.count == 1)
    }

    @Test func aFrozenTableReadsAndRefusesAsBeforeOnceItsRoomIsReleased() throws {
        let lua = try makeState()
        guard case .table(let table) = try lua.run("t = {\(Self.fields), 'a', 'b'} return t", chunkName: "t.lua").first else {
            Issue.record("no table")
            return
        }
        lua.freeze(table, as: "the test table")
        let reads = try lua.run("""
            local n = 0
            for k, v in pairs(t) do n = n + 1 end
            return t.k1, t.k60, t[1], t[2], #t, n, rawget(t, 1), next(t) ~= nil
            """, chunkName: "read.lua")
        #expect(reads == [.integer(1), .integer(60), .string("a"), .string("b"), .integer(2), .integer(62), .string("a"), .boolean(true)])
        let error = try #require(expectError(lua, "t.k1 = 2"))
        #expect(error.message.contains("cannot set 'k1' in the test table"))
        let integerKey = try #require(expectError(lua, "t[3] = 'c'"))
        #expect(integerKey.message.contains("cannot change the test table"))
        let same = try lua.load("return rawequal(t, ...)", chunkName: "same.lua")
        #expect(try lua.call(.function(same), [.table(table)]) == [.boolean(true)])
    }
}
