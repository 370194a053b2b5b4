import CLua
import CLuaSupport
import Foundation
import Lua
import Testing

/// The sandbox's string.find, match, gmatch and gsub are DiceHost's own matcher
/// (CLuaSupport/pattern_match.c): the same results and errors as Lua 5.4's, but every
/// step is charged to the budget, so no pattern can stall the host and none is refused.
@Suite struct LuaPatternTests {
    // MARK: - The same as Lua's own functions

    @Test func sameResultsAndErrorsAsLuasOwnFunctions() throws {
        // A plain state (no sandbox, no budget) with Lua's string library and, as the
        // chunk's argument, DiceHost's four functions.
        let L = try #require(clua_newstate(1 << 30))
        defer { clua_close(L) }
        luaL_openlibs(L)
        let status = Self.differentialScript.withCString { luaL_loadbufferx(L, $0, strlen($0), "=differential.lua", "t") }
        #expect(status == LUA_OK)
        clua_newtable(L)
        for name in ["find", "match", "gmatch", "gsub"] {
            lua_pushnil(L)
            clua_push_pattern_function(L, name)
            lua_setfield(L, -2, name)
        }
        guard lua_pcallk(L, 1, 3, 0, 0, nil) == LUA_OK else {
            Issue.record("the differential script failed: \(String(cString: lua_tolstring(L, -1, nil)))")
            return
        }
        let cases = lua_tointegerx(L, -3, nil), errors = lua_tointegerx(L, -2, nil)
        #expect(cases > 8000)
        #expect(errors > 500, "the cases exercise the errors too")
        let mismatches = lua_rawlen(L, -1)
        #expect(mismatches == 0)
        if mismatches > 0 {
            for i in 1...Int64(mismatches) {
                lua_rawgeti(L, -1, i)
                Issue.record(Comment(rawValue: String(cString: lua_tolstring(L, -1, nil))))
                clua_pop(L, 1)
            }
        }
    }

    @Test func methodCallsOnStringsUseTheSameFunctions() throws {
        let lua = try makeState()
        let results = try lua.run("""
            local s = 'key = value'
            return s:find('=') == string.find(s, '='), s.gsub == string.gsub, s:match('(%w+) = (%w+)')
            """, chunkName: "t.lua")
        #expect(results == [.boolean(true), .boolean(true), .string("key"), .string("value")])
    }

    // MARK: - Pathological patterns run out of budget, quickly; short subjects still work

    /// A call of pattern functions that does work without end (or far too much) for
    /// `long`, and finishes with `expected` for `short`: the same code, no blacklist.
    struct Pathological: Sendable, CustomTestStringConvertible {
        let name: String
        let body: String     // a Lua function body over `n`
        let long: Int
        let short: Int
        let expected: String // Lua expressions: what `short` returns
        var testDescription: String { name }
    }

