@testable import DiceHost
import Lua
import Testing

/// A look (view, table, choices, status hook) runs on a read-only game, and the `g`
/// methods that change the game - passing the turn, ending it, setting or cancelling a
/// timer - are refused in one, naming the method, the hook and where to call it instead:
/// a look has no rollback of its own, so such a call would otherwise stick.
@Suite struct LooksCannotChangeTheGameTests {
    static let rules = """
        local r = rules { name = "Looks that act", players = {2, 2}, dice = false }
        function r.setup(g)
          g.state.mode = "read"
          g.state.handle = timer.after(1000, function(g) g.state.fired = true end)
        end
        function r.roll(g, p, r) end
        r.actions = { mode = function(g, p, m) g.state.mode = m end, pick = function(g, p, n) end }
        local function act(g, p)
          local m = g.state.mode
          if m == "next_turn" then g:next_turn() end
          if m == "win" then g:win(p or g.players[1]) end
          if m == "lose" then g:lose(g.players[1]) end
          if m == "draw" then g:draw() end
          if m == "eliminate" then g:eliminate(g.players[2]) end
          if m == "after" then timer.after(10, function(g) end) end
          if m == "every" then timer.every(10, function(g) end) end
          if m == "cancel" then g.state.handle:cancel() end
          if m == "say" then g:say("looking") end
        end
        r.choices = { pick = function(g, p) act(g, p); return {1, 2} end }
        function r.view(g, viewer) act(g, viewer); return {mode = g.state.mode} end
        function r.status(g) act(g); return "mode " .. g.state.mode end
        return r
        """

    func game(mode: String) throws -> Game {
        let game = try makeGame(Self.rules)
        game.keepsUndoHistory = false
        try game.act("mode", by: "Ann", arguments: [.string(mode)])
        return game
    }

    @Test(arguments: [
        ("next_turn", "view hook called g:next_turn(): a view must not change the game; pass the turn in the hook that handles the input"),
        ("win", "view hook called g:win(): a view must not change the game; end the game in the hook that handles the input"),
        ("lose", "view hook called g:lose(): a view must not change the game"),
        ("draw", "view hook called g:draw(): a view must not change the game"),
        ("eliminate", "view hook called g:eliminate(): a view must not change the game"),
        ("after", "view hook called timer.after: a view must not change the game; set timers in the hook that handles the input"),
        ("every", "view hook called timer.every: a view must not change the game"),
        ("cancel", "view hook called handle:cancel(): a view must not change the game"),
    ])
    func aViewThatChangesTheGameFailsNamingTheMethod(mode: String, message: String) throws {
        let game = try game(mode: mode)
        let before = RollbackPropertyTests.fingerprint(game)
        let current = game.currentPlayer
        do {
            _ = try game.view(for: "Ann")
            Issue.record("the view called a game-changing method and did not fail")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
            #expect("\(error)".contains("test.lua:"), "the error names the script's line: \(error)")
        }
        for look in game.viewsAndTablesText(for: ["Ann", "Bob"]) {
            #expect(throws: (any Error).self) { try look.view.get() }
        }
        #expect(game.currentPlayer == current)
        #expect(!game.isOver)
        #expect(RollbackPropertyTests.fingerprint(game) == before)
    }

    @Test func aChoicesFunctionOrAStatusHookThatPassesTheTurnFails() throws {
        let game = try game(mode: "next_turn")
        let before = RollbackPropertyTests.fingerprint(game)
        let lists = try game.legalArguments(of: ["pick"], by: "Ann")
        #expect(throws: (any Error).self) { try lists[0].get() }
        if case .failure(let error) = lists[0] {
            #expect("\(error)".contains("choices.pick called g:next_turn(): a choices function must not change the game"), "\(error)")
        }
        let status = game.statusLine() ?? ""
        #expect(status.contains("called g:next_turn()") && status.contains("must not change the game"), "\(status)")
        #expect(game.currentPlayer == "Ann")
        #expect(RollbackPropertyTests.fingerprint(game) == before)
    }

    @Test func whatALookSaysIsDroppedNotRefused() throws {
        let game = try game(mode: "say")
        let events = game.events.count
        #expect(try game.view(for: "Ann").description == #"{"mode":"say"}"#)
        #expect(game.events.count == events)
    }

    @Test func theSameMethodsStillWorkInAnInput() throws {
        let game = try game(mode: "read")
        let source = Self.rules.replacingOccurrences(of: "r.actions = { mode", with: "r.actions = { pass = function(g, p) g:next_turn() end, mode")
        let passing = try makeGame(source)
        try passing.act("pass", by: "Ann")
        #expect(passing.currentPlayer == "Bob")
        #expect(try game.view(for: "Ann").description == #"{"mode":"read"}"#)
    }

    @Test func aSharedViewIsReadOnlyToEveryTableHook() throws {
        let source = """
            local r = rules { name = "Shared", players = {2, 2}, dice = false }
            function r.setup(g) g.state.top = 7 end
            function r.roll(g, p, r) end
            function r.view(g) return {n = 0, top = g.state.top} end
            function r.table(v, t) v.n = v.n + 1; return {headline = t.you .. " " .. v.n} end
            return r
            """
        let game = try makeGame(source)
        #expect(game.viewIsTheSameForEveryone)
        for look in game.viewsAndTables(for: ["Ann", "Bob"]) {
            guard case .failure(let error)? = look.table else { Issue.record("the table hook wrote a shared v and did not fail"); continue }
            #expect("\(error)".contains("table hook wrote v.n: a table hook must not change the game"), "\(error)")
        }
        #expect(throws: (any Error).self) { try game.table(for: "Ann") }
    }
}
