import Foundation
import Lua
import Testing

/// Differences from plain Lua that Lua's own test suite found in the sandboxed
/// libraries (tests/lua-testes): each answers as Lua 5.4.4 does now. Where this machine
/// has `lua5.4`, it must give the same answer.
@Suite struct LuaTestSuiteFindingsTests {
    static let cases: [(body: String, lua: String)] = [
        // nextvar.lua: pairs answers the iterator, the table and nil.
        ("local t = {} local f, s, c = pairs(t) return type(f) .. ' ' .. tostring(s == t) .. ' ' .. tostring(c)",
         "function true nil"),
        // errors.lua: an option Lua does not know is Lua's own error, not the sandbox's.
        ("return (select(2, pcall(function() collectgarbage('nooption') end)):match('bad argument.*'))",
         "bad argument #1 to 'collectgarbage' (invalid option 'nooption')"),
        // math.lua: randomseed answers the seed that repeats the numbers after it.
        ("""
         local x, y = math.randomseed()
         local r = math.random(0)
         math.randomseed(x, y)
         return tostring(math.random(0) == r) .. ' ' .. math.type(x) .. ' ' .. math.type(y)
         """, "true integer integer"),
        // strings.lua: a %p Lua refuses is Lua's "invalid conversion", not the sandbox's refusal.
        ("return (select(2, pcall(string.format, '%3.1p', {})):match('invalid conversion'))", "invalid conversion"),
    ]

    @Test(arguments: 0..<cases.count) func answersAsLuaDoes(_ index: Int) throws {
        let (body, expected) = Self.cases[index]
        if let plain = try plainLuaAnswer(body) { #expect(plain == expected, "plain lua5.4 answered \(plain)") }
        let lua = try makeState()
        #expect(try lua.run(body, chunkName: "findings.lua") == [.string(expected)], "\(body)")
    }
}