    static let pathological: [Pathological] = [
        // '?' chains backtrack exponentially.
        .init(name: "? chain, find", body: "local s = ('x'):rep(n) return s:find(('x?'):rep(n) .. ('x'):rep(n))",
              long: 100, short: 4, expected: "1, 4"),
        .init(name: "? chain, anchored match", body: "local s = ('x'):rep(n) return s:match('^' .. ('x?'):rep(n) .. ('x'):rep(n) .. '$')",
              long: 60, short: 4, expected: "'xxxx'"),
        .init(name: "? chain, gsub", body: "local s = ('x'):rep(n) return select(2, s:gsub(('x?'):rep(n) .. ('x'):rep(n), ''))",
              long: 60, short: 4, expected: "1"),
        .init(name: "? chain with captures, gmatch",
              body: "local c = 0 for a in ('x'):rep(n):gmatch('(x?)' .. ('x?'):rep(n - 1) .. ('x'):rep(n)) do c = c + 1 end return c",
              long: 60, short: 4, expected: "1"),
        // Nested quantifiers: polynomial of high degree.
        .init(name: "a*a*a*a*a*b", body: "return ('a'):rep(n):find('a*a*a*a*a*b')", long: 5000, short: 10, expected: "nil"),
        .init(name: ".-.-.-.-b", body: "return ('a'):rep(n):find('.-.-.-.-b')", long: 5000, short: 10, expected: "nil"),
        .init(name: "[ab]*[ab]*[ab]*c", body: "return ('ab'):rep(n):match('([ab]*)[ab]*[ab]*c')", long: 3000, short: 5, expected: "nil"),
        .init(name: "%w+ chain", body: "return ('w'):rep(n):find('%w+%w+%w+%w+!')", long: 5000, short: 10, expected: "nil"),
        // Quadratic: literals (through the matcher, not the plain search) and x+y.
        .init(name: "long literal, match", body: "return ('x'):rep(n):match(('x'):rep(1000) .. 'y')", long: 1 << 20, short: 10, expected: "nil"),
        .init(name: "long literal, gsub", body: "return select(2, ('x'):rep(n):gsub(('x'):rep(1000) .. 'y', ''))",
              long: 1 << 20, short: 10, expected: "0"),
        .init(name: "x+y", body: "return ('x'):rep(n):find('x+y')", long: 1 << 20, short: 10, expected: "nil"),
        // %b scans to the end from every start.
        .init(name: "%b() on 1 MB, find", body: "return (('('):rep(n) .. ')'):find('%b()')", long: 1 << 20, short: 3,
              expected: "3, 4"),
        .init(name: "%b() on 1 MB, gsub", body: "return select(2, (('('):rep(n) .. ')'):gsub('%b()', ''))", long: 1 << 20, short: 3,
              expected: "1"),
        .init(name: "%b() on 1 MB, gmatch", body: "local c = 0 for _ in ('('):rep(n):gmatch('%b()') do c = c + 1 end return c",
              long: 1 << 20, short: 3, expected: "0"),
        // Back-references compare their capture again at every backtrack.
        .init(name: "back-reference, find", body: "return ('x'):rep(n):find('(x+)%1y')", long: 1 << 20, short: 6, expected: "nil"),
        .init(name: "back-reference, match", body: "return ('x'):rep(n):match('(x*)%1%1y')", long: 1 << 20, short: 6, expected: "nil"),
        // Plain search with a long needle: linear, charged by the byte.
        .init(name: "plain find, long needle", body: "return ('x'):rep(n):find(('x'):rep(n // 2) .. 'y', 1, true)",
              long: 1 << 20, short: 8, expected: "nil"),
        .init(name: "literal find, long needle", body: "return ('x'):rep(n):find(('x'):rep(n // 2) .. 'y')",
              long: 1 << 20, short: 8, expected: "nil"),
        // Many matches: each one is charged.
        .init(name: "gsub, many matches", body: "return select(2, ('x'):rep(n):gsub('x', '%0%0'))", long: 1 << 20, short: 8, expected: "8"),
        .init(name: "gsub, many empty matches with a function",
              body: "return select(2, ('x'):rep(n):gsub('', function() end))", long: 1 << 20, short: 8, expected: "9"),
        .init(name: "gmatch loop", body: "local c = 0 for w in ('x '):rep(n):gmatch('%a+') do c = c + 1 end return c",
              long: 1 << 20, short: 8, expected: "8"),
        .init(name: "gmatch loop, quadratic", body: "local c = 0 for w in ('x'):rep(n):gmatch('x*y') do c = c + 1 end return c",
              long: 1 << 20, short: 8, expected: "0"),
        // A long set is scanned at every test.
        .init(name: "long set", body: "return ('x'):rep(n):find('[' .. ('a'):rep(100000) .. ']')", long: 1 << 20, short: 8, expected: "nil"),
    ]

    @Test(arguments: pathological)
    func pathologicalPatternsRunOutOfBudgetQuickly(_ p: Pathological) throws {
        let lua = try makeState(budget: 2_000_000)
        let start = ContinuousClock.now
        let error = try #require(expectError(lua, "local n = \(p.long)\n\(p.body)"))
        #expect(ContinuousClock.now - start < .seconds(15), "\(p.name) took \(ContinuousClock.now - start)")
        #expect(error.kind == .instructionBudget, "\(error)")
        #expect(error.message.contains("instruction budget exceeded"), "\(error)")
        #expect(error.file == "test.lua" && error.line == 2, "\(error)")
        try expectUsable(lua)
        let short = try lua.run("""
            local got = table.pack((function(n) \(p.body) end)(\(p.short)))
            local want = table.pack(\(p.expected))
            local same = got.n == want.n
            for i = 1, math.max(got.n, want.n) do same = same and got[i] == want[i] end
            return same, table.concat({tostring(got[1]), tostring(got[2])}, ', ')
            """, chunkName: "short.lua")
        #expect(short.first == .boolean(true), "\(p.name) on a short subject: \(short)")
    }

