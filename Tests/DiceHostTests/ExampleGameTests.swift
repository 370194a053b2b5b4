import DiceHost
import Lua
import Testing

/// examples/rules/pig.lua was written from docs/scripting.md alone; it must play end
/// to end through the Swift API, by hand and by its bot.
@Suite struct ExampleGameTests {
    @Test func pigPlaysByHand() throws {
        let game = try Game(rulesFile: "examples/rules/pig.lua", players: ["Ann", "Bob"], seed: 3)
        try game.roll(values: [5])
        try game.roll(values: [6])
        try game.act("hold")
        #expect(game.currentPlayer == "Bob")
        try game.roll(values: [1])
        #expect(game.currentPlayer == "Ann")
        #expect(game.lua.get(game.player("Ann").tableRef!, "score") == .integer(11))
        try game.roll(values: [6])
        try game.roll(values: [4])
        #expect(game.outcome == .win("Ann"))
        #expect(game.events.map(\.description).contains("say Bob rolled ⚀ and loses 0"))
        #expect(game.metrics.map(\.0) == ["held"])
    }

    @Test func pigPlaysItselfWithItsBot() throws {
        let game = try Game(rulesFile: "examples/rules/pig.lua", players: ["Ann", "Bob", "Cy"], seed: 11)
        var moves = 0
        while !game.isOver && moves < 10_000 {
            try game.playBotMove()
            moves += 1
        }
        #expect(game.isOver)
        #expect(game.rollCount > 5)
    }

    @Test func cardsDeckAndShuffleAreDeterministic() throws {
        let source = """
            local r = rules { name = "Cards", players = 1 }
            function r.setup(g)
              local deck = cards.shuffle(cards.deck())
              g:say("%d %s %s", #deck, tostring(deck[1]), tostring(deck[52]))
            end
            function r.roll() end
            return r
            """
        let a = try makeGame(source, players: ["A"], seed: 5), b = try makeGame(source, players: ["A"], seed: 5)
        #expect(log(a) == log(b))
        #expect(log(a).first?.hasPrefix("say 52 ") == true)
    }
}
