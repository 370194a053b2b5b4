import CLuaSupport
import Foundation
@testable import Lua
import Testing

/// One bounded cost per input: a budget, once spent, stays spent in message handlers,
/// __close handlers and later calls; work done inside C is charged; a __call chain
/// cannot spin in C. Each case must end in a clear error, in bounded time, with the
/// state usable afterwards.
@Suite struct LuaBudgetTests {
    /// Runs `source`, expecting an error of `kind`, within `seconds` of wall time (three
    /// times that on this check: these bounds catch unbounded work, not slow machines).
    func expectStopped(_ source: String, kind: LuaError.Kind = .instructionBudget, budget: Int? = 5_000_000,
                       seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let lua = try makeState(budget: budget)
        let clock = ContinuousClock()
        let started = clock.now
        let error = expectError(lua, source, sourceLocation: sourceLocation)
        let elapsed = clock.now - started
        #expect(error?.kind == kind, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.file == "test.lua", "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(elapsed < .seconds(seconds * 3), "took \(elapsed)", sourceLocation: sourceLocation)
        try expectUsable(lua, sourceLocation: sourceLocation)
    }

    // MARK: A spent budget stays spent

    @Test(arguments: [
        // The handler loops after the loop it handles tripped the budget.
        "xpcall(function() while true do end end, function(e) while true do end end)",
        // The handler calls the failing function again.
        "local function f() while true do end end\nxpcall(f, function() f() end)",
        // Nested handlers, each looping.
        "xpcall(function() xpcall(function() while true do end end, function() while true do end end) end, function() while true do end end)",
        // Inside a coroutine.
        "local co = coroutine.wrap(function() xpcall(function() while true do end end, function() while true do end end) end)\nco()",
        // The script catches the error and keeps looping with pcall.
        "while true do pcall(function() while true do end end) end",
        // The handler is itself heavy C work.
        "xpcall(function() while true do end end, function() return string.rep('x', 1e7) end)",
    ])
    func messageHandlersGetNoFreshBudget(_ source: String) throws {
        try expectStopped(source)
    }

    @Test(arguments: [
        // A __close handler that loops, run while the budget error unwinds.
        "local guard <close> = setmetatable({}, {__close = function() while true do end end})\nwhile true do end",
        // Two of them.
        "local a <close> = setmetatable({}, {__close = function() while true do end end})\nlocal b <close> = setmetatable({}, {__close = function() while true do end end})\nwhile true do end",
        // Closing a suspended coroutine runs its __close handlers.
        "local co = coroutine.create(function() local x <close> = setmetatable({}, {__close = function() while true do end end}) coroutine.yield() end)\ncoroutine.resume(co)\nwhile true do end",
    ])
    func closeHandlersGetNoFreshBudget(_ source: String) throws {
        try expectStopped(source)
    }

    @Test func anInterruptAlsoSkipsMessageHandlers() throws {
        let lua = try makeState(budget: nil)
        let handle = lua.interruptHandle
        let stopper = Thread { usleep(100_000); handle.request() }
        let clock = ContinuousClock()
        let started = clock.now
        lua.limits = LuaLimits(memoryBytes: 16 << 20, instructionBudget: Int.max / 4)
        stopper.start()
        let error = expectError(lua, "xpcall(function() while true do end end, function(e) while true do end end)")
        #expect(error?.kind == .interrupted, "\(String(describing: error))")
        #expect(clock.now - started < .seconds(30))
        try expectUsable(lua)
    }

    // MARK: One budget across many calls

