import DiceHost
import Foundation
import Lua
import Testing

/// What only looks at a game - the status line, the `state` view, `undo` of an input -
/// leaves it as a game that never looked: the same state, and the same identities for
/// the tables made afterwards, so a seed and the inputs replay it exactly. A bot's
/// writes belong to the move it makes, and go with it when the move fails.
@Suite struct LookingChangesNothingTests {
    static let rules = """
        local r = rules { name = "Looks", players = {1, 2}, dice = "1d6" }
        function r.setup(g) g.state.looks = 0 end
        function r.status(g)
          local scratch = {}                         -- a table made while only looking
          g:say("status ran")
          if g.state.poke then g.state.looks = 9 end -- a write: a look is read-only
          return "looked " .. (g.state.looks + 1)
        end
        function r.roll(g, p, roll)
          g.state.made = tostring({})                -- the identity of a new table
          g:next_turn()
        end
        function r.bot(g, p)
          g.state.bot_notes = (g.state.bot_notes or 0) + 1
          if g.state.refuse then return "nonsense" end
          return "roll"
        end
        r.actions = { refuse = function(g, p) g.state.refuse = true end, poke = function(g, p) g.state.poke = true end }
        return r
        """

    func game() throws -> Game { try makeGame(Self.rules) }

    @Test func theStatusHookWritesNothing() throws {
        let game = try game()
        let before = GameSession(game: game).describeState()
        #expect(game.statusLine() == "looked 1")
        #expect(game.statusLine() == "looked 1")
        #expect(GameSession(game: game).describeState() == before)
        #expect(!log(game).contains { $0.contains("status ran") })
        try game.roll(values: [3])
        #expect(game.statusLine() == "looked 1")
        // A status hook that writes is told so, and the game stays as it was.
        try game.act("poke")
        let poked = GameSession(game: game).describeState()
        #expect(game.statusLine()?.contains("wrote g.state.looks: a look must not change the game") == true, "\(game.statusLine() ?? "")")
        #expect(GameSession(game: game).describeState() == poked)
    }

    @Test func stateAndStatusDoNotShiftIdentities() throws {
        let quiet = try game()
        let curious = try game()
        for value in [2, 5, 1] {
            _ = GameSession(game: curious).describeState()
            _ = curious.statusLine()
            try quiet.roll(values: [value])
            try curious.roll(values: [value])
        }
        #expect(GameSession(game: curious).describeState() == GameSession(game: quiet).describeState())
    }

    @Test func undoPutsIdentitiesBackToo() throws {
        let straight = try game()
        let undone = try game()
        try straight.roll(values: [4])
        try undone.roll(values: [6])
        try undone.undo()
        try undone.roll(values: [4])
        try straight.roll(values: [2])
        try undone.roll(values: [2])
        #expect(GameSession(game: undone).describeState() == GameSession(game: straight).describeState())
    }

    @Test func aBotsWritesGoWithItsFailedMove() throws {
        let game = try game()
        try game.playBotMove()
        let before = GameSession(game: game).describeState()
        #expect(before.first?.contains("bot_notes=1") == true, "\(before)")
        try game.act("refuse")
        expectRefused(game, containing: "nonsense") { try game.playBotMove() }
        #expect(game.statusLine() == "looked 1")
    }
}
