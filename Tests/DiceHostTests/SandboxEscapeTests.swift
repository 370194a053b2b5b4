import DiceHost
import Foundation
import Lua
import Testing

/// Issue 25, items 1-6: the mechanisms that let a script hang the host, break
/// determinism or outlive a rollback.
@Suite struct SandboxEscapeTests {
    func game(_ source: String, players: [String] = ["Ann", "Bob"]) throws -> Game {
        try Game(source: source, path: "test.lua", players: players, seed: 1,
                 limits: LuaLimits(memoryBytes: 16 << 20, instructionBudget: 200_000))
    }

    /// Runs `body` on its own thread and fails (instead of hanging the suite) if it has
    /// not returned within `seconds`.
    func finishes(within seconds: Double, sourceLocation: SourceLocation = #_sourceLocation, _ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread { body(); done.signal() }
        thread.stackSize = 8 << 20
        thread.start()
        if done.wait(timeout: .now() + seconds) == .timedOut {
            Issue.record("still running after \(seconds) s (the host hangs)", sourceLocation: sourceLocation)
        }
    }

    // MARK: 1. to-be-closed variables in coroutines

    static let closing = """
        local r = rules { name = "Closing", players = {1, 2} }
        local spin = {__close = function() while true do end end}
        function r.roll(g, p, roll) end
        r.actions = {
          wrap = function(g, p)
            local f = coroutine.wrap(function() local x <close> = setmetatable({}, spin); while true do end end)
            f()
          end,
          close = function(g, p)
            local co = coroutine.create(function() local x <close> = setmetatable({}, spin); while true do end end)
            coroutine.resume(co)
            coroutine.close(co)
          end,
          stash = function(g, p)
            g.state.co = coroutine.create(function()
              local x <close> = setmetatable({}, spin)
              coroutine.yield()
              while true do end
            end)
            coroutine.resume(g.state.co)
          end,
          spin = function(g, p) coroutine.resume(g.state.co) end,
          closeit = function(g, p)
            local ok, err = coroutine.close(g.state.co)
            g.state.closed = tostring(ok) .. " " .. tostring(err)
          end,
          fine = function(g, p)
            local closed = 0
            local co = coroutine.wrap(function()
              local x <close> = setmetatable({}, {__close = function() closed = closed + 1 end})
              coroutine.yield(1)
              error("stop", 0)
            end)
            co()
            local ok, err = pcall(co)
            g.state.fine = tostring(ok) .. " " .. err .. " " .. closed
          end,
        }
        return r
        """

    @Test func aCloseHandlerInACoroutineWhoseBudgetRanOutIsNeverRun() throws {
        let game = try game(Self.closing)
        nonisolated(unsafe) let shared = game
        finishes(within: 30) {
            expectRefused(shared, containing: "instruction budget exceeded") { try shared.act("wrap") }
            expectRefused(shared, containing: "instruction budget exceeded") { try shared.act("close") }
        }
    }

    @Test func aCoroutineTheBudgetStoppedStaysStoppedInLaterInputs() throws {
        let game = try game(Self.closing)
        try game.act("stash")
        nonisolated(unsafe) let shared = game
        finishes(within: 30) {
            expectRefused(shared, containing: "instruction budget exceeded") { try shared.act("spin") }
            // The rollback put g.state back; the coroutine in it died in the budget's error.
            do { try shared.act("closeit") } catch { Issue.record("\(error)") }
        }
        guard case .string(let closed) = game.lua.get(game.state.tableRef!, "closed") else {
            Issue.record("closeit did not finish")
            return
        }
        #expect(closed.hasPrefix("false "), "\(closed)")
        #expect(closed.contains("instruction budget exceeded"), "\(closed)")
    }

    @Test func coroutinesStillCloseAsLuaDoesWhileTheBudgetLasts() throws {
        let game = try game(Self.closing)
        try game.act("fine")
        #expect(game.lua.get(game.state.tableRef!, "fine") == .string("false stop 1"))
    }

    // MARK: 2. the rule table, the globals and the libraries are read-only

