@testable import DiceHost
import Lua
import Testing

/// Issue 32: what a server does for every input, made cheaper without changing what it
/// means. A seat's view and table come from one call of the view hook, the game left as
/// it was; the clock caught up before an input takes no copy of `g` when no timer is due.
@Suite struct ServedLooksTests {
    static let rules = """
        local r = rules { name = "Served looks", players = {2, 2}, dice = false }
        function r.setup(g)
          g.state.secret = {Ann = 1, Bob = 2}
          timer.after(1000, function(g) g.state.rang = g.now end)
        end
        function r.roll(g, p, r) end
        function r.view(g, viewer)
          count_view()
          return {mine = viewer and g.state.secret[viewer.name], now = g.now}
        end
        function r.table(v, t)
          local mine = 99                            -- v is read-only: computed beside it
          return {headline = "you hold " .. tostring(mine)}
        end
        r.actions = {
          stamp = function(g, p) g.state.stamped = g.now end,
          fail = function(g, p) g.state.stamped = -1; error("refused on purpose", 0) end,
        }
        return r
        """

    /// A game whose view hook counts its calls in `calls`.
    func game(counting calls: Counter) throws -> Game {
        try Game(source: Self.rules, path: "test.lua", players: ["Ann", "Bob"], seed: 1,
                 limits: LuaLimits(memoryBytes: 16 << 20, instructionBudget: 2_000_000),
                 beforeRules: { lua in
                     lua.set(lua.globals, "count_view", lua.function { _ in calls.value += 1; return 0 })
                 })
    }

    final class Counter { var value = 0 }

    func stateField(_ game: Game, _ name: String) -> LuaValue {
        guard case .table(let state) = game.state else { return .nil }
        return game.lua.get(state, .string(name))
    }

    @Test func aSeatsViewAndTableComeFromOneViewCallAndEqualTheSeparateLooks() throws {
        let calls = Counter()
        let game = try game(counting: calls)
        let before = GameSession(game: game).describeState()
        for viewer in ["Ann", "Bob", nil] as [String?] {
            calls.value = 0
            let (view, table) = game.viewAndTable(for: viewer)
            #expect(calls.value == 1)
            calls.value = 0
            let separateView = try game.view(for: viewer)
            let separateTable = try game.table(for: viewer)
            #expect(calls.value == 2)
            #expect(try view.get() == separateView)
            #expect(try table?.get() == separateTable)
            // What the table hook computed is not in the view that was sent.
            #expect(separateView.description.contains("99") == false)
            #expect(try table?.get().description.contains("you hold 99") == true)
        }
        #expect(try game.viewAndTable(for: "Ann").view.get().description == "{\"mine\":1,\"now\":0}")
        #expect(try game.viewAndTable(for: "Bob").view.get().description == "{\"mine\":2,\"now\":0}")
        #expect(stateField(game, "peeked") == .nil)
        #expect(GameSession(game: game).describeState() == before)
    }

    @Test func anUnknownSeatFailsBothViewAndTable() throws {
        let game = try game(counting: Counter())
        let (view, table) = game.viewAndTable(for: "Cy")
        #expect(throws: GameError.self) { try view.get() }
        #expect(throws: GameError.self) { try table?.get() }
    }

    @Test func aServedGamesClockMovesWithoutACopyOfGWhenNoTimerIsDue() throws {
        let game = try game(counting: Counter())
        game.keepsUndoHistory = false
        let copy = try game.currentSnapshot()
        try game.advance(by: 400)
        #expect(game.now == 400)
        #expect(game.lastSnapshot == copy) // no copy taken: nothing ran that could change g
        // The hooks see the clock where it is, after an input and after a rollback alike.
        try game.act("stamp")
        #expect(stateField(game, "stamped") == .integer(400))
        try game.advance(by: 100)
        #expect(throws: GameError.self) { try game.act("fail") }
        #expect(stateField(game, "stamped") == .integer(400))
        #expect(try game.view(for: "Ann").description == "{\"mine\":1,\"now\":500}")
        try game.act("stamp")
        #expect(stateField(game, "stamped") == .integer(500))
        // A timer due in the step still fires, in a transaction, at its time.
        try game.advance(by: 600)
        #expect(stateField(game, "rang") == .integer(1000))
        #expect(game.now == 1100)
    }

    @Test func withUndoKeptEveryClockStepIsStillAnUndoPoint() throws {
        let game = try game(counting: Counter())
        let copy = try game.currentSnapshot()
        try game.advance(by: 400)
        #expect(game.lastSnapshot != copy)
        try game.undo()
        #expect(game.now == 0)
    }
}