    @Test func callsInsideWithBudgetShareOneBudget() throws {
        let lua = try makeState(budget: 3_000_000)
        let spend = try #require(try lua.run("return function() local n = 0 for i = 1, 300000 do n = n + i end return n end",
                                              chunkName: "spend.lua").first)
        // Each call alone is well inside the budget ...
        for _ in 0..<5 { _ = try lua.call(spend) }
        // ... but five of them in one input are not.
        var calls = 0
        #expect(throws: LuaError.self) {
            try lua.withBudget {
                for _ in 0..<5 { _ = try lua.call(spend); calls += 1 }
            }
        }
        #expect(calls < 5)
        try expectUsable(lua)
    }

    @Test func aSpentBudgetFailsEveryLaterCallOfTheInputAtOnce() throws {
        let lua = try makeState(budget: 1_000_000)
        let endless = try #require(try lua.run("return function() while true do end end", chunkName: "endless.lua").first)
        let quick = try #require(try lua.run("return function() return 1 end", chunkName: "quick.lua").first)
        var laterError: LuaError?
        do {
            try lua.withBudget {
                _ = try? lua.call(endless)        // swallowed by the host ...
                do { _ = try lua.call(quick) } catch let error as LuaError { laterError = error; throw error }
            }
            Issue.record("the input finished")
        } catch let error as LuaError {
            #expect(error.kind == .instructionBudget)
            #expect(error.file == "endless.lua", "\(error)")
        }
        #expect(laterError?.kind == .instructionBudget) // ... but the next call still fails.
        #expect(try lua.call(quick) == [.integer(1)])  // a new input has a new budget
    }

    @Test func aBodyThatSwallowsTheErrorStillFails() throws {
        let lua = try makeState(budget: 1_000_000)
        let endless = try #require(try lua.run("return function() while true do end end", chunkName: "endless.lua").first)
        #expect(throws: LuaError.self) {
            try lua.withBudget { _ = try? lua.call(endless) }
        }
    }

    @Test func hostWorkIsChargedToo() throws {
        let lua = try makeState(budget: 1_000_000)
        #expect(throws: LuaError.self) {
            try lua.withBudget { for _ in 0..<1_000 { try lua.charge(10_000) } }
        }
        // A host function called in a tight loop costs more than the loop's instructions.
        lua.register("noop", in: lua.globals) { _ in 0 }
        let error = expectError(lua, "for i = 1, 1e9 do noop() end")
        #expect(error?.kind == .instructionBudget)
    }

    // MARK: Work inside C is charged

    @Test(arguments: [
        "return string.rep('', 1e15)",                                   // loops in C without allocating
        "return string.rep('', 1e15, '')",
        "local s = ('x'):rep(100000) for i = 1, 1e9 do local u = s:upper() end",
        "local s = ('x'):rep(100000) for i = 1, 1e9 do local u = s:reverse() end",
        "local t = {} for i = 1, 10000 do t[i] = 'abcdefgh' end for i = 1, 1e9 do local u = table.concat(t) end",
        "for i = 1, 1e9 do local u = string.format('%99d', i) end",
        "local t = {} for i = 1, 100000 do t[i] = i end for i = 1, 1e9 do table.insert(t, 1, i) table.remove(t, 1) end",
        "local t = {} for i = 1, 100000 do t[i] = i end for i = 1, 1e9 do local a = select('#', table.unpack(t, 1, 4000)) end",
        "local s = ('é'):rep(100000) for i = 1, 1e9 do local n = utf8.len(s) end",
        "local t = {} for i = 1, 20000 do t['k' .. i] = i end for i = 1, 1e9 do for k in pairs(t) do break end end",
        "local t = {} for i = 1, 100000 do t[i] = -i end for i = 1, 1e9 do table.sort(t) end",
        "for i = 1, 1e9 do local f = load(('x = 1\\n'):rep(10000)) end",
        // A reader function that hands the parser the same long piece for ever.
        "local s = (' '):rep(1000000) local f = load(function() return s end)",
        // Allocations refused at the memory cap: each makes Lua collect the whole heap.
        """
        local keep = {} for i = 1, 100000 do keep[i] = {} end
        local s = ('x'):rep(1 << 20)
        for i = 1, 1e9 do pcall(function() return s .. s .. s .. s .. s .. s .. s .. s end) end
        """,
    ])
    func workInsideCIsCharged(_ source: String) throws {
        try expectStopped(source, budget: 20_000_000, seconds: 20)
    }

    /// Floats written as text, strings read as numbers (arithmetic on "123…", math and
    /// library functions given a string) and fmod of far-apart floats are slow C work no
    /// instruction counts: each call is charged, so a budget allows far fewer of them than
    /// of the loop's own instructions (before, about 125,000 calls fitted into 1,000,000).
    @Test(arguments: [
        ("string.format('%99.99f', 1e300)", 2_000),  // 401 characters of digits
        ("string.format('%.14g', 1.1)", 40_000),
        ("string.format('%s', 1.5)", 40_000),
        ("tostring(1.1)", 40_000),
        ("table.concat(floats)", 1_000),              // 100 floats
        ("math.fmod(1e300, 3.3)", 40_000),
        ("string.len(1.797e308)", 40_000),             // a float argument is written as text
        ("digits + 0", 4_000),                         // 10,000 digits read as a number
        ("math.abs(digits)", 4_000),
        ("string.format('%g', digits)", 4_000),
    ])
    func floatsWrittenAsTextAreCharged(_ call: String, atMost: Int) throws {
        let lua = try makeState(budget: 1_000_000)
        let source = """
            floats = {} for i = 1, 100 do floats[i] = i + 0.5 end
            digits = string.rep("1", 10000)
            calls = 0
            while true do calls = calls + 1; local v = \(call) end
            """
        let error = try #require(expectError(lua, source))
        #expect(error.kind == .instructionBudget, "\(error)")
        guard case .integer(let calls) = try lua.run("return calls", chunkName: "count.lua").first else {
            Issue.record("no count"); return
        }
        #expect(calls > 10 && calls < atMost, "\(call): \(calls) calls within 1,000,000 units")
    }

    @Test(arguments: [
        // A table whose __call is itself.
        "local t = setmetatable({}, {})\ngetmetatable(t).__call = t\nreturn t()",
        // Two tables calling each other.
        "local a, b = setmetatable({}, {}), setmetatable({}, {})\ngetmetatable(a).__call = b\ngetmetatable(b).__call = a\nreturn a()",
        // A metatable that is its own __call target through __index games.
        "local mt = {}\nmt.__call = setmetatable({}, mt)\nreturn mt.__call()",
        // The stack first grown to an odd size by a call needing many slots.
        "local n = select('#', table.unpack({}, 1, 4000))\nlocal t = setmetatable({}, {})\ngetmetatable(t).__call = t\nreturn t()",
        // The stack first grown deep by recursion, then shrunk by a collection to twice
        // what is in use (an odd size), then the chain.
        """
        local function deep(n) if n == 0 then return 0 end return 1 + deep(n - 1) end
        deep(3000)
        for i = 1, 300 do local garbage = {} for j = 1, 1000 do garbage[j] = j end end
        local t = setmetatable({}, {})
        getmetatable(t).__call = t
        return t()
        """,
        // The chain inside a coroutine, whose stack is its own.
        "local t = setmetatable({}, {})\ngetmetatable(t).__call = t\nlocal co = coroutine.wrap(function() return t() end)\nreturn co()",
    ])
    func aCallChainEndsAsAStackOverflow(_ source: String) throws {
        let lua = try makeState(budget: nil)
        let clock = ContinuousClock()
        let started = clock.now
        let error = try #require(expectError(lua, source))
        #expect(error.kind == .runtime, "\(error)")
        #expect(error.message.contains("stack overflow"), "\(error)")
        #expect(clock.now - started < .seconds(45))
        try expectUsable(lua)
    }

    @Test(arguments: [
        "return select('#', table.unpack({}, 1, 4001))",
        "return select('#', string.byte(string.rep('x', 4001), 1, -1))",
        "return select('#', utf8.codepoint(string.rep('x', 4001), 1, -1))",
        "return select('#', string.unpack(string.rep('b', 4001), string.rep('x', 4001)))",
    ])
    func aLibraryCallReturnsAtMostFourThousandValues(_ source: String) throws {
        let lua = try makeState(budget: nil)
        let error = try #require(expectError(lua, source))
        #expect(error.message.contains("too many results"), "\(error)")
        // The most there may be, passed on through a vararg function.
        let results = try lua.run("local function f(...) return select('#', ...) end return f(table.unpack({}, 1, 4000))", chunkName: "ok.lua")
        #expect(results == [.integer(4000)])
    }

    @Test func aBigTableIsNotMistakenForAStack() throws {
        // Fresh untagged blocks of any size that are not stacks are never refused.
        let lua = try makeState(budget: nil, memory: 64 << 20)
        let results = try lua.run("""
            local t = {}
            for i = 1, 200000 do t[i] = i end
            local u = {table.unpack(t, 1, 4000)}
            local v = {}
            for i = 1, 81925 do v[i] = i end
            return #t, #u, #v
            """, chunkName: "test.lua")
        #expect(results == [.integer(200_000), .integer(4000), .integer(81925)])
    }

    @Test func ordinaryRecursionStillWorks() throws {
        let lua = try makeState(budget: nil)
        let results = try lua.run("local function f(n) if n == 0 then return 0 end return 1 + f(n - 1) end return f(5000)",
                                  chunkName: "test.lua")
        #expect(results == [.integer(5000)])
    }

    // MARK: Determinism

    @Test func pairsAndNextVisitObjectKeysInCreationOrder() throws {
        let lua = try makeState()
        let results = try lua.run("""
            local set, made = {}, {}
            for i = 1, 50 do local p = {id = i} made[i] = p set[p] = true end
            local fn = {}
            for i = 1, 20 do local f = function() return i end fn[f] = i end
            local order = {}
            for p in pairs(set) do order[#order + 1] = p.id end
            local byNext, k = {}, next(set)
            while k do byNext[#byNext + 1] = k.id k = next(set, k) end
            local fns = {}
            for _, i in pairs(fn) do fns[#fns + 1] = i end
            return table.concat(order, ","), table.concat(byNext, ","), table.concat(fns, ",")
            """, chunkName: "test.lua")
        let ascending = (1...50).map(String.init).joined(separator: ",")
        #expect(results == [.string(ascending), .string(ascending), .string((1...20).map(String.init).joined(separator: ","))])
    }

    @Test func nextVisitsStringKeysInTheSameOrderAsPairs() throws {
        let lua = try makeState()
        let results = try lua.run("""
            local t = {}
            for i = 1, 200 do t["key" .. i] = i end
            t[3], t[1.5], t[true] = 3, 1.5, true
            local a, b = {}, {}
            for k in pairs(t) do a[#a + 1] = tostring(k) end
            for k in next, t do b[#b + 1] = tostring(k) end
            -- clearing during a traversal is allowed, as in Lua
            local n = 0
            for k in next, t do t[k] = nil n = n + 1 end
            return table.concat(a, " ") == table.concat(b, " "), a[1], a[2], a[#a], n, next(t)
            """, chunkName: "test.lua")
        #expect(results == [.boolean(true), .string("1.5"), .string("3"), .string("true"), .integer(203), .nil])
    }

    @Test func objectsPrintByCreationNotAddress() throws {
        let lua = try makeState()
        let results = try lua.run("""
            local a, b = {}, {}
            local sa, sb = tostring(a), tostring(b)
            return sa:match("^table: 0x%x+$") ~= nil, sa < sb, string.format("%s", a) == sa,
                   tostring(print):match("^function: ") ~= nil, tostring(math.floor)
            """, chunkName: "test.lua")
        #expect(results == [.boolean(true), .boolean(true), .boolean(true), .boolean(true), .string("function: builtin: math.floor")])
        let error = try #require(expectError(lua, "return string.format('%p', {})"))
        #expect(error.message.contains("'%p' would show an address"), "\(error)")
    }

    @Test func theSameScriptPrintsTheSameInTwoStates() throws {
        let source = """
            local seen, out = {}, {}
            for i = 1, 30 do seen[{n = i}] = tostring(i) end
            for k, v in pairs(seen) do out[#out + 1] = v end
            return table.concat(out, ","), tostring({})
            """
        let first = try makeState().run(source, chunkName: "test.lua")
        let second = try makeState().run(source, chunkName: "test.lua")
        #expect(first == second)
    }

    /// The first state of a process compiles the host's chunks; it must not hold more
    /// objects (or serials) than a state that loads the cached compile.
    @Test func theStateThatCompiledTheHostChunksPrintsAsEveryLaterOne() throws {
        let source = "local t = {} for i = 1, 10 do t[{}] = i end return tostring({}), tostring(print)"
        HostChunkCache.forgetAll()
        let compiling = try LuaState(limits: LuaLimits(memoryBytes: 16 << 20, instructionBudget: 5_000_000))
        _ = try compiling.loadHostChunk("local x = {} return function() return x end", chunkName: "dicehost-test-chunk")
        let first = try compiling.run(source, chunkName: "test.lua")
        let cached = try LuaState(limits: LuaLimits(memoryBytes: 16 << 20, instructionBudget: 5_000_000))
        _ = try cached.loadHostChunk("local x = {} return function() return x end", chunkName: "dicehost-test-chunk")
        let second = try cached.run(source, chunkName: "test.lua")
        #expect(first == second)
    }

    @Test func iteratorsTheLibrariesHandOutHaveNames() throws {
        let results = try makeState().run("""
            return tostring(ipairs({})), tostring(utf8.codes("")), tostring(utf8.codes("", true))
            """, chunkName: "test.lua")
        #expect(results == [.string("function: builtin: ipairs iterator"), .string("function: builtin: utf8.codes iterator"),
                            .string("function: builtin: utf8.codes iterator (lax)")])
    }
}
