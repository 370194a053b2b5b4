@testable import DiceHost
import Lua
import Testing

/// Issue 47: the stand-ins of `g` and the player tables a look swaps in are kept from one
/// look to the next while `g` and the player tables are the same tables, and made again
/// when they are replaced (a restart makes a new `g` and new players).
@Suite struct KeptLookRootsTests {
    static let rules = """
        local r = rules { name = "Kept roots", players = {2, 2}, dice = false }
        function r.setup(g) g.state.n = 0 end
        function r.roll(g, p, r) end
        r.actions = { bump = function(g, p) g.state.n = g.state.n + 1 end }
        function r.view(g, viewer)
          local seat
          for i, p in ipairs(g.players) do if p == viewer then seat = i end end
          return {n = g.state.n, seat = seat}
        end
        return r
        """

    @Test func aViewerIsTheSamePlayerItsViewFindsInGPlayersLookAfterLook() throws {
        let game = try makeGame(Self.rules)
        #expect(try game.view(for: "Ann").description == #"{"n":0,"seat":1}"#)
        #expect(try game.view(for: "Bob").description == #"{"n":0,"seat":2}"#)
        try game.act("bump")
        #expect(try game.view(for: "Bob").description == #"{"n":1,"seat":2}"#)
        #expect(try game.view(for: "Ann").description == #"{"n":1,"seat":1}"#)
    }

    @Test func aLookAfterARestartReadsTheNewGameNotTheKeptStandInsOfTheOld() throws {
        let game = try makeGame(Self.rules)
        try game.act("bump")
        #expect(try game.view(for: "Ann").description == #"{"n":1,"seat":1}"#)
        try game.restart()
        #expect(try game.view(for: "Ann").description == #"{"n":0,"seat":1}"#)
        #expect(try game.view(for: "Bob").description == #"{"n":0,"seat":2}"#)
        try game.act("bump")
        try game.act("bump")
        #expect(try game.view(for: "Bob").description == #"{"n":2,"seat":2}"#)
    }
}
