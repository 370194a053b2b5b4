import DiceHost
import Foundation
import Testing

/// The shipped tables and how long a reveal lasts (`t.shown`: this round's only): no
/// shown dice drawn as a live cup, an announcement labelled by who made it, the dice that
/// counted lit, the call cleared when the next round's first cup is rolled.
@Suite struct ShippedTableRevealTests {
    static func cups(_ table: JSONValue?) -> [JSONValue] {
        if case .array(let list)? = table?["cups"] { return list }
        return []
    }

    static func values(_ list: [Int]) -> JSONValue { .object(["values": .array(list.map { .integer(Int64($0)) })]) }

    @Test func miaLabelsTheStandingAnnouncementByWhoMadeIt() throws {
        let game = try Game(rulesFile: "rules/mia.lua", players: ["Ann", "Bob", "Cy"], seed: 2)
        try game.roll(values: [5, 5])
        try game.act("announce", by: "Ann", arguments: [.integer(55)])
        try game.act("believe", by: "Bob")
        try game.roll(values: [6, 4])
        // Bob's cup, while Bob decides: Ann's 55 is what it must beat, not Bob's announcement.
        let cy = try #require(try game.table(for: "Cy"))
        #expect(Self.cups(cy).first?["note"] == .string("to beat Ann's 55"))
        #expect(Self.cups(cy).first?["dice"] == .object(["hidden": .integer(2)]))
        try game.act("announce", by: "Bob", arguments: [.integer(66)])
        #expect(Self.cups(try game.table(for: "Cy")).first?["note"] == .string("Bob announced 66"))
        #expect(Self.cups(try game.table(for: "Bob")).first?["note"] == .string("you announced 66"))
    }

    @Test func miaShowsTheCalledCupOnlyUntilTheNextRoll() throws {
        let game = try Game(rulesFile: "rules/mia.lua", players: ["Ann", "Bob", "Cy"], seed: 2)
        try game.roll(values: [6, 4])
        try game.act("announce", by: "Ann", arguments: [.integer(66)])
        try game.act("call", by: "Bob")  // a lie: Ann loses a life and starts the next round
        let shown = try #require(try game.table(for: "Cy"))
        #expect(Self.cups(shown).first?["dice"] == Self.values([6, 4]))
        #expect(Self.cups(shown).first?["note"] == .string("showed at the call"))
        #expect(shown["last"]?.description.contains("Bob calls") == true)
        // Ann rolls her new cup: the shown dice and the call leave the table; her live cup
        // is face down for the others, never the dice she showed.
        try game.roll(values: [3, 1])
        for viewer in ["Bob", "Cy"] {
            let table = try #require(try game.table(for: viewer))
            #expect(Self.cups(table).first?["dice"] == .object(["hidden": .integer(2)]), "\(viewer)")
            #expect(Self.cups(table).first?["note"] == .string("rolled"))
            #expect(table["last"] == nil, "\(viewer): the last round's call is cleared")
        }
        #expect(Self.cups(try game.table(for: "Ann")).first?["dice"] == Self.values([3, 1]))
    }

    @Test func liarsDiceLightsTheDiceThatCountedAndSaysWhoLostADie() throws {
        let game = try Game(rulesFile: "rules/liars-dice.lua", players: ["Ann", "Bob"], seed: 5)
        try game.roll(values: [2, 2, 3, 4, 6])
        try game.roll(values: [1, 5, 5, 6, 6])
        try game.act("bid", by: "Ann", arguments: [.integer(4), .integer(2)])
        try game.act("liar", by: "Bob")  // 3 twos (one wild): Ann loses a die
        let table = try #require(try game.table(for: "Bob"))
        let cups = Self.cups(table)
        #expect(cups.first?["counted"] == .array([.integer(2)]) && cups.first?["wild"] == .array([.integer(1)]))
        #expect(cups.first?["note"] == .string("showed 5 dice · 2 counted · lost a die (4 left)"))
        #expect(cups.last?["note"] == .string("showed 5 dice · 1 counted"))
        #expect(cups.last?["dice"] == Self.values([1, 5, 5, 6, 6]))
        #expect(table["last"]?.description.contains("Bob calls liar") == true)
        // The next round's first cup: the reveal and the call are gone.
        try game.roll(values: [3, 3, 3, 3])
        let next = try #require(try game.table(for: "Bob"))
        #expect(next["last"] == nil)
        #expect(Self.cups(next).first?["dice"] == .object(["hidden": .integer(4)]))
        #expect(Self.cups(next).first?["counted"] == nil)
    }

    @Test func liarsDiceSaysWhoIsOutAtTheEnd() throws {
        let game = try Game(rulesFile: "rules/liars-dice.lua", players: ["Ann", "Bob"], seed: 5, params: [("start_dice", "1")])
        try game.roll(values: [2])
        try game.roll(values: [5])
        try game.act("bid", by: "Ann", arguments: [.integer(2), .integer(2)])
        try game.act("liar", by: "Bob")
        #expect(game.isOver)
        let cups = Self.cups(try game.table(for: "Bob"))
        #expect(cups.first?["note"] == .string("showed 1 die · 1 counted · lost the last die: out"))
    }
}