    static let writer = """
        local r = rules { name = "Writer", players = {1, 2}, params = { target = 10 } }
        helper_count = 0                   -- a global the script defines while it loads
        local data = {1, 2, 3}
        function r.setup(g) g.state.n = 0 end
        function r.roll(g, p, roll) g.state.n = g.state.n + 1 end
        r.actions = {
          replace = function(g, p) r.actions.replace = function() end; error("failed after") end,
          newaction = function(g, p) r.actions.other = function() end end,
          hook = function(g, p) r.roll = function() end end,
          global = function(g, p) helper_count = helper_count + 1 end,
          newglobal = function(g, p) brand_new = 1 end,
          env = function(g, p) _ENV.helper_count = 5 end,
          library = function(g, p) string.upper = string.lower end,
          led = function(g, p) led.blink = nil end,
          raw = function(g, p) rawset(_G, "helper_count", 7) end,
          rawrule = function(g, p) rawset(r, "roll", nil) end,
          meta = function(g, p) setmetatable(r, {}) end,
          params = function(g, p) r.params.target = 99 end,
          insert = function(g, p) table.insert(r.actions, 1) end,
          look = function(g, p)
            local names = {}
            for name in pairs(r.actions) do names[#names + 1] = name end
            local k = next(r.actions)
            g.state.seen = table.concat(names, ",") .. " " .. tostring(k) .. " " .. tostring(rawget(r, "params") ~= nil)
              .. " " .. tostring(getmetatable(r)) .. " " .. helper_count .. " " .. #_G.string.rep("ab", 2)
              .. " " .. tostring(rawget(_G, "helper_count")) .. " " .. type(getmetatable(rules)) .. " " .. ("x"):upper()
          end,
        }
        return r
        """

    @Test func writesToTheRulesTheGlobalsOrTheLibrariesAreErrorsThatNameWhereDataBelongs() throws {
        let game = try game(Self.writer)
        for action in ["replace", "newaction", "hook", "global", "newglobal", "env", "library", "led", "raw", "rawrule",
                       "params", "insert"] {
            expectRefused(game, containing: "read-only once the script has loaded (game data belongs in g.state or on the player tables)") {
                try game.act(action)
            }
        }
        expectRefused(game, containing: "cannot change the metatable") { try game.act("meta") }
        try game.act("look")
        let names = "env,global,hook,insert,led,library,look,meta,newaction,newglobal,params,raw,rawrule,replace"
        #expect(game.lua.get(game.state.tableRef!, "seen") == .string("\(names) env true nil 0 4 0 table X"))
        // The game plays on with the rules it loaded.
        try game.roll(values: [3])
        #expect(game.lua.get(game.state.tableRef!, "n") == .integer(1))
    }

    @Test func aReloadMayDefineGlobalsAndANewRuleTableAgain() throws {
        let game = try game(Self.writer)
        try game.reload(source: Self.writer.replacingOccurrences(of: "helper_count = 0", with: "helper_count = 40"))
        try game.act("look")
        guard case .string(let seen) = game.lua.get(game.state.tableRef!, "seen") else { Issue.record("no look"); return }
        #expect(seen.contains(" 40 "), "\(seen)")
    }

    // MARK: 3. pairs orders keys that are equal as floats

    @Test func keysEqualAsFloatsHaveOneOrder() throws {
        let source = """
            local r = rules { name = "Order", players = 1 }
            function r.roll(g, p, roll)
              local orders = {}
              for round = 1, 20 do
                local t = {}
                if round % 2 == 0 then t[2^63] = "f"; t[math.maxinteger] = "i"; t[math.maxinteger - 1] = "j"
                else t[math.maxinteger - 1] = "j"; t[math.maxinteger] = "i"; t[2^63] = "f" end
                for i = 1, round do t[{}] = nil; t["k" .. i] = i end
                local seen = {}
                for k, v in pairs(t) do if type(k) == "number" then seen[#seen + 1] = v end end
                local k, seq = next(t), {}
                while k ~= nil do if type(k) == "number" then seq[#seq + 1] = t[k] end k = next(t, k) end
                orders[#orders + 1] = table.concat(seen) .. "/" .. table.concat(seq)
              end
              g.state.orders = table.concat(orders, " ")
            end
            return r
            """
        let game = try game(source, players: ["Ann"])
        try game.roll(values: [1])
        let expected = Array(repeating: "jif/jif", count: 20).joined(separator: " ")
        #expect(game.lua.get(game.state.tableRef!, "orders") == .string(expected))
    }

    // MARK: 4. a game ends once

    static let twice = """
        local r = rules { name = "Twice", players = {2, 3} }
        function r.roll(g, p, roll) end
        r.actions = {
          wins = function(g, p) g:win(g.players[1]); g:win(g.players[2]) end,
          windraw = function(g, p) g:win(g.players[1]); g:draw() end,
          knockout = function(g, p) g:eliminate(g.players[2]); g:win(g.players[2]) end,
          checked = function(g, p) g:win(g.players[1]); if not g:is_over() then g:win(g.players[2]) end end,
        }
        return r
        """

    @Test func aSecondOutcomeInOneInputIsAnErrorAndTheInputIsUndone() throws {
        let game = try game(Self.twice)
        for action in ["wins", "windraw", "knockout"] {
            expectRefused(game, containing: "after the game ended (Ann won): a game ends once") { try game.act(action) }
        }
        #expect(game.outcome == nil)
        try game.act("checked")
        #expect(game.outcome == .win("Ann"))
        #expect(game.events.filter { if case .win = $0.kind { return true } else { return false } }.count == 1)
    }

