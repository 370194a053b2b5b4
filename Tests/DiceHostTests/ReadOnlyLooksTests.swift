@testable import DiceHost
import Lua
import Testing

/// Issue 47: the view, table, choices and status hooks look at a read-only game. A write
/// to `g` or to any table reached from it raises at once, naming the field and saying
/// what to do instead; reading works as it does in an input (pairs, ipairs, #, tostring,
/// ==, player tables as keys, metatables).
@Suite struct ReadOnlyLooksTests {
    static let rules = """
        local r = rules { name = "Read-only looks", players = {2, 2}, dice = false }
        local Card = {}
        Card.__index = Card
        Card.__tostring = function(c) return c.rank .. c.suit end
        function Card:label() return "card " .. tostring(self) end
        function r.setup(g)
          g.state.round = 1
          g.state.list = {10, 20, 30}
          g.state.card = setmetatable({rank = "Q", suit = "h"}, Card)
          g.state.owner = {}
          for _, p in ipairs(g.players) do g.state.owner[p] = p.name .. "'s" end
          g.state.list_id = tostring(g.state.list)
          g.state.mode = "read"
        end
        function r.roll(g, p, r) end
        r.actions = { mode = function(g, p, m) g.state.mode = m end }
        r.choices = { pick = function(g, p)
          if g.state.mode == "choices" then g.state.round = 2 end
          return {1, 2}
        end }
        r.actions.pick = function(g, p, n) end
        function r.view(g, viewer)
          local m = g.state.mode
          if m == "field" then g.state.round = 2 end
          if m == "player" then viewer.seen = true end
          if m == "insert" then table.insert(g.state.list, 40) end
          if m == "rawset" then rawset(g.state, "x", 1) end
          if m == "nested" then g.state.card.rank = "K" end
          local names = {}
          for i, p in ipairs(g.players) do names[i] = p.name .. (p == viewer and "*" or "") end
          local keys = {}
          for k in pairs(g.state) do keys[#keys + 1] = k end
          local mine = {}
          mine[viewer] = "me"
          return {names = table.concat(names, ","), keys = table.concat(keys, ","), count = #g.state.list,
                  sum = g.state.list[1] + g.state.list[3], card = tostring(g.state.card), label = g.state.card:label(),
                  same = tostring(g.state.list) == g.state.list_id, owner = g.state.owner[viewer],
                  keyed = mine[g.players[1]] or mine[g.players[2]], raw = rawget(g.state, "round"),
                  meta = getmetatable(g.state.card) == getmetatable(g.state.card) and rawlen(g.state.list)}
        end
        function r.table(v, t)
          if v.count == 0 then v.count = 1 end
          if t.you == "Bob" and v.owner == "Bob's" and v.names:find("Ann") and t.params.poke then t.params.poke = 2 end
          return {headline = t.you .. " " .. v.owner}
        end
        return r
        """

    /// The game as a deep compare sees it (registry references, which `describeState`
    /// prints for table keys, are not the game's).
    static func everything(_ game: Game) -> [String] {
        RollbackPropertyTests.fingerprint(game)
    }

    func game(mode: String = "read") throws -> Game {
        let game = try makeGame(Self.rules)
        if mode != "read" { try game.act("mode", arguments: [.string(mode)]) }
        return game
    }

    @Test func aViewReadsTheGameAsAnInputWould() throws {
        let game = try game()
        let before = Self.everything(game)
        let view = try game.view(for: "Ann")
        #expect(view.description == #"{"card":"Qh","count":3,"keyed":"me","keys":"card,list,list_id,mode,owner,round","label":"card Qh","meta":3,"names":"Ann*,Bob","owner":"Ann's","raw":1,"same":true,"sum":40}"#)
        #expect(try game.table(for: "Bob")?.description == #"{"headline":"Bob Bob's"}"#)
        #expect(Self.everything(game) == before)
    }

    @Test(arguments: [
        ("field", "view hook wrote g.state.round: a view must not change the game; compute into a local table instead"),
        ("player", "view hook wrote g.players[1].seen: a view must not change the game"),
        ("insert", "view hook wrote g.state.list[4]: a view must not change the game"),
        ("rawset", "view hook wrote g.state.x: a view must not change the game"),
        ("nested", "view hook wrote g.state.card.rank: a view must not change the game"),
    ])
    func aViewThatWritesFailsAtOnceNamingTheField(mode: String, message: String) throws {
        let game = try game(mode: mode)
        let before = Self.everything(game)
        do {
            _ = try game.view(for: "Ann")
            Issue.record("the view wrote and did not fail")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
            #expect("\(error)".contains("test.lua:"), "the error names the script's line: \(error)")
        }
        // The same in a server's look, for every seat; and the game is as it was.
        for look in game.viewsAndTablesText(for: ["Ann", "Bob"]) {
            #expect(throws: (any Error).self) { try look.view.get() }
        }
        #expect(Self.everything(game) == before)
    }

    @Test func aTableHookMayWriteItsSeatsOwnViewButNotTheGame() throws {
        let game = try game()
        // This view takes its viewer: `v` is the seat's own, made for this look.
        let source = Self.rules.replacingOccurrences(of: "if v.count == 0 then v.count = 1 end", with: "v.count = 1")
        let writing = try makeGame(source)
        #expect(try writing.table(for: "Ann")?.description == #"{"headline":"Ann Ann's"}"#)
        let params = try makeGame(Self.rules.replacingOccurrences(of: "and t.params.poke then", with: "then"))
        do {
            _ = try params.table(for: "Bob")
            Issue.record("the table hook wrote t.params and did not fail")
        } catch {
            #expect("\(error)".contains("table hook wrote g.params.poke"), "\(error)")
        }
        #expect(try game.table(for: "Ann")?.description == #"{"headline":"Ann Ann's"}"#)
    }

    @Test func aChoicesFunctionThatWritesFails() throws {
        let reading = try game()
        #expect(try reading.legalArguments(of: "pick", by: "Ann") == [[.integer(1)], [.integer(2)]])
        let game = try game(mode: "choices")
        let before = Self.everything(game)
        for result in try game.legalArguments(of: ["pick", "pick"], by: "Ann") {
            #expect(throws: (any Error).self) { try result.get() }
            if case .failure(let error) = result {
                #expect("\(error)".contains("choices.pick wrote g.state.round: a choices function must not change the game"), "\(error)")
            }
        }
        #expect(Self.everything(game) == before)
    }

    @Test func aLookLeavesTheClockItShowedAsItWas() throws {
        let game = try game()
        game.keepsUndoHistory = false
        try game.advance(by: 500)  // no timer due: only the host's clock moves
        #expect(game.lua.get(game.gameTable, "now") == .integer(0))
        _ = try game.view(for: "Ann")
        #expect(game.lua.get(game.gameTable, "now") == .integer(0))
    }
}
