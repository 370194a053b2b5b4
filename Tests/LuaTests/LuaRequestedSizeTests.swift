import Foundation
import Lua
import Testing

/// Issue 35, item 3: library calls that work by a size the script writes into its
/// arguments are charged for the work Lua really does. A size Lua refuses, or a call that
/// stops at its first bad element, raises Lua's own catchable error at once; a result past
/// the memory cap is Lua's memory error, not a spent budget. Each case answers as plain
/// `lua5.4` does (where this machine has it) and fits a budget of 200,000 instructions
/// that the sizes asked for would overrun many times.
@Suite struct LuaRequestedSizeTests {
    static let cases: [(body: String, lua: String)] = [
        // string.format: Lua takes two digits of width and of precision.
        ("return select(2, pcall(string.format, '%9999999999d', 1))", "invalid conversion specification: '%9999999999d'"),
        ("return select(2, pcall(string.format, '%99999999999999999999d', 1))", "invalid conversion specification: '%99999999999999999999d'"),
        ("return select(2, pcall(string.format, '%123d', 1))", "invalid conversion specification: '%123d'"),
        ("return select(2, pcall(string.format, '%5.123f', 1))", "invalid conversion specification: '%5.123f'"),
        ("return select(2, pcall(string.format, '%.99999999999999999999999999999999999999f', 1))", "invalid format (too long)"),
        ("return #string.format('%99d|%.99f', 1, 1)", "201"),
        // table.concat stops at its first element that is not a string or a number.
        ("return select(2, pcall(table.concat, {}, '', -1e15, 1e15))", "invalid value (nil) at index -1000000000000000 in table for 'concat'"),
        ("return select(2, pcall(table.concat, {1, 2, 3}, ',', math.mininteger, math.maxinteger))",
         "invalid value (nil) at index -9223372036854775808 in table for 'concat'"),
        ("return select(2, pcall(table.concat, {1, 2, 3}, ',', 1, math.maxinteger))", "invalid value (nil) at index 4 in table for 'concat'"),
        ("return table.concat({[-2] = 'a', [-1] = 'b', [0] = 'c', 'd'}, ',', -2, 1)", "a,b,c,d"),
        // string.pack checks its argument before padding to a size.
        ("return select(2, pcall(string.pack, 'c2000000000'))", "bad argument #2 to 'string.pack' (string expected, got nil)"),
        ("return select(2, pcall(string.pack, 'c3', 'abcd'))", "bad argument #2 to 'string.pack' (string longer than given size)"),
        ("return select(2, pcall(string.pack, 'Xc2000000000', ''))", "bad argument #1 to 'string.pack' (invalid next option for option 'X')"),
        ("return string.packsize('c2000000000')", "2000000000"),
        ("return #string.pack('c100000', 'x')", "100000"),
    ]

    @Test(arguments: 0..<cases.count) func aRequestedSizeCostsTheWorkLuaDoes(_ index: Int) throws {
        let (body, expected) = Self.cases[index]
        if let plain = try plainLuaAnswer(body) { #expect(plain == expected, "plain lua5.4 answered \(plain)") }
        let lua = try makeState(budget: 200_000)
        let results = try lua.run(body, chunkName: "sizes.lua")
        #expect(results == [.string(expected)] || results == [.integer(Int64(expected) ?? -1)], "\(body)")
    }

    /// A pack result past the memory cap is Lua's memory error, caught by pcall, before
    /// any padding (a refused allocation costs the collection Lua then runs, not the
    /// 16 MB of padding towards the cap): several fit a small budget, and the state goes on.
    @Test func aStringPackPastTheMemoryCapIsCaught() throws {
        let lua = try makeState(budget: 200_000)
        let results = try lua.run("""
            local ok, e
            for i = 1, 5 do ok, e = pcall(string.pack, 'c2000000000', '') end
            return ok, e, #string.pack('c10', 'x')
            """, chunkName: "pack.lua")
        #expect(results == [.boolean(false), .string("not enough memory"), .integer(10)])
        #expect(try lua.run("local ok, e = pcall(string.pack, 'c2000000000c2000000000', '', '') return e", chunkName: "pack.lua") == [.string("not enough memory")])
        try expectUsable(lua)
    }

    /// Padding that fits is still charged: in a loop it runs out the budget.
    @Test func paddingThatFitsIsCharged() throws {
        let lua = try makeState(budget: 1_000_000)
        let error = try #require(expectError(lua, "for i = 1, 1e6 do local s = string.pack('c1000000', '') end"))
        #expect(error.kind == .instructionBudget, "\(error)")
    }

    /// table.concat still costs the elements it goes through before its error.
    @Test func concatOfALongListIsStillCharged() throws {
        let lua = try makeState(budget: 1_000_000)
        let error = try #require(expectError(lua, "local t = {} for i = 1, 100000 do t[i] = 'x' end for i = 1, 1e6 do pcall(table.concat, t, ',', 1, 1e15) end"))
        #expect(error.kind == .instructionBudget, "\(error)")
    }
}
