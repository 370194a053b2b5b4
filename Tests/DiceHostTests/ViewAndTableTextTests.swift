@testable import DiceHost
import Lua
import Testing

/// Issue 32: a server writes each seat's view and table straight to JSON text (no
/// `JSONValue` trees and dictionaries made per seat only to be written and dropped). The
/// texts are exactly the values' `description`: what clients received before.
@Suite struct ViewAndTableTextTests {
    /// Every seat's look as texts and as values, compared, after each of up to `moves` bot moves.
    func expectTextsAreTheValuesWritten(_ game: Game, _ viewers: [String?], moves: Int) throws {
        for _ in 0...moves {
            let values = game.viewsAndTables(for: viewers)
            let texts = game.viewsAndTablesText(for: viewers)
            #expect(values.count == texts.count)
            for (value, text) in zip(values, texts) {
                #expect(try text.view.get() == value.view.get().description)
                #expect(try text.table?.get() == value.table?.get().description)
            }
            for viewer in viewers {
                let one = game.viewAndTableText(for: viewer)
                #expect(try one.view.get() == game.view(for: viewer).description)
                #expect(try one.table?.get() == game.table(for: viewer)?.description)
            }
            if game.isOver { return }
            try game.playBotMove()
        }
    }

    @Test(arguments: ["rules/snap.lua", "rules/liars-dice.lua", "rules/craps.lua", "rules/race.lua", "rules/mia.lua"])
    func theServedTextsOfTheShippedGamesAreTheirLooksWrittenOut(_ file: String) throws {
        let rules = try Game.check(rulesFile: file)
        let players = Array(["Ann", "Bob", "Cy", "Dee"].prefix(max(rules.minPlayers, min(rules.maxPlayers, 4))))
        let game = try Game(rulesFile: file, players: players, seed: 7)
        try expectTextsAreTheValuesWritten(game, players + [nil], moves: 40)
    }

    /// Keys whose `pairs` order is not their sorted order (numbers, non-ASCII, a number and
    /// the string of it), a deep table, long strings, odd numbers, host values.
    static let awkwardRules = """
        local r = rules { name = "Awkward", players = {2, 2}, dice = "2d6" }
        function r.setup(g) g.state.card = cards.deck()[1] end
        function r.roll(g, p, r) g.state.last = r; g:next_turn() end
        function r.view(g, viewer)
          local deep = {}
          local at = deep
          for i = 1, 12 do at.next = {depth = i}; at = at.next end
          return {
            mixed = {[1] = "one", [2] = "two", [10] = "ten", name = "x", [true] = "yes"},
            clash = {[1] = "number", ["1"] = "string"},
            ["\\u{E9}t\\u{E9}"] = 1, ["e\\u{301}t\\u{E9}"] = 2, Zebra = 3, apple = 4, ["a b"] = 5,
            list = {3, 1, 2}, empty = {}, deep = deep,
            long = string.rep("ab", 2500), quote = "say \\"hi\\"\\n\\tback\\\\slash \\1",
            numbers = {1.5, -0.0, 1e300, 2^53, math.huge, -math.huge, 0/0, math.maxinteger, math.mininteger},
            card = g.state.card, roll = g.state.last, cup = hidden("dice", 3),
            viewer = viewer and viewer.name,
          }
        end
        return r
        """

    @Test func viewsWithAwkwardKeysAndValuesAreWrittenAsTheirValuesAre() throws {
        let game = try makeGame(Self.awkwardRules)
        try expectTextsAreTheValuesWritten(game, ["Ann", "Bob", nil], moves: 2)
        let text = try game.viewAndTableText(for: "Ann").view.get()
        #expect(text.contains("\"clash\":{\"1\":"))
        #expect(text.contains("\"deep\":{\"next\":{\"depth\":1,"))
    }

    /// A table hook that uses every field of the table's vocabulary.
    static let everyFieldRules = """
        local r = rules { name = "Every field", players = {2, 2}, dice = "3d6" }
        function r.setup(g) g.state.deck = cards.deck() end
        function r.roll(g, p, r) g.state.last = r; g:say("%s rolled %d", p.name, r.total); g:next_turn() end
        function r.table(v, t)
          local deck = v.state.deck
          return {
            headline = "Headline é " .. tostring(t.you), result = string.rep("x", 400), last = t.said[#t.said], turn = 12,
            roll = false,
            countdown = {text = "soon", ms = 1500},
            track = {target = 25, label = "Race", marks = {{name = "Ann", at = 3}, {name = "Bob", at = 7}}},
            pot = {label = "Ante", value = 2.5},
            balances = {{name = "Ann", value = 205, note = "ante"}, {name = "Bob", value = "$3"}, {name = 7, value = 1.25}},
            cups = {{name = "Ann", dice = v.state.last or {1, 2}, note = "mine"}, {name = "Bob", dice = hidden("dice", 5)},
                    {name = "Cy", dice = {values = {6, 6}}}},
            cards = {{name = "Ann", open = deck[1], facedown = 12, note = "n"}, {name = "Bob", open = {deck[2], deck[13]}},
                     {name = "Cy", facedown = hidden("cards", 4)}},
          }
        end
        return r
        """

