import DiceHost
import Foundation
import Lua
import Testing

/// The rules' `table(v, t)` hook: what a front end draws for one seat, made from that
/// seat's view and public facts only, checked against the table's vocabulary.
@Suite struct GameTableTests {
    static let cupRules = """
        local r = rules { name = "Cup", players = {2, 3}, dice = "3d6", secret_rolls = true }
        function r.setup(g) g.state.secret = "g.state" end
        function r.roll(g, p, r)
          p.cup = {table.unpack(r.values)}
          g:say("%s rolled", p.name)
          g:next_turn()
        end
        r.actions = { show = function(g, p) g:reveal(p, p.cup) end }
        r.anytime = {"show"}
        function r.view(g, viewer)
          local v = {players = {}}
          for i, p in ipairs(g.players) do
            local cup = nil
            if p.cup and p == viewer then cup = {values = p.cup, flag = "ok", ok = true, total = 0}
            elseif p.cup then cup = hidden("dice", #p.cup) end
            v.players[i] = {name = p.name, cup = cup}
          end
          return v
        end
        function r.table(v, t)
          if v.state ~= nil or t.g ~= nil then error("the table saw g", 0) end
          local cups = {}
          for i, p in ipairs(v.players) do
            cups[i] = {name = p.name, dice = t.shown[p.name] or p.cup or hidden("dice", 0)}
          end
          return {headline = (t.current == t.you and "Your roll" or tostring(t.current) .. " rolls"),
                  turn = t.current, last = t.said[#t.said], cups = cups}
        end
        return r
        """

    static func cups(_ table: JSONValue?) -> [JSONValue] {
        if case .array(let list)? = table?["cups"] { return list }
        return []
    }

    @Test func aSeatsTableShowsItsOwnCupAndOnlyTheCountOfOthers() throws {
        let game = try makeGame(Self.cupRules)
        try game.roll(values: [2, 5, 6])
        let ann = try game.table(for: "Ann"), bob = try game.table(for: "Bob"), spectator = try game.table(for: nil)
        #expect(ann?["headline"] == .string("Bob rolls") && bob?["headline"] == .string("Your roll"))
        #expect(ann?["last"] == .string("Ann rolled"))
        #expect(Self.cups(ann).first?["dice"] == .object(["values": .array([.integer(2), .integer(5), .integer(6)])]))
        for table in [bob, spectator] {
            #expect(Self.cups(table).first?["dice"] == .object(["hidden": .integer(3)]))
            #expect(!(table?.description.contains("5,6") ?? true))
        }
        // What the hook wrote into its view was put back: the next view is as before.
        #expect(try game.view(for: "Ann").description.contains("\"Ann\""))
    }

    @Test func diceShownAtACallReachTheTableUntilTheNextRoll() throws {
        let game = try makeGame(Self.cupRules)
        try game.roll(values: [2, 5, 6])
        try game.act("show", by: "Ann")
        #expect(Self.cups(try game.table(for: "Bob")).first?["dice"] == .object(["values": .array([.integer(2), .integer(5), .integer(6)])]))
        try game.roll(values: [1, 1, 1])
        #expect(Self.cups(try game.table(for: "Bob")).first?["dice"] == .object(["hidden": .integer(3)]))
    }

    @Test func aGameWithoutTheHookHasNoTable() throws {
        let game = try makeGame(minimalRules)
        #expect(!game.hasTable)
        #expect(try game.table(for: "Ann") == nil)
    }

    static func rules(returning table: String) -> String {
        """
        local r = rules { name = "T", players = {1, 2}, dice = "1d6" }
        function r.roll(g, p, r) g.state.n = (g.state.n or 0) + 1 end
        function r.table(v, t) \(table) end
        return r
        """
    }

