import DiceHost
import Lua
import Testing

/// What a game nobody is playing may let go of (a server's idle rooms, issue 32), and that
/// letting go of it changes nothing a player or a script can see.
@Suite struct IdleMemoryTests {
    @Test func anIdleGameLetsGoOfItsRollbackCopyAndItsGarbage() throws {
        let game = try makeGame(minimalRules)
        for value in [1, 2, 3, 4] { try game.roll(values: [value]) }
        let playing = game.memoryUse
        #expect(playing.holdsRollbackCopy)
        game.releaseIdleMemory()
        let idle = game.memoryUse
        #expect(!idle.holdsRollbackCopy)
        #expect(idle.luaBytes < playing.luaBytes)
        #expect(idle.events == playing.events)
    }

    @Test func aFailingInputAfterTheCopyWasLetGoLeavesTheGameAsItWas() throws {
        let game = try makeGame(minimalRules)
        try game.roll(values: [3])
        game.keepsRollbackCopy = false
        game.releaseIdleMemory()
        let before = log(game)
        expectGameError("test.lua:9: boom went Bob") { try game.act("boom", by: "Bob") }
        #expect(log(game) == before)
        #expect(game.player("Bob").tableRef.map { game.lua.get($0, "score") } == .integer(0))
        #expect(game.lua.get(game.state.tableRef ?? game.gameTable, "touched") == .nil)
        #expect(!game.memoryUse.holdsRollbackCopy)
        // Playing again keeps its copy once asked to.
        game.keepsRollbackCopy = true
        try game.roll(values: [2])
        #expect(game.memoryUse.holdsRollbackCopy)
    }

    @Test func aViewThatWritesAfterTheCopyWasLetGoChangesNothing() throws {
        let game = try makeGame(viewThatWrites)
        try game.roll(values: [3])
        game.releaseIdleMemory()
        _ = try game.view(for: "Ann")
        #expect(game.lua.get(game.state.tableRef ?? game.gameTable, "looked") == .nil)
        #expect(game.player("Ann").tableRef.map { game.lua.get($0, "score") } == .integer(3))
    }

    @Test func inputsPlayTheSameGameWithOrWithoutACopyKeptBetweenThem() throws {
        let kept = try makeGame(minimalRules, seed: 9)
        let released = try makeGame(minimalRules, seed: 9)
        released.keepsRollbackCopy = false
        for _ in 0..<6 {
            try kept.roll()
            try released.roll()
            released.releaseIdleMemory()
        }
        #expect(log(kept) == log(released))
    }
}

/// The minimal rules with a view hook that writes to `g` and to a player (it must not stick).
private let viewThatWrites = """
    local r = rules { name = "Peeking", players = {1, 4}, dice = "1d6" }
    function r.setup(g) for _, p in ipairs(g.players) do p.score = 0 end end
    function r.roll(g, p, r) p.score = p.score + r.total; g:next_turn() end
    function r.view(g, viewer)
      g.state.looked = true
      for _, p in ipairs(g.players) do p.score = 1000 end
      return { score = 0 }
    end
    return r
    """
