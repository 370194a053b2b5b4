import DiceHost
import Foundation
import Lua
import Testing

/// One user input - a roll, an action, a tick, a restart, a reload - gets one budget
/// across every hook, timer and turn pass it causes. An input that runs out ends with
/// a clear error and leaves the game exactly as it was.
@Suite struct InputBudgetTests {
    /// A refused input (see `expectRefused`), after which the game still plays.
    func expectRolledBack(_ game: Game, containing expected: String, sourceLocation: SourceLocation = #_sourceLocation,
                          _ input: () throws -> Void) throws {
        expectRefused(game, containing: expected, sourceLocation: sourceLocation, input)
        try game.roll(values: [1])
    }

    static let timers = """
        local r = rules { name = "Timers", players = {1, 2} }
        function r.setup(g) g.state.fired = 0 end
        function r.roll(g, p, roll) g.state.last = roll.total end
        r.actions = {
          rearm = function(g, p)
            local function again() g.state.fired = g.state.fired + 1; timer.after(0, again) end
            timer.after(0, again)
          end,
          many = function(g, p, n)
            for i = 1, n do timer.every(1, function(g) g.state.fired = g.state.fired + 1 end) end
          end,
          heavy = function(g, p)
            timer.every(1, function(g) local s = 0 for i = 1, 20000 do s = s + i end g.state.fired = g.state.fired + 1 end)
          end,
          passing = function(g, p)
            timer.after(0, function(g) g:next_turn() end)
          end,
        }
        function r.turn(g, p) if g.state.spin then g:next_turn() end end
        return r
        """

    func timerGame() throws -> Game {
        try Game(source: Self.timers, path: "timers.lua", players: ["Ann"], seed: 1,
                 limits: LuaLimits(memoryBytes: 32 << 20, instructionBudget: 20_000_000))
    }

    @Test func aTimerThatReArmsAtOnceEndsNamingTheTimerAndTheTime() throws {
        let game = try timerGame()
        try game.act("rearm")   // only schedules
        try expectRolledBack(game, containing: "the timers did not settle: timer") { try game.advance(by: 500) }
        do { try game.advance(by: 5) } catch {
            let text = "\(error)"
            #expect(text.hasPrefix("timers.lua:"), "\(text)")
            #expect(text.contains("(its function is at timers.lua:6)"), "\(text)")
            #expect(text.contains("was firing at 0 ms of game time"), "\(text)")
            #expect(text.contains("the input was rolled back"), "\(text)")
        }
    }

    @Test func aTickThatFiresHundredsOfThousandsOfTimersRunsOutOfBudget() throws {
        let game = try timerGame()
        try game.act("many", arguments: [.integer(1_000)])   // the most a game may have pending
        try expectRolledBack(game, containing: "did not settle") { try game.advance(by: 600_000) }
        try game.advance(by: 10)  // ten thousand firings are fine
    }

    @Test func aHeavyRepeatingTimerOverALongTickRunsOutOfBudget() throws {
        let game = try timerGame()
        try game.act("heavy")
        try expectRolledBack(game, containing: "the timers did not settle: timer 1 (its function is at timers.lua:13)") {
            try game.advance(by: 3_600_000)
        }
        // A short tick of the same timer is fine.
        try game.advance(by: 5)
    }

    @Test func ctrlCStopsATimerChainAndRollsBack() throws {
        let game = try Game(source: Self.timers, path: "timers.lua", players: ["Ann"], seed: 1,
                            limits: LuaLimits(memoryBytes: 32 << 20, instructionBudget: Int.max / 4))
        try game.act("rearm")
        let handle = game.lua.interruptHandle
        let stopper = Thread { usleep(200_000); handle.request() }
        stopper.start()
        try expectRolledBack(game, containing: "interrupted") { try game.advance(by: 500) }
    }

    @Test func manyTurnPassesShareTheInputsBudget() throws {
        let source = """
            local r = rules { name = "Spin", players = {2, 2} }
            function r.roll(g, p, roll) g.state.spin = roll.total g:next_turn() end
            function r.turn(g, p)
              if g.state.spin then local s = 0 for i = 1, 30000 do s = s + i end g:next_turn() end
            end
            return r
            """
        let game = try Game(source: source, path: "spin.lua", players: ["Ann", "Bob"], seed: 1,
                            limits: LuaLimits(memoryBytes: 32 << 20, instructionBudget: 20_000_000))
        // 999 passes, each well under the budget alone, cannot all run in one input.
        expectRefused(game, containing: "instruction budget exceeded") { try game.roll(values: [3]) }
    }

