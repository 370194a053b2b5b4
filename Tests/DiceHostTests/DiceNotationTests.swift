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