/// Issue 32: a view hook declared without its viewer (`view(g)`) cannot show one seat
/// anything another does not see, so a server's looks call it once for every seat; the
/// table hook still runs per seat, each from the view as it was made.
@Suite struct SharedViewTests {
    static let rules = """
        local r = rules { name = "Same view", players = {2, 2}, dice = false }
        function r.setup(g) g.state.pile = {top = 7} end
        function r.roll(g, p, r) end
        function r.view(g)
          count_view()
          return {pile = g.state.pile, n = 0}
        end
        function r.table(v, t)
          local n = v.n + 1              -- v, shared by all seats, is read-only
          local top = v.pile.top + 1
          return {headline = (t.you or "spectator") .. " " .. n .. " " .. top}
        end
        return r
        """

    func game(_ source: String = rules, counting calls: ServedLooksTests.Counter) throws -> Game {
        try Game(source: source, path: "test.lua", players: ["Ann", "Bob"], seed: 1,
                 limits: LuaLimits(memoryBytes: 16 << 20, instructionBudget: 2_000_000),
                 beforeRules: { lua in
                     lua.set(lua.globals, "count_view", lua.function { _ in calls.value += 1; return 0 })
                 })
    }

    @Test func aViewWithoutAViewerRunsOnceAndEverySeatGetsItsOwnTableFromItAsMade() throws {
        let calls = ServedLooksTests.Counter()
        let game = try game(counting: calls)
        #expect(game.viewIsTheSameForEveryone)
        let before = GameSession(game: game).describeState()
        let viewers: [String?] = ["Ann", "Bob", nil]
        let looks = game.viewsAndTables(for: viewers)
        #expect(calls.value == 1)
        #expect(try looks.map { try $0.view.get().description } == Array(repeating: "{\"n\":0,\"pile\":{\"top\":7}}", count: 3))
        #expect(try looks.map { try $0.table?.get().description } == [
            "{\"headline\":\"Ann 1 8\"}", "{\"headline\":\"Bob 1 8\"}", "{\"headline\":\"spectator 1 8\"}"])
        // The same as each seat's own look, and the game as it was.
        for (viewer, look) in zip(viewers, looks) {
            let alone = game.viewAndTable(for: viewer)
            #expect(try look.view.get() == alone.view.get())
            #expect(try look.table?.get() == alone.table?.get())
        }
        #expect(GameSession(game: game).describeState() == before)
    }

    @Test func aTableHookThatWritesIntoTParamsFailsNamingIt() throws {
        let source = Self.rules.replacingOccurrences(of: "  local top = v.pile.top + 1\n", with: "  t.params.seen = 1\n  local top = v.pile.top + 1\n")
        #expect(source != Self.rules)
        let game = try game(source, counting: .init())
        let before = GameSession(game: game).describeState()
        for look in game.viewsAndTables(for: ["Ann", "Bob"]) {
            guard case .failure(let error)? = look.table else { Issue.record("the table hook wrote and did not fail"); continue }
            #expect("\(error)".contains("table hook wrote g.params.seen: a table hook must not change the game"), "\(error)")
        }
        #expect(GameSession(game: game).describeState() == before)
    }

    @Test func aViewThatTakesItsViewerStillRunsForEachSeat() throws {
        let calls = ServedLooksTests.Counter()
        let game = try game(ServedLooksTests.rules, counting: calls)
        #expect(!game.viewIsTheSameForEveryone)
        let looks = game.viewsAndTables(for: ["Ann", "Bob"])
        #expect(calls.value == 2)
        #expect(try looks.map { try $0.view.get().description } == ["{\"mine\":1,\"now\":0}", "{\"mine\":2,\"now\":0}"])
    }

    @Test func aViewTakingDotsOrNoHookAtAllIsJudgedByWhatItCanRead() throws {
        let dots = Self.rules.replacingOccurrences(of: "function r.view(g)", with: "function r.view(g, ...)")
        #expect(try !game(dots, counting: .init()).viewIsTheSameForEveryone)
        let none = """
            local r = rules { name = "No view", players = {2, 2}, dice = false }
            function r.setup(g) g.state.pile = {top = 7} end
            function r.roll(g, p, r) end
            function r.table(v, t)
              local n = (v.n or 0) + 1
              local top = v.state.pile.top + 1
              return {headline = t.you .. " " .. n .. " " .. top}
            end
            return r
            """
        let game = try game(none, counting: .init())
        #expect(!game.hasView && game.viewIsTheSameForEveryone)
        // Without a hook every seat's table gets the same read-only `v` (g's tables in it).
        let looks = game.viewsAndTables(for: ["Ann", "Bob"])
        #expect(try looks.map { try $0.table?.get().description } == ["{\"headline\":\"Ann 1 8\"}", "{\"headline\":\"Bob 1 8\"}"])
    }
}