    @Test func aRestartAndAReloadEachGetOneBudget() throws {
        let heavySetup = """
            local r = rules { name = "Heavy", players = {1, 2} }
            function r.setup(g) if g.state.never == nil then local s = 0 for i = 1, 10 ^ 9 do s = s + i end end end
            function r.roll(g, p, roll) end
            return r
            """
        #expect(throws: GameError.self) {
            _ = try Game(source: heavySetup, path: "heavy.lua", players: ["Ann"], seed: 1,
                         limits: LuaLimits(memoryBytes: 32 << 20, instructionBudget: 2_000_000))
        }
        let game = try makeGame(minimalRules)
        try game.roll(values: [2])
        expectRefused(game, containing: "instruction budget exceeded") {
            try game.reload(source: "local x = 0 while true do x = x + 1 end")
        }
        #expect(game.rules.name == "Mini")
    }

    @Test func aMetatableSetByAFailingInputIsRolledBack() throws {
        let source = """
            local r = rules { name = "Meta", players = {1, 2} }
            function r.setup(g) g.state.box = setmetatable({n = 1}, {__index = function() return "old" end}) end
            function r.roll(g, p, roll) end
            r.actions = {
              swap = function(g, p) setmetatable(g.state.box, {__index = function() return "new" end}) error("then fail") end,
              strip = function(g, p) setmetatable(g.state.box, nil) g.state.box.n = 2 error("then fail") end,
              adopt = function(g, p) g.state.other = setmetatable({}, {__index = function() return "x" end}) error("then fail") end,
              read = function(g, p) g:say("%s %s %s", tostring(g.state.box.missing), g.state.box.n, tostring(g.state.other)) end,
            }
            return r
            """
        let game = try makeGame(source)
        for action in ["swap", "strip", "adopt"] {
            try expectRolledBack(game, containing: "then fail") { try game.act(action) }
        }
        try game.act("read")
        #expect(log(game).last == "say old 1 nil")
    }

    @Test func aDeeplyNestedStateIsKeptAndRolledBack() throws {
        let source = """
            local r = rules { name = "Deep", players = {1, 2} }
            function r.setup(g) end
            function r.roll(g, p, roll) end
            r.actions = {
              nest = function(g, p, n)
                local t = {}
                g.state.deep = t
                for i = 1, n do local inner = {} t.next = inner t = inner end
              end,
              fail = function(g, p) g.state.deep = nil error("then fail") end,
              depth = function(g, p) local n, t = 0, g.state.deep while t.next do n = n + 1 t = t.next end g:say("depth %d", n) end,
            }
            return r
            """
        let game = try Game(source: source, path: "deep.lua", players: ["Ann"], seed: 1,
                            limits: LuaLimits(memoryBytes: 64 << 20, instructionBudget: 50_000_000))
        try game.act("nest", arguments: [.integer(100_000)])
        try expectRolledBack(game, containing: "then fail") { try game.act("fail") }
        try game.act("depth")
        #expect(log(game).last == "say depth 100000")
        try game.undo()
        try game.undo()
        try game.undo()
        try game.act("nest", arguments: [.integer(10)])
    }

    @Test func anInputThatGrowsTheStatePastWhatCanBeCopiedIsRefused() throws {
        let source = """
            local r = rules { name = "Grow", players = {1, 2} }
            function r.setup(g) g.state.items = {} end
            function r.roll(g, p, roll) end
            r.actions = {
              grow = function(g, p, n) for i = 1, n do g.state.items[#g.state.items + 1] = {i} end end,
            }
            return r
            """
        let game = try Game(source: source, path: "grow.lua", players: ["Ann"], seed: 1,
                            limits: LuaLimits(memoryBytes: 16 << 20, instructionBudget: 100_000_000))
        try game.act("grow", arguments: [.integer(1_000)])
        try expectRolledBack(game, containing: "too large") { try game.act("grow", arguments: [.integer(70_000)]) }
        try game.act("grow", arguments: [.integer(1_000)])
    }

    /// Every reload used to keep the old rule tables alive; 1000 alternating good and
    /// broken reloads must leave the state's memory flat.
    @Test func reloadsDoNotLeak() throws {
        let game = try makeGame(minimalRules)
        let broken = "local r = rules { name = 'Broken', players = {1, 4} }\nreturn 42"
        func settled() -> Int { game.lua.collectGarbage(); game.lua.collectGarbage(); return game.lua.memoryUsed }
        for _ in 0..<20 { try game.reload(source: minimalRules); _ = try? game.reload(source: broken) }
        let start = settled()
        for _ in 0..<500 {
            try game.reload(source: minimalRules)
            #expect(throws: GameError.self) { try game.reload(source: broken) }
        }
        let end = settled()
        #expect(end - start < 64 << 10, "grew from \(start) to \(end) bytes over 1000 reloads")
        try game.roll(values: [2])
    }

    /// What `print` writes is kept in the game's log, so it counts against the game's
    /// memory limit like `g:say`, and a print loop fails the input instead of growing.
    @Test func aPrintLoopStopsAtTheGamesMemoryLimit() throws {
        let source = """
            local r = rules { name = "Chatty", players = {1, 2} }
            function r.roll(g, p, roll) end
            r.actions = { chat = function(g, p) local line = ("x"):rep(1000) while true do print(line) end end }
            return r
            """
        let game = try Game(source: source, path: "chatty.lua", players: ["Ann"], seed: 1,
                            limits: LuaLimits(memoryBytes: 4 << 20, instructionBudget: 100_000_000))
        try expectRolledBack(game, containing: "print: the game's memory limit of 4 MiB is reached") { try game.act("chat") }
    }
}
