import DiceHost
import Lua
import Testing

/// A player who is out (`g:eliminate`, `g:lose` in a game that goes on) makes no more
/// inputs, unless the rules list them in `while_out`; and the turn never rests with them.
@Suite struct PlayersWhoAreOutTests {
    static let rules = """
        local r = rules { name = "Out", players = {3, 4}, dice = "1d6" }
        function r.turn(g, p) g:say("%s to play", p.name) end
        function r.roll(g, p, roll) g:next_turn() end
        r.anytime = {"quit", "poke", "look", "out"}
        r.actions = {
          quit = function(g, p) g:eliminate(p) end,
          poke = function(g, p) g:say("%s pokes", p.name) end,
          look = function(g, p) g:say("%s looks", p.name) end,
          pass_to = function(g, p, name) g:next_turn(g:player(name)) end,
          out = function(g, p, name) g:eliminate(g:player(name)) end,
        }
        """

    func game(whileOut: String = "") throws -> Game {
        try makeGame(Self.rules + whileOut + "\nreturn r", players: ["Ann", "Bob", "Cy"])
    }

    @Test func anAnytimeActionFromAPlayerWhoIsOutIsRefused() throws {
        let game = try game()
        try game.act("quit", by: "Bob")
        #expect(game.isOut("Bob"))
        expectGameError("Bob is out of the game: a player who is out makes no more inputs") { try game.act("poke", by: "Bob") }
        expectGameError("Bob is out of the game: a player who is out makes no more inputs") { try game.roll(by: "Bob") }
        try game.act("poke", by: "Cy")
        #expect(log(game).last == "say Cy pokes")
    }

    @Test func theRulesMayLetAPlayerWhoIsOutMakeSomeInputs() throws {
        let game = try game(whileOut: "r.while_out = {\"look\"}")
        try game.act("quit", by: "Bob")
        try game.act("look", by: "Bob")
        #expect(log(game).last == "say Bob looks")
        expectGameError("Bob is out of the game: a player who is out makes no more inputs but look") { try game.act("poke", by: "Bob") }
    }

    @Test func eliminatingThePlayerWhoseTurnItIsPassesTheTurnOn() throws {
        let game = try makeGame(Self.rules + "\nreturn r", players: ["Ann", "Bob", "Cy", "Dee"])
        #expect(game.currentPlayer == "Ann")
        try game.act("quit", by: "Ann")
        #expect(game.currentPlayer == "Bob")
        #expect(Array(log(game).suffix(3)) == ["eliminate Ann", "turn Bob", "say Bob to play"])
        // Eliminated by another player's input, the same.
        try game.act("out", by: "Cy", arguments: [.string("Bob")])
        #expect(game.currentPlayer == "Cy")
        #expect(Array(log(game).suffix(3)) == ["eliminate Bob", "turn Cy", "say Cy to play"])
    }

    @Test func aTurnPassedToAPlayerWhoIsOutGoesToTheNextStillIn() throws {
        let game = try makeGame(Self.rules + "\nreturn r", players: ["Ann", "Bob", "Cy", "Dee"])
        try game.act("quit", by: "Cy")
        try game.act("pass_to", by: "Ann", arguments: [.string("Cy")])
        #expect(game.currentPlayer == "Dee")
        #expect(log(game).suffix(2) == ["turn Dee", "say Dee to play"])
        // And g:next_turn() from Bob skips Cy as before.
        try game.act("pass_to", by: "Dee", arguments: [.string("Bob")])
        try game.roll(by: "Bob")
        #expect(game.currentPlayer == "Dee")
    }

    @Test func whileOutListsOnlyInputsTheRulesHave() throws {
        #expect(throws: GameError.self) { try makeGame(Self.rules + "r.while_out = {\"dance\"}\nreturn r", players: ["Ann", "Bob", "Cy"]) }
    }
}
