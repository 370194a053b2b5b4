import DiceHost
import Lua
import Testing

/// `Game.passTurn`: rules without a bot may let a served room pass an absent or idle
/// player's turn on (`skip_absent = true`), as `g:next_turn()` would pass it.
@Suite struct PassTurnTests {
    static func rules(skipAbsent: String) -> String {
        """
        local r = rules { name = "Skippy", players = {3, 3}, dice = "1d6"\(skipAbsent) }
        function r.turn(g, p) g:say("%s to play", p.name) end
        function r.roll(g, p, roll) g:next_turn() end
        r.anytime = {"quit"}
        r.actions = { quit = function(g, p) g:eliminate(p) end }
        return r
        """
    }

    @Test func aSkippedTurnPassesToTheNextPlayerStillInAndSaysSo() throws {
        let game = try makeGame(Self.rules(skipAbsent: ", skip_absent = true"), players: ["Ann", "Bob", "Cy"])
        #expect(game.rules.skipsAbsent)
        try game.act("quit", by: "Bob")
        try game.passTurn()
        #expect(game.currentPlayer == "Cy", "Bob is out: Ann's turn goes to Cy")
        #expect(log(game).suffix(3) == ["say Ann's turn is skipped", "turn Cy", "say Cy to play"], "\(log(game))")
        try game.passTurn()
        #expect(game.currentPlayer == "Ann")
    }

    @Test func rulesThatDoNotDeclareSkipAbsentRefuseASkipAndChangeNothing() throws {
        let game = try makeGame(Self.rules(skipAbsent: ""), players: ["Ann", "Bob", "Cy"])
        let before = log(game)
        expectGameError("Skippy does not let a turn be skipped (the rules declare no skip_absent = true)") { try game.passTurn() }
        #expect(game.currentPlayer == "Ann" && log(game) == before)
    }

    @Test func skipAbsentThatIsNotABooleanIsARulesError() throws {
        #expect(throws: GameError.self) { _ = try makeGame(Self.rules(skipAbsent: ", skip_absent = 1"), players: ["Ann", "Bob", "Cy"]) }
    }

    @Test func aSkipAtTheREPLIsAnInputThatUndoTakesBack() throws {
        let game = try makeGame(Self.rules(skipAbsent: ", skip_absent = true"), players: ["Ann", "Bob", "Cy"])
        let session = GameSession(game: game)
        _ = session.run("skip")
        #expect(game.currentPlayer == "Bob")
        _ = session.run("undo")
        #expect(game.currentPlayer == "Ann")
    }
}