    @Test func aTableOutsideTheVocabularyIsRefusedNamingTheField() throws {
        let cases: [(String, String)] = [
            ("return {colour = 'red'}", "unknown field 'colour' (the table knows headline, result, last, turn, roll, countdown, track, pot, balances, cups, cards)"),
            ("return {balances = 'Ann $5'}", "returned balances = string: a list of tables expected"),
            ("return {balances = {{name = 'Ann', value = {}}}}", "returned balances[1].value = table: a number or a string expected"),
            ("return {track = {target = 0, marks = {}}}", "returned track.target = number: a whole number above 0 expected"),
            ("return {countdown = {text = 'soon', ms = -1}}", "returned countdown.ms = number"),
            ("return {cups = {{name = 'Ann', dice = {7, 'x'}}}}", "returned cups[1].dice[2] = string: a die value (1 or more) expected"),
            ("return {cards = {{name = 'Ann', open = {rank = 14, suit = 'x'}}}}", "returned cards[1].open = table: a card"),
            ("return 'hello'", "returned a value = string: a table (headline, turn, ...) expected"),
        ]
        for (body, expected) in cases {
            let game = try makeGame(Self.rules(returning: body), players: ["Ann"])
            do {
                _ = try game.table(for: "Ann")
                Issue.record("no error for \(body)")
            } catch {
                #expect("\(error)".hasPrefix("test.lua:1: table(v, t) ") && "\(error)".contains(expected), "\(body): \(error)")
            }
        }
    }

    @Test func aTableOfSeventeenRowsIsRefusedBeforeItIsRead() throws {
        let game = try makeGame(Self.rules(returning: """
            local rows = {}
            for i = 1, 5000 do rows[i] = {name = "p" .. i, value = i} end
            return {balances = rows}
            """), players: ["Ann"])
        #expect(throws: (any Error).self) { _ = try game.table(for: "Ann") }
        do { _ = try game.table(for: "Ann") } catch {
            #expect("\(error)".contains("balances with 5000 entries: at most 16 expected"))
        }
    }

    @Test func aLongTextIsCut() throws {
        let game = try makeGame(Self.rules(returning: "return {headline = string.rep('x', 5000)}"), players: ["Ann"])
        guard case .string(let headline)? = try game.table(for: "Ann")?["headline"] else { Issue.record("no headline"); return }
        #expect(headline.count == 301 && headline.hasSuffix("…"))
    }

    @Test func aFailingTableHookLeavesTheGameAsItWasAndPlayGoesOn() throws {
        let game = try makeGame(Self.rules(returning: "v.state.n = 99; error('no table today', 0)"), players: ["Ann"])
        try game.roll(values: [3])
        #expect(throws: GameError.self) { _ = try game.table(for: "Ann") }
        try game.roll(values: [4])
        #expect(game.lua.get(try #require(game.state.tableRef), "n") == .integer(2))
    }

    @Test func aTimerHandleSaysHowLongUntilItFires() throws {
        let game = try makeGame("""
            local r = rules { name = "T", players = {1, 1}, dice = "1d6" }
            function r.setup(g) g.state.alarm = timer.after(5000, function(g) g:say("ring") end) end
            function r.roll(g, p, r) end
            function r.table(v, t)
              local left = v.state.alarm:left()
              return {countdown = {text = "The alarm rings", ms = left or 0}, headline = left and "waiting" or "rung"}
            end
            return r
            """, players: ["Ann"])
        #expect(try game.table(for: "Ann")?["countdown"] == .object(["text": .string("The alarm rings"), "ms": .integer(5000)]))
        try game.advance(by: 1500)
        #expect(try game.table(for: "Ann")?["countdown"]?["ms"] == .integer(3500))
        try game.advance(by: 4000)
        #expect(try game.table(for: "Ann")?["headline"] == .string("rung"))
    }

