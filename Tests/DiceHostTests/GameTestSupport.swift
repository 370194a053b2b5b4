import DiceHost
import Foundation
import Lua
import Testing

/// A game from inline rules, named "test.lua" in errors.
func makeGame(_ source: String, players: [String] = ["Ann", "Bob"], seed: UInt64 = 1,
              params: [(String, String)] = []) throws -> Game {
    try Game(source: source, path: "test.lua", players: players, seed: seed, params: params,
             limits: LuaLimits(memoryBytes: 16 << 20, instructionBudget: 2_000_000))
}

func expectGameError(_ expected: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected error: \(expected)", sourceLocation: sourceLocation)
    } catch {
        #expect("\(error)" == expected, sourceLocation: sourceLocation)
    }
}

/// The text log without the start line.
func log(_ game: Game) -> [String] { game.events.dropFirst().map(\.description) }

let minimalRules = """
    local r = rules { name = "Mini", players = {1, 4}, dice = "1d6", params = { target = 10 } }
    function r.setup(g) for _, p in ipairs(g.players) do p.score = 0 end end
    function r.roll(g, p, r)
      p.score = p.score + r.total
      g:say("%s has %d", p.name, p.score)
      if p.score >= g.params.target then g:win(p) else g:next_turn() end
    end
    r.actions = {
      boom = function(g, p) p.score = 999; g.state.touched = true; error("boom went " .. p.name) end,
      add = function(g, p, n) p.score = p.score + n end,
    }
    return r
    """
