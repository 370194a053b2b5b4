import Lua
import Testing

@Suite struct LuaHostFunctionTests {
    @Test func swiftFunctionsAreCallableFromLua() throws {
        let lua = try makeState()
        lua.register("add", in: lua.globals) { call in
            call.push(try call.integer(1) + call.integer(2))
        }
        #expect(try lua.run("return add(2, 3)", chunkName: "t.lua") == [.integer(5)])
    }

    @Test func argumentErrorsReadLikeLuas() throws {
        let lua = try makeState()
        lua.register(library: "led", [("blink", { call in
            let mask = try call.integer(1)
            guard (0...63).contains(mask) else { throw LuaCall.Failure.argument(1, "mask must be 0..63") }
            return 0
        })])
        #expect(expectError(lua, "led.blink()")?.description == "test.lua:1: bad argument #1 to 'blink' (number expected, got no value)")
        #expect(expectError(lua, "\nled.blink(64)")?.description == "test.lua:2: bad argument #1 to 'blink' (mask must be 0..63)")
        #expect(expectError(lua, "led.blink(1.5)")?.message == "bad argument #1 to 'blink' (number has no integer representation)")
    }

    @Test func hostErrorsAreCatchableByPcall() throws {
        let lua = try makeState()
        lua.register("fail", in: lua.globals) { _ in throw LuaCall.Failure.message("it broke") }
        lua.register("failWith", in: lua.globals) { call in throw LuaCall.Failure.value(call.value(1)) }
        let results = try lua.run("""
            local ok, e = pcall(fail)
            local ok2, e2 = pcall(failWith, {code = 7})
            return ok, e, ok2, e2.code
            """, chunkName: "t.lua")
        #expect(results == [.boolean(false), .string("t.lua:1: it broke"), .boolean(false), .integer(7)])
        try expectUsable(lua)
    }

    @Test func anySwiftErrorBecomesALuaError() throws {
        struct Oops: Error, CustomStringConvertible { var description: String { "oops from Swift" } }
        let lua = try makeState()
        lua.register("oops", in: lua.globals) { _ in throw Oops() }
        #expect(expectError(lua, "oops()")?.description == "test.lua:1: oops from Swift")
        // Called directly by pcall (a C function), the message names the script line that called pcall.
        #expect(try lua.run("return pcall(oops)", chunkName: "t.lua") == [.boolean(false), .string("t.lua:1: oops from Swift")])
    }

    @Test func hostFunctionsWorkInsideCoroutines() throws {
        let lua = try makeState()
        lua.register("twice", in: lua.globals) { call in call.push(.string(try call.string(1) + call.string(1))) }
        let results = try lua.run("""
            local co = coroutine.wrap(function(s) local x = coroutine.yield(twice(s)) return twice(x) end)
            return co('a'), co('b')
            """, chunkName: "t.lua")
        #expect(results == [.string("aa"), .string("bb")])
    }

    @Test func hostFunctionsMayCallBackIntoLua() throws {
        let lua = try makeState()
        lua.register("apply", in: lua.globals) { call in
            let f = try call.function(1)
            return call.push(try call.state.call(.function(f), [call.value(2)]))
        }
        #expect(try lua.run("return apply(function(x) return x * 10 end, 4)", chunkName: "t.lua") == [.integer(40)])
        let error = try #require(expectError(lua, "return apply(function(x) while true do end end, 4)"))
        #expect(error.kind == .instructionBudget, "\(error)")
        try expectUsable(lua)
    }

    @Test func hostAllocationsPastTheCapRaiseAfterReturning() throws {
        let lua = try makeState(memory: 4 << 20)
        lua.register("big", in: lua.globals) { call in call.push(.string(String(repeating: "x", count: 8 << 20))) }
        let error = try #require(expectError(lua, "local keep = big()\nreturn #keep"))
        #expect(error.kind == .memory, "\(error)")
        try expectUsable(lua)
    }

    @Test func aMillionHostCallsDoNotLeak() throws {
        let lua = try makeState(budget: nil)
        lua.register("id", in: lua.globals) { call in call.push(call.value(1)) }
        let f = try lua.load("local id = id for i = 1, 1000000 do id({}) id('s' .. (i % 10)) end", chunkName: "t.lua")
        try lua.call(.function(f))
        lua.collectGarbage()
        let before = lua.memoryUsed
        try lua.call(.function(f))
        lua.collectGarbage()
        #expect(lua.memoryUsed <= before + 16 * 1024)
    }
}