    /// Every shipped game has a table for every seat and spectator all through a bot
    /// game, and a game that ends says how in each seat's words.
    @Test(arguments: ["craps", "labyrinth", "liars-dice", "mia", "race", "race-doubles", "snap"])
    func everyShippedGameDrawsItsTableToTheEnd(_ name: String) throws {
        let script = "rules/\(name).lua"
        let probe = try Game(rulesFile: script, players: [], seed: 1)
        let seats = min(max(probe.rules.minPlayers, 2), probe.rules.maxPlayers)
        let players = Array(["Ann", "Bob", "Cy"].prefix(seats))
        let game = try Game(rulesFile: script, players: players, seed: 7)
        #expect(game.hasTable)
        for _ in 0..<3_000 where !game.isOver {
            for viewer in players + [nil] as [String?] {
                let table = try game.table(for: viewer)
                #expect(table?["headline"] != nil)
            }
            try game.playBotMove()
        }
        guard game.isOver else { return }  // (a game that goes on longer still drew every table)
        for viewer in players {
            guard case .string(let result)? = try game.table(for: viewer)?["result"] else {
                Issue.record("\(name): no result for \(viewer)"); continue
            }
            if case .win(let winner)? = game.outcome {
                #expect(result.contains(winner == viewer ? "You" : winner), "\(name) \(viewer): \(result)")
            }
        }
    }

    @Test func liarsDiceTablesKeepEveryCupSecretAndTellTheCall() throws {
        let game = try Game(rulesFile: "rules/liars-dice.lua", players: ["Ann", "Bob"], seed: 3)
        #expect(try game.table(for: "Ann")?["roll"] == .string("Roll the cup"))
        try game.roll(values: [2, 2, 3, 4, 6])
        try game.roll(values: [5, 5, 5, 1, 1])
        let bob = try #require(try game.table(for: "Bob"))
        #expect(Self.cups(bob).first?["dice"] == .object(["hidden": .integer(5)]))
        #expect(bob["headline"] == .string("Ann opens the bidding"))
        #expect(try game.table(for: "Ann")?["roll"] == .bool(false), "no roll is taken while bidding")
        #expect(try game.legalArguments(of: "liar", by: "Ann").isEmpty, "no bid to call yet")
        try game.act("bid", by: "Ann", arguments: [.integer(4), .integer(3)])
        #expect(try game.table(for: "Bob")?["headline"] == .string("Ann bid four 3s — your move: raise or call liar"))
        #expect(try game.legalArguments(of: "liar", by: "Bob").count == 1)
        try game.act("liar", by: "Bob")
        let after = try #require(try game.table(for: "Bob"))
        #expect(Self.cups(after).first?["dice"] == .object(["values": .array([2, 2, 3, 4, 6].map { .integer($0) })]))
        guard case .string(let last)? = after["last"] else { Issue.record("no last"); return }
        #expect(last.hasPrefix("Bob calls liar"))
    }

    @Test func miaListsOnlyTheMovesOfThePosition() throws {
        let game = try Game(rulesFile: "rules/mia.lua", players: ["Ann", "Bob"], seed: 1)
        #expect(try game.legalArguments(of: "announce", by: "Ann").isEmpty && game.legalArguments(of: "call", by: "Ann").isEmpty)
        try game.roll(values: [6, 5])
        #expect(try game.legalArguments(of: "announce", by: "Ann").count == 21)
        try game.act("announce", by: "Ann", arguments: [.integer(66)])
        #expect(try game.legalArguments(of: "announce", by: "Bob").isEmpty)
        #expect(try game.legalArguments(of: "believe", by: "Bob").count == 1 && game.legalArguments(of: "call", by: "Bob").count == 1)
        #expect(try game.table(for: "Bob")?["headline"] == .string("Ann announced 66 — believe it and roll, or call"))
    }

    @Test func aOnePlayerCrapsGameEndsInItsRealOutcome() throws {
        let game = try Game(rulesFile: "rules/craps.lua", players: ["Ann"], seed: 1, params: [("rounds", "1")])
        try game.roll(values: [1, 2])
        #expect(try game.table(for: "Ann")?["result"] == .string("You finish $5 down"))
    }
}
