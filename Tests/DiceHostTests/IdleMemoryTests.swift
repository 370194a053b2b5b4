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

    @Test func aViewThatWritesAfterTheCopyWasLetGoFailsAndChangesNothing() throws {
        let game = try makeGame(viewThatWrites)
        try game.roll(values: [3])
        game.releaseIdleMemory()
        #expect(throws: GameError.self) { try game.view(for: "Ann") }
        #expect(game.lua.get(game.state.tableRef ?? game.gameTable, "looked") == .nil)
        #expect(game.player("Ann").tableRef.map { game.lua.get($0, "score") } == .integer(3))
    }

    /// A shipped game as a served room keeps it once idle (4 seats, 4 inputs, no undo
    /// history, its idle memory let go): the Lua state's count, the allocator's headers
    /// included. Only objects that take a creation serial and blocks that may be a stack
    /// carry a header (8 bytes, often a 16-byte step of malloc's); the strings, code and
    /// table parts that are most of a state do not (issue 32). With a header on every
    /// block they held 120 KiB (Snap) and 123 KiB (Liar's Dice); then 112 and 114; with
    /// the host's own chunks loaded without debug info 101 and 108; with frozen tables'
    /// emptied hash parts released 96 and 103. Liar's Dice's lobby labels (`param_info`)
    /// and its reveal's table code then took it to 106.
    @Test(arguments: ["rules/snap.lua", "rules/liars-dice.lua"])
    func anIdleShippedGameHoldsAtMost108KiBInItsLuaState(rules: String) throws {
        let game = try Game(rulesFile: rules, players: ["Ann", "Bob", "Cat", "Dan"], seed: 5)
        game.keepsUndoHistory = false
        for _ in 0..<4 {
            let current = try #require(game.currentPlayer)
            if rules.hasSuffix("snap.lua") {
                try game.act("flip", by: current)
            } else if (try? game.roll(by: current)) == nil {
                try game.act("bid", by: current, arguments: [.integer(Int64(game.events.count % 3 + 1)), .integer(3)])
            }
        }
        game.keepsRollbackCopy = false
        game.releaseIdleMemory()
        #expect(game.memoryUse.luaBytes <= 108 * 1024, "\(rules): \(game.memoryUse.luaBytes) bytes")
    }

    /// The runtime loads without debug info (parameter names included): the host's own
    /// view of secret rolls still counts as one that reads its viewer, so each seat gets
    /// its own look and never another's cup.
    @Test func theRuntimesSecretRollsViewStillShowsEachSeatOnlyItsOwnRoll() throws {
        let game = try makeGame("""
            local r = rules { name = "Cups", players = {2, 2}, dice = "3d6", secret_rolls = true }
            function r.roll(g, p, r) g:next_turn() end
            return r
            """)
        #expect(!game.viewIsTheSameForEveryone)
        try game.roll(values: [1, 2, 3])
        let looks = try ["Ann", "Bob"].map { try game.view(for: $0).description }
        #expect(looks[0] != looks[1])
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