    @Test func plainSearchIsLinear() throws {
        // A needle that is all but one byte a repetition of the subject: a naive search
        // compares n * m bytes (5e11 here); the linear one about 3n.
        let lua = try makeState(budget: 20_000_000)
        let start = ContinuousClock.now
        let results = try lua.run("""
            local s = ('x'):rep(1 << 20)
            return s:find(('x'):rep(1 << 19) .. 'y', 1, true), s:find(('x'):rep(1000) .. 'y'), s:find(('x'):rep(1 << 19), 7, true)
            """, chunkName: "t.lua")
        #expect(results == [.nil, .nil, .integer(7), .integer(6 + (1 << 19))])
        #expect(ContinuousClock.now - start < .seconds(15))
    }

    @Test func aWatchedCallIsStoppedInsideTheMatcher() throws {
        // A budget far too large to trip first (about 3 minutes of matching): only the
        // watchdog's interrupt, checked every 1024 steps, stops it.
        let lua = try makeState(budget: 10_000_000_000)
        let f = try #require(try lua.run("return function() return ('x'):rep(100):find(('x?'):rep(100) .. ('x'):rep(100)) end",
                                         chunkName: "test.lua").first)
        let watchdog = LuaWatchdog(period: 0.01)
        defer { watchdog.stop() }
        watchdog.watch(lua)
        let start = ContinuousClock.now
        do {
            _ = try lua.callWatched(f)
            Issue.record("the exponential pattern returned")
        } catch let error as LuaError {
            #expect(error.kind == .stalled, "\(error)")
        }
        #expect(ContinuousClock.now - start < .seconds(15))
        try expectUsable(lua)
    }

    @Test func aCallThatCatchesTheBudgetErrorCannotGoOn() throws {
        let lua = try makeState(budget: 1_000_000)
        let error = try #require(expectError(lua, """
            local ok = pcall(string.find, ('x'):rep(100), ('x?'):rep(100) .. ('x'):rep(100))
            return ('x'):find('x')
            """))
        #expect(error.kind == .instructionBudget, "\(error)")
    }

    // MARK: - Ordinary patterns over a megabyte still finish under the default budget

    @Test func ordinaryPatternsOverAMegabyteFinish() throws {
        let lua = try makeState(budget: LuaLimits().instructionBudget, memory: 64 << 20)
        let results = try lua.run("""
            local s = ('key=value42 '):rep(87382)        -- a little over 1 MB
            local pairs_ = 0
            for k, v in s:gmatch('(%w+)=(%w+)') do pairs_ = pairs_ + 1 end
            local numbers = select(2, s:gsub('%d+', '#'))
            local swapped = s:gsub('(%w+)=(%w+)', '%2=%1')
            return pairs_, numbers, #swapped, swapped:sub(1, 12), s:find('%d+'), s:match('^(%a+)'),
                   select(2, s:gsub('%s', '')), s:find('value42 key', 1, true), select(2, s:gsub('%f[%w]%w+', '<%0>'))
            """, chunkName: "t.lua")
        let expected: [LuaValue] = [.integer(87382), .integer(87382), .integer(12 * 87382), .string("value42=key "),
                                    .integer(10), .string("key"), .integer(87382), .integer(5), .integer(2 * 87382)]
        #expect(results == expected)
    }

    // MARK: - The script run by sameResultsAndErrorsAsLuasOwnFunctions

    static let differentialScript = #"""
local real = {find = string.find, match = string.match, gmatch = string.gmatch, gsub = string.gsub}
local mine = ...
local cases, mismatches, errors = 0, {}, 0
local seed = 12345
local function rand(n) -- a small LCG: the same cases on every run and machine
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n + 1
end
local function pick(t) return t[rand(#t)] end

local function show(v)
  local t = type(v)
  if t == "number" then return math.type(v) .. ":" .. string.format("%q", v) end
  if t == "string" then return string.format("%q", v) end
  return t .. ":" .. tostring(v)
end
local function showall(r)
  local out = {tostring(r.n)}
  for i = 1, r.n do out[#out + 1] = show(r[i]) end
  return table.concat(out, ",")
end

-- Calls f from a Lua frame as a local named "f", so argument errors name it the same way.
local function run(kind, f, s, p, a, b)
  local log = {}
  local function go()
    if kind == "gmatch" then
      local it = f(s, p, a)
      local out = {}
      for _ = 1, 40 do
        local r = table.pack(it())
        if r[1] == nil then break end
        out[#out + 1] = showall(r)
      end
      return table.concat(out, ";")
    elseif kind == "gsub" then
      local repl = a
      if a == "FUNCTION" then
        repl = function(...)
          local args = table.pack(...)
          log[#log + 1] = showall(args)
          local x = args[1]
          if x == "a" then return nil elseif x == "b" then return false
          elseif x == "x" then return 42 elseif x == "1" then return 1.5
          elseif x == ")" then return {} end
          return "<" .. tostring(x) .. ">"
        end
      elseif a == "TABLE" then
        repl = {a = "A", b = false, x = 7, ["1"] = 2.5, ab = "AB", [1] = "one", [3] = "three", ["("] = true}
      end
      local r = table.pack(f(s, p, repl, b))
      return r
    else
      local r = table.pack(f(s, p, a, b))
      return r
    end
  end
  local ok, r = pcall(go)
  local text
  if not ok then text = "error:" .. tostring(r)
  elseif type(r) == "table" then text = showall(r)
  else text = r end
  return text .. "|" .. table.concat(log, ";")
end

local function check(kind, s, p, a, b)
  cases = cases + 1
  local want = run(kind, real[kind], s, p, a, b)
  local got = run(kind, mine[kind], s, p, a, b)
  if want:sub(1, 6) == "error:" then errors = errors + 1 end
  if want ~= got and #mismatches < 20 then
    mismatches[#mismatches + 1] = string.format("%s(%q, %q, %s, %s): Lua %s, DiceHost %s",
      kind, s, p, show(a), show(b), want, got)
  end
end

-- Random patterns over a small alphabet that exercise every item.
local letters = {"a", "b", "a", "b", "x", " ", "1", ".", "-", "(", ")", "]", "^", "$", "%", "\0", "\xe9", "_"}
local function subject()
  local n = rand(11) - 1
  local t = {}
  local from = rand(2) == 1 and letters or {"a", "b", "a", "b", "(", ")", "x"}
  for i = 1, n do t[i] = pick(from) end
  return table.concat(t)
end
local classes = {"%a", "%d", "%s", "%w", "%p", "%l", "%u", "%x", "%c", "%g", "%z", "%A", "%D", "%S", "%W",
                 "%P", "%%", "%.", "%(", "%)", "%]", "%-", "%^", "%$", "%_", "%\0", "."}
local function set()
  local t = {"["}
  if rand(3) == 1 then t[#t + 1] = "^" end
  if rand(6) == 1 then t[#t + 1] = pick({"]", "-", "^"}) end
  for _ = 1, rand(3) do
    local k = rand(6)
    if k == 1 then t[#t + 1] = pick({"a-b", "a-z", "0-9", "b-a", "%a-z", "a-%d", "x-"})
    elseif k == 2 then t[#t + 1] = pick(classes)
    else t[#t + 1] = pick({"a", "b", "x", " ", "(", ")", ".", "-", "%", "1", "$"}) end
  end
  if rand(12) ~= 1 then t[#t + 1] = "]" end
  return table.concat(t)
end
local item
local function sequence(depth)
  local t = {}
  for _ = 1, rand(4) do t[#t + 1] = item(depth) end
  return table.concat(t)
end
function item(depth)
  local k = rand(20)
  local single
  if k <= 6 then single = pick({"a", "b", "x", "a", "b", " ", "1", "^", "]", "\0"})
  elseif k <= 8 then single = pick(classes)
  elseif k <= 10 then single = set()
  elseif k == 11 and depth < 3 then return "(" .. sequence(depth + 1) .. ")"
  elseif k == 12 then return "()"
  elseif k == 13 then return pick({"%b()", "%bab", "%bxx", "%ba", "%b"})
  elseif k == 14 then return pick({"%f[%a]", "%f[^a]", "%f[%z]", "%f[ab]", "%fa", "%f[a"})
  elseif k == 15 then return pick({"%1", "%2", "%0", "%1%1"})
  elseif k == 16 then return pick({"(", ")", "$", "%", "[", "[^", "[a%"})
  else single = "." end
  local q = rand(9)
  if q <= 4 then return single end
  return single .. pick({"*", "+", "-", "?", "*"})
end
local function pattern()
  local p = sequence(0)
  if rand(4) == 1 then p = "^" .. p end
  if rand(5) == 1 then p = p .. "$" end
  return p
end
local inits = {nil, nil, 1, 0, -1, -3, 2, 4, 11, 30, -30}
local repls = {"", "x", "%0", "%1", "<%1|%2>", "%%", "%", "a%x", "%9", "a%0b%1", 7, 1.5, "FUNCTION", "TABLE", "FUNCTION", "TABLE", true}
local limits = {nil, nil, nil, 0, 1, 2, -1}

for _ = 1, 2000 do
  local s, p = subject(), pattern()
  check("find", s, p, pick(inits), pick({nil, nil, true, false}))
  check("match", s, p, pick(inits))
  check("gmatch", s, p, pick(inits))
  check("gsub", s, p, pick(repls), pick(limits))
end
-- Literal needles go down the plain search path.
for _ = 1, 300 do
  local s = subject() .. subject()
  local t = {}
  for i = 1, rand(4) - 1 do t[i] = pick({"a", "b", "ab", "x", ")", "]", "\0"}) end
  check("find", s, table.concat(t), pick(inits), pick({nil, true}))
end

-- Hand-picked cases: edges of every rule, argument handling and the recursion limit.
local hand = {
  {"find", "hello world", "o w"}, {"find", "hello", "l+"}, {"find", "hello", ".-"},
  {"find", "", ""}, {"find", "", "", 1}, {"find", "", "", 2}, {"find", "abc", "", 4}, {"find", "abc", "", 5},
  {"find", "abc", "^", 4}, {"find", "a.b", ".", 1, true}, {"find", "a+b", "+", 1, 1}, {"find", "abc", "b", -1},
  {"find", "abc", "b", -100}, {"find", "abc", "b", math.mininteger}, {"find", "abc", "b", math.maxinteger},
  {"find", "abc", "b", 2.0}, {"find", "abc", "b", 2.5}, {"find", "abc", "b", "2"}, {"find", "abc", "b", "x"},
  {"find", 12345, 34}, {"find", "abc", nil}, {"find", nil, "a"}, {"find", "abc", {}},
  {"match", "key = value", "(%w+)%s*=%s*(%w+)"}, {"match", "  trim  ", "^%s*(.-)%s*$"},
  {"match", "[[x]]", "%[(%b[])%]"}, {"match", "f(a(b)c)d", "%b()"}, {"match", "((", "%b()"},
  {"match", "THE (quick) fox", "%f[%a]%a+"}, {"match", "x", "%f[%z]"}, {"match", "abc", "%f[%z]", 4},
  {"match", "hello", "()ll()"}, {"match", "hello", "(h)(e)(l)(l)(o)"}, {"match", "aa", "(a)%1"},
  {"match", "ab", "(a)%1"}, {"match", "abab", "(ab)%1$"}, {"match", "x", "()%1"}, {"match", "a", "(a%1)"},
  {"match", "abc", "(((a)b)c)"}, {"match", "abc", "a)"}, {"match", "abc", "(a"}, {"match", "abc", "(()a"},
  {"match", "]", "[]]"}, {"match", "^", "[^]"}, {"match", "-", "[a-]"}, {"match", "b", "[%a-z]"},
  {"match", "%", "[%%]"}, {"match", "a", "[a-]"}, {"match", "\0", "%z"}, {"match", "a\0b", "[%z]"},
  {"match", "\xe9t\xe9", "%a+"}, {"match", "\xe9", "[\xe0-\xff]"}, {"match", "a$b", "a$b"}, {"match", "a^b", "a^b"},
  {"match", "a", "a$$"}, {"match", "$", "^$"}, {"match", "abc", "^^a"},
  {"match", string.rep("a", 300), string.rep("a?", 199)}, {"match", string.rep("a", 300), string.rep("a?", 200)},
  {"match", string.rep("a", 300), string.rep("a?", 198) .. "()"}, {"match", string.rep("a", 300), string.rep("a?", 199) .. "()"},
  {"match", string.rep("a", 10) .. "b", string.rep("a-", 198) .. "b"}, {"match", string.rep("a", 10) .. "b", string.rep("a-", 199) .. "b"},
  {"match", string.rep("a", 10) .. "b", string.rep("a-", 200) .. "b"}, {"match", "x", string.rep("x*", 400)},
  {"match", "aaa", string.rep("(", 32) .. "a" .. string.rep(")", 32)}, {"match", "aaa", string.rep("(", 33) .. "a" .. string.rep(")", 33)},
  {"match", "aaa", string.rep("()", 33)}, {"match", "abc", "%"}, {"match", "abc", "a%"}, {"match", "abc", "x%"},
  {"match", "abc", "[a"}, {"match", "abc", "x[a"}, {"match", "abc", "%b"}, {"match", "abc", "x%bx"},
  {"match", "abc", "%f"}, {"match", "abc", "%fx"}, {"match", "abc", "x%f"}, {"match", "", "%f[a]"},
  {"gmatch", "one two  three", "%a+"}, {"gmatch", "abc", ""}, {"gmatch", "abc", "", 2}, {"gmatch", "abc", ".", 10},
  {"gmatch", "abc", "x*"}, {"gmatch", "^a^a", "^a"}, {"gmatch", "k=v, a=b", "(%w+)=(%w+)"}, {"gmatch", "abc", "()"},
  {"gmatch", "abc", "(", 1}, {"gmatch", "abc", ".", -1}, {"gmatch", 1234, 2},
  {"gsub", "hello world", "o", "0"}, {"gsub", "hello world", "(o)", "[%1]", 1}, {"gsub", "abc", "", "-"},
  {"gsub", "abc", "b*", "-"}, {"gsub", "abc", "^", "-"}, {"gsub", "abc", "x*", "-", 2}, {"gsub", "abc", "()", "%1"},
  {"gsub", "abc", "(", "x"}, {"gsub", "abc", "(", "%1"}, {"gsub", "abc", "(b)", "%1%0%%"}, {"gsub", "abc", "b", "%\0"},
  {"gsub", "abc", "a", "%"}, {"gsub", "abc", "a", "%2"}, {"gsub", "abc", "(a)", "%2"}, {"gsub", "abc", "a", "%1"},
  {"gsub", 123, 2, 9}, {"gsub", "abc", "b", 1.5}, {"gsub", "abc", "b", "x", 1.5}, {"gsub", "abc", "b", "x", "1"},
  {"gsub", "abc", "b", true}, {"gsub", "abc", "b", nil}, {"gsub", "abc", "b", "x", math.maxinteger},
  {"gsub", "abc", "b", "x", math.mininteger}, {"gsub", "abc", "%w", "TABLE"}, {"gsub", "abc", "%w", "FUNCTION"},
  {"gsub", "a(b)c", "%b()", "FUNCTION"}, {"gsub", "ab ba", "(a)(b)", "FUNCTION"}, {"gsub", "abc", "()", "TABLE"},
  {"gsub", "a)b", ".", "FUNCTION"}, {"gsub", "x1x", "%d", "FUNCTION"}, {"gsub", "x1x", "x", "FUNCTION"},
  {"gsub", "$a$", "%$", "!"}, {"gsub", "abc", "$", "!"}, {"gsub", "abc", "^a", "!"}, {"gsub", "aaa", "^a", "!"},
  {"gsub", "hello world", "%f[%w]%w+", "<%0>"}, {"gsub", "x = 1, y = 2", "(%w+) = (%w+)", "%2 = %1"},
}
for _, c in ipairs(hand) do check(c[1], c[2], c[3], c[4], c[5]) end

return cases, errors, mismatches
"""#
}
