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
        // cstack.lua:20-31: a stack overflow whose message handler overflows too ends in
        // "error in error handling" (the sandbox caps stacks by refusing their memory, and
        // Lua runs no handler for a memory error).
        ("""
         local count = 0
         local function loop(x, y, z) count = count + 1 return 1 + loop(x, y, z) end
         local ok, message = xpcall(loop, loop)
         return tostring(ok) .. ' ' .. tostring(message)
         """, "false error in error handling"),
        // locals.lua:559-590: a stack overflow caught by xpcall inside a coroutine gives
        // the handler's result (a to-be-closed variable of the handler closed), and the
        // to-be-closed variable below it is closed when the coroutine ends, with no error.
        ("""
         local function overflow(n) overflow(n + 1) end
         local seen
         local function handler(m)
           seen = string.find(m, 'stack overflow') ~= nil
           local x <close> = setmetatable({}, {__close = function(o) o[1] = 10 end})
           return x
         end
         local flag, ok, result
         local co = coroutine.wrap(function()
           local y <close> = setmetatable({}, {__close = function(o, e) o[1] = e == nil and 100 or -1; flag = o end})
           ok, result = xpcall(overflow, handler, 0)
         end)
         co()
         return tostring(ok) .. ' ' .. tostring(seen) .. ' ' .. tostring(type(result) == 'table' and result[1]) .. ' ' .. tostring(flag and flag[1])
         """, "false true 10 100"),
    ]

    @Test(arguments: 0..<cases.count) func answersAsLuaDoes(_ index: Int) throws {
        let (body, expected) = Self.cases[index]
        if let plain = try plainLuaAnswer(body) { #expect(plain == expected, "plain lua5.4 answered \(plain)") }
        let lua = try makeState()
        #expect(try lua.run(body, chunkName: "findings.lua") == [.string(expected)], "\(body)")
    }
}
