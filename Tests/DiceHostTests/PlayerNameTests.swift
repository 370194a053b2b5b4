import DiceHost
import Testing

/// Names that look alike are one name: every event names its player.
@Suite struct PlayerNameTests {
    @Test func lookAlikesOfOtherScriptsWidthsAndStylesAreTheSameName() {
        // Cyrillic А, fullwidth Ａ, fullwidth ＡＮＮ, mathematical bold 𝐀, Greek Α, capitals,
        // a zero-width space, Cyrillic small а.
        for alike in ["\u{0410}nn", "\u{FF21}nn", "\u{FF21}\u{FF2E}\u{FF2E}", "\u{1D400}nn", "\u{0391}nn", "ANN",
                      "A\u{200B}nn", "\u{0430}nn"] {
            #expect(PlayerName.looksAlike("Ann", alike), "\(alike.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect(PlayerName.looksAlike("Bob", "B\u{043E}b"))      // Cyrillic о
        #expect(PlayerName.looksAlike("Bob", "B0b"))             // zero
        #expect(PlayerName.looksAlike("Bill", "BiII"))           // capital I for l
        #expect(PlayerName.looksAlike("Bill", "Bi11"))           // ones
        #expect(PlayerName.looksAlike("Emma", "Ernma"))          // rn for m
        #expect(PlayerName.looksAlike("Cy", "\u{0421}\u{0443}")) // Cyrillic С у
        #expect(PlayerName.looksAlike("Eve", "\u{0395}ve"))      // Greek Ε
    }

    @Test func namesThatDifferVisiblyStayDistinct() {
        for other in ["Anna", "Ana", "Bob", "\u{00C5}nn", "Amn", "Dee"] {
            #expect(!PlayerName.looksAlike("Ann", other), "\(other)")
        }
    }

    @Test func aTableWithLookAlikeNamesIsRefused() throws {
        let rules = try makeGame("local r = rules { name = 'T', players = {2, 4} }; function r.roll() end; return r").rules
        #expect(throws: PlayerList.UsageError.self) { try PlayerList.validate(["Ann", "\u{0410}nn"], for: rules) }
        #expect(throws: PlayerList.UsageError.self) { try PlayerList.validate(["Ann", "\u{FF21}nn"], for: rules) }
        #expect(throws: PlayerList.UsageError.self) { try PlayerList.validate(["Ann", "ann"], for: rules) }
        try PlayerList.validate(["Ann", "Anna", "Bob"], for: rules)
    }
}
