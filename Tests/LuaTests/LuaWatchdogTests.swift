import Foundation
import Lua
import Testing

/// Watched calls run with no instruction budget; the watchdog stops one whose step
/// makes no progress, and leaves alone one that keeps reporting progress.
@Suite struct LuaWatchdogTests {
    /// A state with `step()` (reports progress) and a function `f` defined by `source`.
    func watchedState(_ source: String, budget: Int? = 1_000) throws -> (LuaState, LuaValue) {
        let lua = try makeState(budget: budget)
        lua.register("step", in: lua.globals) { _ in
            lua.beginStep()
            return 0
        }
        let f = try #require(try lua.run(source, chunkName: "test.lua").first)
        return (lua, f)
    }

    @Test func aStalledStepIsStoppedAtItsLineAndTheStateStaysUsable() throws {
        let (lua, endless) = try watchedState("return function()\n  local n = 0\n  while true do\n    n = n + 1\n  end\nend",
                                               budget: 10_000_000)
        let watchdog = LuaWatchdog(period: 0.01)
        defer { watchdog.stop() }
        watchdog.watch(lua)
        #expect(lua.isWatched)
        do {
            _ = try lua.callWatched(endless)
            Issue.record("the endless loop returned")
        } catch let error as LuaError {
            #expect(error.kind == .stalled, "\(error)")
            #expect(error.file == "test.lua" && (3...4).contains(error.line ?? 0), "\(error)")
        }
        try expectUsable(lua)
        // The next watched call is not stopped by what the last one left behind.
        #expect(try lua.callWatched(.function(lua.load("return 7", chunkName: "seven.lua"))) == [.integer(7)])
    }

    @Test func aCallThatKeepsSteppingIsNotStopped() throws {
        // One step every few thousand instructions, for several watchdog periods (about
        // a second). No budget here: with one, steps this long would be reported as
        // possibly over it (next test).
        let (lua, busy) = try watchedState("""
            return function(n)
              local s = 0
              for i = 1, n do
                if i % 1000 == 0 then step() end
                s = s + i % 7
              end
              return s
            end
            """, budget: nil)
        // Looks 100 ms apart: the busy thread would have to be descheduled for 200 ms
        // to look stalled (which a loaded test machine can do to shorter periods).
        let watchdog = LuaWatchdog(period: 0.1)
        defer { watchdog.stop() }
        watchdog.watch(lua)
        let n = 5_000_000
        let expected = (1...n).reduce(0) { $0 + $1 % 7 }
        #expect(try lua.callWatched(busy, [.integer(Int64(n))]) == [.integer(Int64(expected))])
    }

    /// A step that returns, but took longer than its budget could run on the fastest
    /// machine, may have run past it: the call reports it, so the caller can replay the
    /// work under the budget.
    @Test func aStepThatMayHavePassedItsBudgetIsReported() throws {
        let source = """
            return function(n)
              local s = 0
              for i = 1, n do s = s + i % 7 end
              step()
              return s
            end
            """
        let (lua, loop) = try watchedState(source, budget: 1_000_000)
        let watchdog = LuaWatchdog(period: 10)
        defer { watchdog.stop() }
        watchdog.watch(lua)
        // 100 iterations: far inside the budget and its time (250 µs at 4e9/s).
        #expect(try lua.callWatched(loop, [.integer(100)]) == [.integer(Int64((1...100).reduce(0) { $0 + $1 % 7 }))])
        // Over the budget (4,000,000+ instructions), and slower than 250 µs on any machine.
        do {
            _ = try lua.callWatched(loop, [.integer(1_000_000)])
            Issue.record("an over-budget step was not reported")
        } catch let error as LuaError {
            #expect(error.kind == .stalled)
        }
        // Budgeted, the same call fails as the budget says.
        #expect(throws: LuaError.self) { try lua.call(loop, [.integer(1_000_000)]) }
    }

    @Test func unwatchedCallsKeepTheirBudget() throws {
        let (lua, endless) = try watchedState("return function() while true do end end")
        #expect(!lua.isWatched)
        #expect(throws: LuaError.self) { try lua.callWatched(endless) }
        // Watched from another thread only: still budgeted here.
        let watchdog = LuaWatchdog(period: 0.01)
        defer { watchdog.stop() }
        let other = Thread { watchdog.watch(lua) }
        other.start()
        while !lua.isWatchedFromAnyThread { usleep(1_000) }
        #expect(!lua.isWatched)
        do {
            _ = try lua.callWatched(endless)
        } catch let error as LuaError {
            #expect(error.kind == .instructionBudget)
        }
        watchdog.stop()
        #expect(!lua.isWatchedFromAnyThread)
    }
}
