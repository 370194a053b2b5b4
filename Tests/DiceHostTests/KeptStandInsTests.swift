@testable import DiceHost
import Lua
import Testing

/// Issue 47: a look's read-only stand-ins are kept for the next look (making them was
/// most of what a look cost). A kept stand-in holds no copy: it reads the game as it is
/// now, and a write through it still raises, naming where the table is now, not where it
/// was when the stand-in was made. The script below keeps one in an upvalue across looks.
@Suite struct KeptStandInsTests {
    static let rules = """
        local r = rules { name = "Kept stand-ins", players = {2, 2}, dice = false }
        local kept
        function r.setup(g)
          g.state.deck = {{rank = "A"}, {rank = "K"}}
          g.state.pile = {}
          g.state.mode = "read"
        end
        function r.roll(g, p, r) end
        r.actions = {
          move = function(g, p) table.insert(g.state.pile, table.remove(g.state.deck)) end,
          rank = function(g, p, x) g.state.pile[1].rank = x end,
          mode = function(g, p, m) g.state.mode = m end,
        }
        function r.view(g, viewer)
          kept = kept or g.state.deck[2]
          if g.state.mode == "write" then kept.rank = "Q" end
          return {kept = kept.rank, deck = #g.state.deck, pile = #g.state.pile}
        end
        return r
        """

    @Test func aStandInKeptFromAnEarlierLookReadsTheGameAsItIsNow() throws {
        let game = try makeGame(Self.rules)
        #expect(try game.view(for: "Ann").description == #"{"deck":2,"kept":"K","pile":0}"#)
        try game.act("move")
        try game.act("rank", arguments: [.string("J")])
        #expect(try game.view(for: "Ann").description == #"{"deck":1,"kept":"J","pile":1}"#)
        #expect(try game.view(for: "Bob").description == #"{"deck":1,"kept":"J","pile":1}"#)
    }

    @Test func aWriteThroughATableMovedSinceItsStandInWasMadeNamesWhereItIsNow() throws {
        let game = try makeGame(Self.rules)
        _ = try game.view(for: "Ann")
        try game.act("move")
        try game.act("mode", arguments: [.string("write")])
        let before = RollbackPropertyTests.fingerprint(game)
        do {
            _ = try game.view(for: "Bob")
            Issue.record("the view wrote and did not fail")
        } catch {
            #expect("\(error)".contains("view hook wrote g.state.pile[1].rank: a view must not change the game"), "\(error)")
        }
        #expect(RollbackPropertyTests.fingerprint(game) == before)
    }

    static let keptG = """
        local r = rules { name = "Kept g", players = {2, 2}, dice = false }
        local kept
        function r.setup(g) g.state.n = 0; g.state.lib = math end
        function r.roll(g, p, r) end
        r.actions = {
          through = function(g, p) kept.state.lib.pi = 3 end,
          direct = function(g, p) g.state.lib.pi = 3 end,
          state = function(g, p) kept.state.n = kept.state.n + 1 end,
        }
        function r.view(g, viewer) kept = g; return {n = g.state.n, pi = math.pi} end
        return r
        """

    /// Outside a look a kept stand-in writes as the real table takes a write: a read-only
    /// library table reached through it still refuses, and a write to the state lands.
    @Test func aStandInKeptPastItsLookWritesAsTheRealTableWould() throws {
        let game = try makeGame(Self.keptG)
        _ = try game.view(for: "Ann")
        var direct = "", through = ""
        do { try game.act("direct") } catch { direct = "\(error)" }
        do { try game.act("through") } catch { through = "\(error)" }
        #expect(direct.contains("read-only"), "\(direct)")
        #expect(through.contains("read-only"), "a kept stand-in is no way around a read-only table: \(through)")
        try game.act("state")
        #expect(try game.view(for: "Ann").description == #"{"n":1,"pi":3.141592653589793}"#)
    }
}