    @Test func aSimulationOfAGameThatEndsTwiceReportsTheError() throws {
        let source = """
            local r = rules { name = "Twice", players = 2 }
            function r.roll(g, p, roll) g:win(p); g:win(p) end
            return r
            """
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("twice-\(UUID().uuidString).lua").path
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for fast in [true, false] {
            var plan = Simulation.Plan(rulesFile: path, players: ["Ann", "Bob"], games: 3, seed: 1)
            plan.playsInLua = fast
            let result = try Simulation.run(plan)
            #expect(result.errors == 3 && result.wins == [0, 0], "fast: \(fast)")
            #expect(result.firstError?.message.contains("a game ends once") == true, "\(String(describing: result.firstError))")
        }
    }

    // MARK: 5. a reload is a rollback point

    static let counter = """
        local r = rules { name = "Counter", players = 2, params = { target = 10 } }
        function r.setup(g) g.state.count = 0 end
        function r.roll(g, p, roll) g.state.count = g.state.count + 1; g:next_turn() end
        r.actions = {
          boom = function(g, p) g.state.count = 99; error("boom") end,
          spin = function(g, p) while true do end end,
        }
        return r
        """

    @Test func aRefusalOfAnyKindAfterAReloadKeepsTheReloadedParams() throws {
        let refusals: [(String, (Game) throws -> Void)] = [
            ("a roll by the wrong player", { try $0.roll(values: [1], by: "Ann") }),
            ("an unknown action", { try $0.act("nothing") }),
            ("an unknown player", { try $0.act("boom", by: "Zed") }),
            ("a hook's error", { try $0.act("boom") }),
            ("a spent budget", { try $0.act("spin") }),
            ("a roll of bad values", { try $0.roll(values: [0]) }),
        ]
        for (name, refusal) in refusals {
            let game = try game(Self.counter)
            try game.roll(values: [2])
            try game.reload(source: Self.counter.replacingOccurrences(of: "target = 10", with: "target = 20"))
            #expect(game.lua.get(game.gameTable, path: "params", "target") == .integer(20))
            #expect(throws: (any Error).self, "\(name)") { try refusal(game) }
            #expect(game.lua.get(game.gameTable, path: "params", "target") == .integer(20), "after \(name)")
            #expect(game.lua.get(game.state.tableRef!, "count") == .integer(1), "after \(name)")
        }
    }

    // MARK: 7. a rule file is read as bytes

    /// A Latin-1 byte in a string literal stays that one byte, with or without a
    /// byte-order mark or a `#!` line before it.
    @Test func aRuleFileIsReadAsBytes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latin1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("latin1.lua").path
        let body = Array("""
            local r = rules { name = "Caf", players = 1 }
            local s = "caf
            """.utf8) + [0xE9] + Array("""
            "
            function r.setup(g) g.state.n = #s; g.state.last = s:byte(-1) end
            function r.roll(g, p, roll) end
            return r
            """.utf8)
        for prefix in [[], [0xEF, 0xBB, 0xBF], Array("#!/usr/bin/env dicehost\n".utf8)] as [[UInt8]] {
            try Data(prefix + body).write(to: URL(fileURLWithPath: path))
            let game = try Game(rulesFile: path, players: ["Ann"])
            #expect(game.lua.get(game.state.tableRef!, "n") == .integer(4))
            #expect(game.lua.get(game.state.tableRef!, "last") == .integer(0xE9))
            try game.reload()
            try game.restart()
            #expect(game.lua.get(game.state.tableRef!, "last") == .integer(0xE9))
        }
    }

    // MARK: 6. output

    @Test func whatAScriptPrintsWhileItLoadsFollowsTheStartLine() throws {
        let source = """
            print("loading the rules")
            local r = rules { name = "Chatty", players = 1 }
            function r.setup(g) g:say("set up") end
            function r.roll(g, p, roll) end
            return r
            """
        let game = try game(source, players: ["Ann"])
        let lines = game.events.map(\.description)
        #expect(lines.first?.hasPrefix("start Ann") == true, "\(lines)")
        #expect(Array(lines.dropFirst()) == ["say loading the rules", "say set up", "turn Ann"])
    }

    @Test func controlCharactersInAnErrorAreEscaped() throws {
        let source = """
            local r = rules { name = "Loud", players = 1 }
            function r.roll(g, p, roll) error("\\27[2Jgone\\7", 0) end
            return r
            """
        let game = try game(source, players: ["Ann"])
        do {
            try game.roll(values: [1])
            Issue.record("the roll did not fail")
        } catch {
            let text = "\(error)"
            #expect(text == "\\u{1B}[2Jgone\\u{7}", "\(text)")
            #expect(!text.unicodeScalars.contains { $0.value < 0x20 })
        }
        do {
            _ = try Game(source: "error('\\27]0;title\\7')", path: "bad.lua", players: ["Ann"])
            Issue.record("the script loaded")
        } catch {
            #expect(!"\(error)".unicodeScalars.contains { $0.value < 0x20 }, "\(error)")
        }
    }
}
