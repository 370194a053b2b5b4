@testable import DiceHost
import Foundation
import Testing

/// `solve` decodes each position again before every move, keeping the tables whose part
/// of the key did not change since the last move (`decode_into` in position_codec.c).
/// What the rules read must be what a decode that makes every table anew gives: the
/// same answers, bit for bit, and the same policy.
@Suite(.serialized) struct KeptTablesDecodeTests {
    func solve(_ rulesFile: String, players: [String], params: [(String, String)] = [], keeping: Bool) throws -> BestPlay.Result {
        var o = BestPlay.Options()
        o.players = players
        o.params = params
        o.memoryBytes = 256 << 20
        o.writesPolicy = true
        StateExplorer.keepsUnchangedTables = keeping
        defer { StateExplorer.keepsUnchangedTables = true }
        return try BestPlay.solve(rulesFile: rulesFile, options: o)
    }

    func expectSameAnswers(_ rulesFile: String, players: [String], params: [(String, String)] = []) throws {
        let anew = try solve(rulesFile, players: players, params: params, keeping: false)
        let kept = try solve(rulesFile, players: players, params: params, keeping: true)
        #expect(kept.wins.map(\.bitPattern) == anew.wins.map(\.bitPattern))
        #expect(kept.draw.bitPattern == anew.draw.bitPattern)
        #expect(kept.loss.bitPattern == anew.loss.bitPattern)
        #expect(kept.states == anew.states)
        #expect(kept.moves == anew.moves)
        #expect(kept.sweeps == anew.sweeps)
        #expect(kept.droppedLastRoll == anew.droppedLastRoll)
        #expect(kept.moveCounts.map { "\($0.0) \($0.1)" } == anew.moveCounts.map { "\($0.0) \($0.1)" })
        #expect(kept.policyModule == anew.policyModule)
    }

    @Test func pigGivesTheSameAnswersWithTablesKept() throws {
        try expectSameAnswers("examples/rules/pig.lua", players: ["Ann", "Bob"], params: [("target", "12")])
    }

    /// State a kept table must get right: a list whose length rules read (grown and cut
    /// back, with a hole made and filled), a table reached twice, a table with a
    /// metatable of the position (an `__index` holding state), and a last roll read as
    /// `r.previous` (so positions hold last rolls, in the runtime's reused roll tables).
    static let tricky = """
        local game = rules { name = "Tricky", players = 2, dice = "1d3" }
        function game.setup(g)
          g.state.track = {}
          local shared = {n = 0}
          g.state.a, g.state.b = shared, shared
          g.state.deep = setmetatable({}, {__index = {base = 1}})
          for _, p in ipairs(g.players) do p.score = 0 end
        end
        function game.roll(g, p, r)
          local t = g.state.track
          t[#t + 1] = r.value
          if #t > 2 then t[2] = nil; t[2] = r.value; table.remove(t, 1) end
          if r.previous and r.previous.value == r.value then p.score = p.score + 1 end
          g.state.a.n = (g.state.a.n + r.value) % 3
          if g.state.b.n == 0 then g.state.deep.extra = #t else g.state.deep.extra = nil end
          p.score = p.score + (g.state.deep.base or 0)
          if p.score >= 4 then g:win(p) end
          if r.value == 3 then g:next_turn() end
        end
        game.actions = {
          pass = function(g, p) g:next_turn() end,
        }
        return game
        """

    @Test func listsSharedTablesMetatablesAndLastRollsGiveTheSameAnswers() throws {
        try expectSameAnswers(try temporaryRules(Self.tricky), players: ["Ann", "Bob"])
    }

    /// Timers: a handle's id is its rank in the pending queue in a position, but the
    /// live handle carries the id the host gave it; a kept handle must not keep that.
    static let timed = """
        local game = rules { name = "Timed", players = 1, dice = "1d2" }
        function game.setup(g)
          g.state.n = 0
          g.state.alarm = timer.after(1000, function(g) g:lose(g.players[1]) end)
        end
        function game.roll(g, p, r)
          g.state.n = g.state.n + r.value
          if r.value == 2 then
            g.state.alarm:cancel()
            g.state.alarm = timer.after(1000, function(g) g:lose(g.players[1]) end)
          end
          if g.state.n >= 4 then g.state.alarm:cancel(); g:win(p) end
        end
        game.actions = { stop = function(g, p) g.state.alarm:cancel(); g:lose(p) end }
        return game
        """

    @Test func timerHandlesGiveTheSameAnswers() throws {
        try expectSameAnswers(try temporaryRules(Self.timed), players: ["Ann"])
    }
}
