import DiceHost
import Testing

@Suite struct DiceNotationTests {
    @Test func parsesTheCommonForms() throws {
        let d = try DiceNotation("4d6kh3+2")
        #expect(d.count == 4 && d.sides == 6 && d.keep == .highest(3) && d.modifier == 2)
        #expect(try DiceNotation("d20").count == 1)
        #expect(try DiceNotation("2d6dl1").keep == .highest(1))
        #expect(try DiceNotation("1d6!").exploding)
        #expect(try DiceNotation("3d8-1").modifier == -1)
    }

    @Test(arguments: [
        ("2x6", "missing 'd' between count and sides"), ("2d", "missing number of sides after 'd'"),
        ("0d6", "dice count must be 1..100, got 0"), ("2d1", "sides must be 2..1000, got 1"),
        ("2d6kh3", "'kh3' must leave between 1 and 2 dice"), ("2d6+", "missing number after '+'"), ("2d6x", "unexpected 'x'"),
    ])
    func badNotationSaysWhy(_ text: String, _ reason: String) {
        #expect(throws: DiceNotation.ParseError(notation: text, reason: reason)) { try DiceNotation(text) }
    }

    @Test func keepAndModifierShapeTheTotal() throws {
        let d = try DiceNotation("4d6kh3")
        #expect(d.kept([1, 6, 3, 5]).reduce(0, +) == 14)
        var sequence = [6, 6, 2].makeIterator()
        #expect(try DiceNotation("1d6!").roll { _ in sequence.next() ?? 1 } == [14])
    }

    @Test func glyphsArePrintable() {
        #expect(Roll(values: [1, 6]).description == "⚀ ⚅ = 7")
        #expect(Roll(values: [], flag: .tooShort).description == "too_short")
    }
}

@Suite struct DiceLibraryTests {
    let rules = """
        local r = rules { name = "D", players = 1 }
        function r.roll() end
        r.actions = {
          throw = function(g, p, n) local x = dice.roll(n) g:say("%d %d %s %s", #x.values, x.total, tostring(x.ok), dice.glyph(x.values[1])) end,
        }
        return r
        """

    @Test func diceRollDrawsFromTheGameGenerator() throws {
        let a = try makeGame(rules, players: ["A"], seed: 4), b = try makeGame(rules, players: ["A"], seed: 4)
        try a.act("throw", arguments: ["3d6+1"])
        try b.act("throw", arguments: ["3d6+1"])
        #expect(log(a) == log(b))
        let said = try #require(log(a).last)
        #expect(said.hasPrefix("say 3 ") && said.hasSuffix(" true " + String(said.last!)))
    }

    @Test func badNotationInAScriptIsAnArgumentError() throws {
        let game = try makeGame(rules, players: ["A"])
        expectGameError("test.lua:4: bad argument #1 to 'roll' (bad dice notation '2x6': missing 'd' between count and sides (expected e.g. 2d6, 4d6kh3, 1d6!+2))") {
            try game.act("throw", arguments: ["2x6"])
        }
    }
}
