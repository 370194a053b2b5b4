import Foundation
import Lua
import Testing

/// Adversarial scripts: each must end in a clear error, in bounded time, naming the
/// script and line where there is one, and leave the state usable.
@Suite struct LuaLimitsTests {
    func expectBudget(_ source: String, line: Int?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let lua = try makeState()
        let error = try #require(expectError(lua, source, sourceLocation: sourceLocation), sourceLocation: sourceLocation)
        #expect(error.kind == .instructionBudget, "\(error)", sourceLocation: sourceLocation)
        #expect(error.file == "test.lua", sourceLocation: sourceLocation)
        if let line { #expect(error.line == line, "\(error)", sourceLocation: sourceLocation) }
        #expect(error.message.contains("instruction budget exceeded"), sourceLocation: sourceLocation)
        try expectUsable(lua, sourceLocation: sourceLocation)
    }

    @Test func infiniteLoop() throws {
        try expectBudget("local n = 0\nwhile true do\n  n = n + 1\nend", line: nil)
    }

    @Test func infiniteLoopInsidePcallCannotBeSwallowed() throws {
        try expectBudget("for i = 1, 1e9 do pcall(function() while true do end end) end\nreturn 'escaped'", line: nil)
    }

    @Test func infiniteLoopInsideXpcallWithForgivingHandler() throws {
        try expectBudget("local ok = xpcall(function() while true do end end, function() return 'ignored' end)\nwhile ok == false do end", line: nil)
    }

    @Test func infiniteLoopInsideACoroutine() throws {
        try expectBudget("local co = coroutine.create(function() while true do end end)\nlocal ok = coroutine.resume(co)\nreturn ok", line: nil)
    }

    @Test func infiniteLoopInsideAWrappedCoroutine() throws {
        try expectBudget("local f = coroutine.wrap(function() while true do end end)\nf()", line: nil)
    }

    @Test func coroutineMadeWithoutABudgetIsStillStoppedLater() throws {
        let lua = try makeState()
        let co = try lua.call(.function(lua.load("return coroutine.wrap(function() while true do end end)", chunkName: "test.lua")), budget: .some(nil))
        #expect(throws: LuaError.self) { try lua.call(co[0]) }
        try expectUsable(lua)
    }

    @Test func infiniteLoopInACloseHandler() throws {
        try expectBudget("""
            do
              local guard <close> = setmetatable({}, {__close = function() while true do end end})
              error("first")
            end
            """, line: nil)
    }

    @Test func budgetIsPerCall() throws {
        let lua = try makeState(budget: 200_000)
        let f = try lua.load("local n = 0 for i = 1, 10000 do n = n + i end return n", chunkName: "t.lua")
        for _ in 0..<100 { #expect(try lua.call(.function(f)) == [.integer(50_005_000)]) }
    }

    @Test func interruptStopsARunningScript() throws {
        let lua = try makeState(budget: Int.max / 2)
        let handle = lua.interruptHandle
        let timer = DispatchSource.makeTimerSource()
        timer.schedule(deadline: .now() + .milliseconds(100))
        timer.setEventHandler { handle.request() }
        timer.resume()
        let error = try #require(expectError(lua, "while true do end"))
        #expect(error.kind == .interrupted)
        try expectUsable(lua)
    }

    @Test func memoryBombByConcatenation() throws {
        let lua = try makeState()
        let error = try #require(expectError(lua, "local s = 'x'\nwhile true do\n  s = s .. s\nend"))
        #expect(error.kind == .memory)
        #expect(error.file == "test.lua" && error.line == 3, "\(error)")
        #expect(error.message.contains("memory cap"))
        try expectUsable(lua)
    }

    @Test func memoryBombByStringRep() throws {
        let lua = try makeState(budget: nil)
        let error = try #require(expectError(lua, "\nreturn string.rep('x', 1e9)"))
        #expect(error.kind == .memory && error.line == 2, "\(error)")
        try expectUsable(lua)
    }

    /// Under a budget too: a result past the memory cap is never built, so it costs no
    /// budget, and the error is Lua's catchable memory error (issue 25, item 7).
    @Test func stringRepPastTheMemoryCapIsTheMemoryErrorUnderABudgetToo() throws {
        let lua = try makeState()
        let error = try #require(expectError(lua, "\nreturn string.rep('x', 1e9)"))
        #expect(error.kind == .memory && error.line == 2, "\(error)")
        try expectUsable(lua)
    }

    @Test func memoryBombByTableGrowth() throws {
        let lua = try makeState(budget: nil)
        let error = try #require(expectError(lua, "local t = {}\nfor i = 1, 1e12 do t[i] = {i} end"))
        #expect(error.kind == .memory && error.line == 2, "\(error)")
        try expectUsable(lua)
    }

    @Test func memoryErrorCaughtByScriptLeavesStateSound() throws {
        let lua = try makeState(budget: nil)
        let results = try lua.run("local ok, e = pcall(string.rep, 'x', 1e9) return ok, e", chunkName: "t.lua")
        #expect(results == [.boolean(false), .string("not enough memory")])
        try expectUsable(lua)
    }

    @Test func deepLuaRecursion() throws {
        let lua = try makeState()
        let error = try #require(expectError(lua, "local function f(n) return 1 + f(n + 1) end\nreturn f(1)"))
        #expect([.runtime, .memory].contains(error.kind), "\(error)")
        #expect(error.message.contains("stack overflow") || error.kind == .memory, "\(error)")
        #expect(error.file == "test.lua")
        try expectUsable(lua)
    }

    @Test func deepRecursionThroughMetamethods() throws {
        let lua = try makeState()
        let error = try #require(expectError(lua, "local t = setmetatable({}, {__index = function(t, k) return t[k .. 'x'] end})\nreturn t.a"))
        #expect(error.kind != .instructionBudget, "\(error)")
        #expect(error.file == "test.lua", "\(error)")
        try expectUsable(lua)
    }

    @Test func deepRecursionThroughTostring() throws {
        let lua = try makeState()
        let error = try #require(expectError(lua, "local mt = {}\nmt.__tostring = function(t) return tostring(t) end\nreturn tostring(setmetatable({}, mt))"))
        #expect(error.message.contains("stack overflow"), "\(error)")
        try expectUsable(lua)
    }

    @Test func pathologicalPatternRunsOutOfBudgetQuickly() throws {
        let lua = try makeState()
        let start = ContinuousClock.now
        let error = try #require(expectError(lua, "local s = string.rep('a', 100000)\nreturn s:find('.-.-.-.-b')"))
        #expect(ContinuousClock.now - start < .seconds(15))
        #expect(error.kind == .instructionBudget, "\(error)")
        #expect(error.line == 2)
        for call in ["string.match(s, '(.*)(.*)(.*)x')", "string.gsub(s, '(a*)*b', '')", "s:gmatch('.-.-.-x')()"] {
            #expect(expectError(lua, "local s = string.rep('a', 100000) return \(call)")?.kind == .instructionBudget)
        }
        try expectUsable(lua)
    }

    @Test func ordinaryPatternsOnLongStringsStillWork() throws {
        let lua = try makeState(budget: nil)
        let results = try lua.run("""
            local s = string.rep('ab ', 50000)
            local n = select(2, s:gsub('%s+', ''))
            return n, s:find('b a', 1, true), s:match('^(%a+)'), ('  x  '):match('^%s*(.-)%s*$')
            """, chunkName: "t.lua")
        #expect(results == [.integer(50000), .integer(2), .string("ab"), .string("x")])
    }

    @Test func memoryCapIsConfigurable() throws {
        let lua = try makeState(memory: 2 << 20)
        #expect(expectError(lua, "return string.rep('x', 3 << 20)")?.kind == .memory)
        lua.limits.memoryBytes = 8 << 20
        #expect(try lua.run("return #string.rep('x', 3 << 20)", chunkName: "t.lua") == [.integer(3 << 20)])
    }
}
