@testable import DiceHost
import Lua
import Testing

/// Issue 32: the copy of `g` taken after every input (the next input's rollback point)
/// shares the copies of the tables the input left alone with the copy it began from, so
/// a card game copies the few tables a move changes, not the whole deck. Rollback, undo
/// and the looks read those copies as before.
@Suite struct SharedRollbackCopyTests {
    static let rules = """
        local r = rules { name = "Deck", players = {2, 2}, dice = false }
        function r.setup(g)
          g.state.stack = cards.deck()
          g.state.pile = {}
        end
        function r.roll(g, p, r) end
        r.anytime = {"flip", "mark", "fail"}
        r.actions = {
          flip = function(g, p) g.state.pile[#g.state.pile + 1] = table.remove(g.state.stack) end,
          mark = function(g, p) g.state.pile[#g.state.pile].marked = p.name end,
          fail = function(g, p) g.state.pile[1].rank = 99; g.state.stack = {}; error("refused on purpose", 0) end,
        }
        function r.view(g) return {top = g.state.pile[#g.state.pile], left = #g.state.stack} end
        function r.table(v, t) return {headline = tostring(v.top) .. " " .. v.left} end
        return r
        """

    /// How many tables two snapshots copy, and how many of those copies they share.
    func shared(_ game: Game, _ copy: [LuaValue], _ earlier: [LuaValue]) throws -> (tables: Int, shared: Int) {
        let count = try game.lua.run("""
            return function(copies, earlier)
              local tables, shared = 0, 0
              for t, c in next, copies do
                tables = tables + 1
                if rawequal(earlier[t], c) then shared = shared + 1 end
              end
              return tables, shared
            end
            """, chunkName: "count.lua")
        let result = try game.lua.call(count.first ?? .nil, [copy[0], earlier[0]])
        guard case .integer(let tables) = result.first, case .integer(let shared) = result.last else { return (0, 0) }
        return (Int(tables), Int(shared))
    }

    func describe(_ game: Game) throws -> String {
        try (game.table(for: "Ann")?.description ?? "") + " " + game.viewLines(for: nil).joined(separator: ",")
    }

    @Test func anInputsRollbackCopySharesTheCopiesOfTheTablesItLeftAlone() throws {
        let game = try makeGame(Self.rules)
        try game.act("flip", by: "Ann")
        let before = try #require(game.undoStack.last?.snapshot)
        let after = try #require(game.lastSnapshot)
        let (tables, shared) = try shared(game, after, before)
        // g and its metatable, state, stack, pile, 52 cards and their metatable, params,
        // the players' list and tables: the flip changed the stack and the pile only.
        try #require(after.count == 4)
        #expect(after[2] == .integer(Int64(tables)))
        #expect(tables >= 60)
        #expect(shared == tables - 2)
    }

    @Test func undoingSharedCopiesOneInputAtATimeGivesBackEachEarlierState() throws {
        let game = try makeGame(Self.rules)
        var states = [try describe(game)]
        for (action, player) in [("flip", "Ann"), ("mark", "Bob"), ("flip", "Ann"), ("mark", "Ann")] {
            try game.act(action, by: player)
            states.append(try describe(game))
        }
        // A failing input rolls back to the shared copy, changing nothing.
        expectGameError("refused on purpose") { try game.act("fail", by: "Bob") }
        #expect(try describe(game) == states.last)
        while game.canUndo {
            try game.undo()
            states.removeLast()
            #expect(try describe(game) == states.last)
        }
        #expect(states.count == 1)
    }
}