    @Test func aTableWithEveryFieldIsWrittenAsItsValueIs() throws {
        let game = try makeGame(Self.everyFieldRules)
        try expectTextsAreTheValuesWritten(game, ["Ann", "Bob", nil], moves: 2)
        let text = try #require(try game.viewAndTableText(for: "Ann").table?.get())
        #expect(text.contains("\"cards\":[{\"facedown\":12,\"name\":\"Ann\",\"note\":\"n\",\"open\":[{\"rank\":1,"))
        #expect(text.contains("\"pot\":{\"label\":\"Ante\",\"value\":2.5}"))
    }

    /// A row with two mistakes: the first checked is named, as before the table was written
    /// straight to text (its fields are written in sorted order, checked in this one).
    @Test(arguments: [
        ("{name = {}, dice = 'x'}", "cups[1].name = table: a string expected"),
        ("{name = 'Ann', dice = 'x', note = {}}", "cups[1].dice = string: a roll, hidden(\"dice\", n) or a list of die values expected"),
        ("{name = 'Ann', dice = {hidden = true, count = -1}, note = {}}", "cups[1].dice.count = number: a count from 0 expected"),
        ("{name = 'Ann', dice = {1, 0}}", "cups[1].dice[2] = number: a die value (1 or more) expected"),
        ("{name = 'Ann', dice = {1}, note = {}}", "cups[1].note = table: a string expected"),
    ])
    func aTablesFirstMistakeIsNamedByTheTextAsByTheValue(_ row: String, _ expected: String) throws {
        let game = try makeGame("""
            local r = rules { name = "Bad", players = {2, 2}, dice = "1d6" }
            function r.roll(g, p, r) end
            function r.table(v, t) return {headline = "h", cups = {\(row)}} end
            return r
            """)
        let message = "test.lua:1: table(v, t) returned " + expected
        #expect(Self.error(game.viewAndTableText(for: "Ann").table) == message)
        #expect(Self.error(game.viewAndTable(for: "Ann").table) == message)
    }

    static func error<T>(_ result: Result<T, any Error>?) -> String? {
        if case .failure(let error)? = result { return "\(error)" }
        return nil
    }

    /// In a game whose view is the same for every seat, `t` is read from the log once for
    /// all seats only when every event read is for everyone: a line told to one seat is in
    /// that seat's `t.said` alone.
    @Test func aLineToldToOneSeatIsInNoOtherSeatsTableWhenTheViewIsShared() throws {
        let game = try makeGame("""
            local r = rules { name = "Told", players = {2, 2}, dice = "1d6" }
            function r.roll(g, p, r)
              g:say("%s rolled", p.name)
              g:tell(p, "%s: you rolled %d", p.name, r.total)
              g:next_turn()
            end
            function r.view(g) return {turn = g.current.name} end
            function r.table(v, t) return {headline = table.concat(t.said, " / ")} end
            return r
            """)
        #expect(game.viewIsTheSameForEveryone)
        let before = game.viewsAndTablesText(for: ["Ann", "Bob"])
        #expect(try before.map { try $0.table?.get() } == ["{\"headline\":\"\"}", "{\"headline\":\"\"}"])
        try game.roll(values: [4])
        let after = game.viewsAndTablesText(for: ["Ann", "Bob", nil])
        #expect(try after[0].table?.get() == "{\"headline\":\"Ann rolled / Ann: you rolled 4\"}")
        #expect(try after[1].table?.get() == "{\"headline\":\"Ann rolled\"}")
        #expect(try after[2].table?.get() == "{\"headline\":\"Ann rolled\"}")
    }

    /// `t.said` holds the last eight lines and `t.shown` the cups revealed since the last
    /// roll, however many events came before (the scan stops early once nothing older can
    /// change them), for a seat that sees everything and for one that does not.
    @Test func tHoldsTheLastLinesAndTheCupsShownSinceTheLastRollOfALongLog() throws {
        let game = try makeGame("""
            local r = rules { name = "Long log", players = {2, 2}, dice = "2d6", secret_rolls = true }
            function r.roll(g, p, r)
              for i = 1, 12 do g:say("line %d of %s", i, p.name) end
              g:tell(p, "only %s knows", p.name)
              g:reveal(p, r)
              g:next_turn()
            end
            r.actions = { show = function(g, p) g:reveal(p, {1, 2}); g:say("%s showed", p.name) end }
            r.anytime = {"show"}
            function r.table(v, t)
              local shown = {}
              for name, values in pairs(t.shown) do shown[#shown + 1] = name .. "=" .. table.concat(values, "") end
              return {headline = table.concat(t.said, "|"), last = table.concat(shown, ",")}
            end
            return r
            """)
        for _ in 0..<6 { try game.roll(values: [3, 4]) }
        try game.act("show", by: "Bob")
        let looks = game.viewsAndTablesText(for: ["Ann", "Bob"])
        let ann = try #require(try looks[0].table?.get()), bob = try #require(try looks[1].table?.get())
        let lines = (6...12).map { "line \($0) of Bob" }
        #expect(ann == "{\"headline\":\"" + (lines + ["Bob showed"]).joined(separator: "|") + "\",\"last\":\"Bob=12\"}")
        #expect(bob == "{\"headline\":\"" + (lines.dropFirst() + ["only Bob knows", "Bob showed"]).joined(separator: "|") + "\",\"last\":\"Bob=12\"}")
    }
}
