// Cost of calling a Swift function from Lua against calling a Lua function from Lua.
// Run with `make bench` (release build). Prints ns per call, medians of several runs.
import Foundation
import Lua

let iterations = 10_000_000
let runs = 7

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func nanosecondsPerIteration(_ lua: LuaState, _ function: LuaValue) throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try lua.call(function, [.integer(Int64(iterations))])
    return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations)
}

let lua = try LuaState(limits: LuaLimits(instructionBudget: nil))
lua.register("host_identity", in: lua.globals) { call in
    call.push(try call.integer(1))
}
let loops = try lua.run("""
    local function lua_identity(x) return x end
    local host_identity = host_identity
    return function(n) for i = 1, n do end end,
           function(n) for i = 1, n do lua_identity(i) end end,
           function(n) for i = 1, n do host_identity(i) end end
    """, chunkName: "bench/calls.lua")

var empty: [Double] = [], luaCalls: [Double] = [], hostCalls: [Double] = []
for _ in 0..<runs {
    empty.append(try nanosecondsPerIteration(lua, loops[0]))
    luaCalls.append(try nanosecondsPerIteration(lua, loops[1]))
    hostCalls.append(try nanosecondsPerIteration(lua, loops[2]))
}
let (e, l, h) = (median(empty), median(luaCalls), median(hostCalls))
print(String(format: "empty loop          %6.2f ns/iteration", e))
print(String(format: "Lua -> Lua call     %6.2f ns/call (%.2f net of the loop)", l, l - e))
print(String(format: "Lua -> Swift call   %6.2f ns/call (%.2f net of the loop)", h, h - e))
print(String(format: "ratio Swift/Lua     %6.2f (net %.2f); target <= 2.00", h / l, (h - e) / (l - e)))
print("medians of \(runs) runs of \(iterations) calls")
