import DiceHost
import Lua
import Testing

@Suite struct GameTests {
    @Test func rollsRunTheHookAndPassTheTurn() throws {
        let game = try makeGame(minimalRules)
        #expect(game.currentPlayer == "Ann")
        try game.roll(values: [4])
        #expect(log(game) == ["turn Ann", "roll Ann ⚃", "say Ann has 4", "turn Bob"])
        #expect(game.currentPlayer == "Bob")
    }

    @Test func failingHookLeavesGameAndLogExactlyAsBefore() throws {
        let game = try makeGame(minimalRules)
        try game.roll(values: [3])
        let before = game.events
        let random = game.lua.random.state
        expectGameError("test.lua:9: boom went Bob") { try game.act("boom") }
        #expect(game.events == before)
        #expect(game.lua.random.state == random)
        #expect(game.lua.get(game.player("Bob").tableRef!, "score") == .integer(0))
        #expect(game.lua.get(game.state.tableRef!, "touched") == .nil)
        try game.roll(values: [2])
        #expect(game.currentPlayer == "Ann")
    }

    @Test func budgetAndMemoryFailuresRollBackToo() throws {
        let game = try makeGame(minimalRules + "\n")
        let rules = """
            local r = rules { name = "Loop", players = 1 }
            function r.roll(g, p, roll) g.state.n = (g.state.n or 0) + 1 if roll.total == 6 then while true do end end end
            r.actions = { hog = function(g) g.state.big = string.rep("x", 1 << 30) end }
            return r
            """
        _ = game
        let loop = try makeGame(rules, players: ["Ann"])
        try loop.roll(values: [1])
        expectGameError("test.lua:2: instruction budget exceeded: the input ran more than 2000000 instructions (C work included) without finishing (an endless loop?)") {
            try loop.roll(values: [6])
        }
        #expect(loop.lua.get(loop.state.tableRef!, "n") == .integer(1))
        #expect(throws: GameError.self) { try loop.act("hog") }
        try loop.roll(values: [2])
        #expect(loop.lua.get(loop.state.tableRef!, "n") == .integer(2))
    }

    @Test func badInputsAreRefusedClearly() throws {
        let game = try makeGame(minimalRules)
        expectGameError("roll needs 1 value for 1d6, got 2") { try game.roll(values: [1, 2]) }
        expectGameError("a 6-sided die cannot show 7") { try game.roll(values: [7]) }
        expectGameError("unknown action 'jump' (this game has: add, boom)") { try game.act("jump") }
        expectGameError("no player named 'Zed' (players: Ann, Bob)") { try game.act("add", by: "Zed", arguments: [1]) }
        #expect(log(game) == ["turn Ann"])
    }

    @Test func gameOverRefusesInputsUntilRestart() throws {
        let game = try makeGame(minimalRules, players: ["Ann"], params: [("target", "3")])
        try game.roll(values: [5])
        #expect(game.outcome == .win("Ann"))
        expectGameError("the game is over (Ann won); use restart to play again") { try game.roll() }
        try game.restart()
        #expect(!game.isOver)
        #expect(game.lua.get(game.player("Ann").tableRef!, "score") == .integer(0))
    }

    @Test func failedRestartKeepsTheGameInProgress() throws {
        let game = try makeGame("""
            local r = rules { name = "Once", players = 1 }
            local setups = 0 -- a global counter, only to make the second setup fail
            function r.setup(g) setups = setups + 1 if setups > 1 then error("no second game") end g.state.n = 0 end
            function r.roll(g, p, roll) g.state.n = g.state.n + 1 end
            return r
            """, players: ["Ann"])
        try game.roll(values: [1])
        let before = game.events
        expectGameError("test.lua:3: no second game") { try game.restart() }
        #expect(game.events == before)
        try game.roll(values: [2])
        #expect(game.lua.get(game.state.tableRef!, "n") == .integer(2))
    }

    @Test func flaggedRollsReachTheHook() throws {
        let game = try makeGame("""
            local r = rules { name = "Flags", players = 1 }
            function r.roll(g, p, roll) g:say("%s %s %s", roll.flag, tostring(roll.ok), tostring(roll)) end
            return r
            """, players: ["Ann"])
        try game.roll(flag: .tilt)
        try game.roll(flag: .tooShort)
        try game.roll(values: [6])
        #expect(log(game).filter { $0.hasPrefix("say") } == ["say tilt false tilt", "say too_short false too_short", "say ok true ⚅"])
    }

    @Test func previousRollIsAvailableForDoubles() throws {
        let game = try makeGame("""
            local r = rules { name = "Twice", players = 1 }
            function r.roll(g, p, roll)
              if roll.previous and roll.previous.value == roll.value then g:say("double %d", roll.value) end
            end
            return r
            """, players: ["Ann"])
        for v in [3, 3, 4, 4, 4] { try game.roll(values: [v]) }
        #expect(log(game).filter { $0.hasPrefix("say") } == ["say double 3", "say double 4", "say double 4"])
    }

    @Test func severalDiceReportDoubles() throws {
        let game = try makeGame("""
            local r = rules { name = "Pairs", players = 1, dice = "2d6" }
            function r.roll(g, p, roll) g:say("%d %s", roll.total, tostring(roll.doubles)) end
            return r
            """, players: ["Ann"])
        try game.roll(values: [5, 5])
        try game.roll(values: [2, 5])
        #expect(log(game).filter { $0.hasPrefix("say") } == ["say 10 true", "say 7 false"])
        #expect(log(game).contains("roll Ann ⚄ ⚄ = 10"))
    }

    @Test func samesSeedAndInputsGiveTheSameLog() throws {
        func play(_ seed: UInt64) throws -> [String] {
            let game = try makeGame(minimalRules + "\n", seed: seed, params: [("target", "40")])
            for _ in 0..<20 where !game.isOver { try game.roll() }
            return game.events.map(\.timestamped)
        }
        #expect(try play(9) == (try play(9)))
        #expect(try play(9) != (try play(10)))
    }

    @Test func eliminationSkipsPlayersAndLastOneWins() throws {
        let game = try makeGame("""
            local r = rules { name = "Out", players = {3, 3} }
            function r.roll(g, p, roll) if roll.value == 1 then g:eliminate(p) end g:next_turn() end
            return r
            """, players: ["A", "B", "C"])
        try game.roll(values: [1])           // A out
        #expect(game.currentPlayer == "B")
        try game.roll(values: [2])           // B → C
        try game.roll(values: [3])           // C → B (A skipped)
        #expect(game.currentPlayer == "B")
        try game.roll(values: [1])           // B out: C wins
        #expect(game.outcome == .win("C"))
    }

    @Test func outOfTurnActionsNameTheirPlayer() throws {
        expectGameError("it is Ann's turn, not Bob's") { try makeGame(minimalRules).act("add", by: "Bob", arguments: [5]) }
        let game = try makeGame(minimalRules.replacingOccurrences(of: "\nreturn r", with: "\nr.anytime = {\"add\"}\nreturn r"))
        try game.act("add", by: "Bob", arguments: [5])
        #expect(game.lua.get(game.player("Bob").tableRef!, "score") == .integer(5))
        #expect(game.currentPlayer == "Ann")
    }
}
