import Foundation
import Lua
import Testing

/// Issue 25, item 7: the sandbox behaves as Lua 5.4 where a rule author meets it. Each
/// case runs in the sandbox and, where this machine has it, in plain `lua5.4`, and the
/// two must answer the same; the expected text is Lua 5.4.4's answer.
@Suite struct LuaConformanceTests {
    static let cases: [(body: String, lua: String)] = [
        ("return select(2, pcall(string.rep, 'x', 1 << 40))", "resulting string too large"),
        ("return select(2, pcall(string.rep, 'ab', 1e10, ','))", "resulting string too large"),
        ("return select(2, pcall(table.move, {}, -5, math.maxinteger, 1))", "bad argument #3 to 'table.move' (too many elements to move)"),
        ("return select(2, pcall(table.move, {1}, 1, 3, math.maxinteger))", "bad argument #4 to 'table.move' (destination wrap around)"),
        ("return select(2, pcall(table.concat, {}, '', 1, 1e15))", "invalid value (nil) at index 1 in table for 'concat'"),
        ("return select(2, pcall(string.format, '%q', {}))", "bad argument #2 to 'string.format' (value has no literal form)"),
        ("return tostring(getmetatable('').__index == string)", "true"),
        ("local f, e = load('return 1', 'x', 'b') return tostring(f) .. ' ' .. e", "nil attempt to load a text chunk (mode is 'b')"),
        ("return tostring(pcall(warn, 'a', 'b')) .. ' ' .. tostring((pcall(warn)))", "true false"),
        ("""
         local t = setmetatable({}, {__pairs = function(t) coroutine.yield('y') return next, {5}, nil end})
         local co = coroutine.wrap(function() for k, v in pairs(t) do return v end end)
         return co() .. co()
         """, "y5"),
        ("local t = {} for i = 1, 10 do table.insert(t, 1, i) end table.remove(t, 3) table.insert(t, 2, 'x') return table.concat(t, ',')",
         "10,x,9,7,6,5,4,3,2,1"),
    ]

    @Test(arguments: 0..<cases.count) func answersAsLuaDoes(_ index: Int) throws {
        let (body, expected) = Self.cases[index]
        if let plain = try plainLuaAnswer(body) { #expect(plain == expected, "plain lua5.4 answered \(plain)") }
        let lua = try makeState()
        let results = try lua.run(body, chunkName: "conformance.lua")
        #expect(results == [.string(expected)], "\(body)")
    }

    /// Appending and taking from the end move nothing, so they cost next to nothing:
    /// 100,000 of each fit a budget that `t[#t + 1] = v` needs about as much of.
    @Test func appendingWithTableInsertCostsWhatItDoes() throws {
        let lua = try makeState(budget: 3_000_000)
        let results = try lua.run("""
            local t = {}
            for i = 1, 100000 do table.insert(t, i) end
            local sum = 0
            for i = 1, 100000 do sum = sum + table.remove(t) end
            return #t, sum
            """, chunkName: "append.lua")
        #expect(results == [.integer(0), .integer(5_000_050_000)])
        // Shifting is still charged: inserting at the front of a long list runs out.
        let error = try #require(expectError(lua, "local t = {} for i = 1, 100000 do table.insert(t, 1, i) end"))
        #expect(error.kind == .instructionBudget, "\(error)")
    }

    /// A result past the memory cap is Lua's catchable memory error, not the budget's.
    @Test func aStringRepPastTheMemoryCapIsCaught() throws {
        let lua = try makeState()
        let results = try lua.run("local ok, e = pcall(string.rep, 'x', 1e9) return ok, e, #string.rep('y', 10)", chunkName: "rep.lua")
        #expect(results == [.boolean(false), .string("not enough memory"), .integer(10)])
    }

    /// A file with a byte-order mark, or a first line starting with '#', loads as with
    /// `lua`, and its lines keep their numbers.
    @Test func aByteOrderMarkAndAShebangLineLoad() throws {
        let lua = try makeState()
        for prefix in ["\u{FEFF}", "#!/usr/bin/env dicehost\n", "\u{FEFF}#!/usr/bin/env dicehost\n", "# a comment line\n"] {
            let lines = prefix.hasSuffix("\n") ? "" : "\n"
            let chunk = try lua.load(bytes: Array((prefix + lines + "local x = 1\nerror('here')").utf8), chunkName: "bom.lua")
            do {
                _ = try lua.call(.function(chunk))
                Issue.record("no error")
            } catch let error as LuaError {
                #expect(error.line == 3, "\(prefix.debugDescription): \(error)")
            }
        }
    }
}
