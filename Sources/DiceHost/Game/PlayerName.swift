import Foundation

/// When two player names look alike. Every event names its player, so a second player
/// called `Аnn` (a Cyrillic А) or `Ａnn` (fullwidth) beside Ann could pass for her in
/// every line a client or a transcript shows. `dicehost play --players` and a served
/// room's `join` both refuse a name that looks like one already seated.
///
///     PlayerName.looksAlike("Ann", "Аnn")   // true: Cyrillic А
///     PlayerName.looksAlike("Ann", "ＡＮＮ")  // true: fullwidth, and case is ignored
///     PlayerName.looksAlike("Ann", "Anna")  // false
///
/// The skeleton follows Unicode TR39 (confusable detection) in shape - a name is
/// normalized, then each character is replaced by the one it is confused with - with a
/// small table built by hand instead of TR39's `confusables.txt`: no package of this
/// system ships that file (Debian's `unicode-data` has the UCD, not the security data),
/// and the full table (about 6,300 entries) is too big to carry as source for this one
/// check. What it covers, in order:
///
/// 1. NFKC: fullwidth and halfwidth forms, mathematical alphanumerics (𝐀, 𝔄, 𝖆 …),
///    letterlike symbols (ℓ, ℌ), circled and parenthesized letters, ligatures (ﬁ),
///    Roman numerals (Ⅰ), super- and subscripts all become their plain letters.
/// 2. Invisible characters (Unicode's default-ignorable code points: zero-width spaces
///    and joiners, soft hyphens, variation selectors) are dropped.
/// 3. Capital look-alikes of Latin capitals (Cyrillic А В Е К М Н О Р С Т Х …, Greek
///    Α Β Ε Ζ Η Ι Κ Μ Ν Ο Ρ Τ Υ Χ, Armenian Օ Ս) become those capitals, then the name is
///    lowercased (names compare case-insensitively), then small look-alikes of Latin
///    small letters (Cyrillic а е о р с у х ѕ і ј һ ԁ ԛ ԝ ӏ ү ѵ, Greek ο ν α ι ρ υ γ χ ϲ ϳ,
///    Latin ı ɑ ɡ ɩ ǀ, Armenian օ ս հ ո զ) become those letters.
/// 4. Digits and letters that pass for each other in many fonts share one class:
///    `0`/`o`; `1`/`l`/`I`/`i`/`|` (with case ignored, `I` ≈ `l` makes `i` ≈ `l` too);
///    `rn` reads as `m` and `vv` as `w`.
///
/// Other scripts' look-alikes (Cherokee, Lisu, Coptic …) are not in the table: a name in
/// them is still refused when it is NFKC- and case-equal to a seated one.
public enum PlayerName {
    /// The form two names share when they look alike (see the type's notes).
    public static func skeleton(_ name: String) -> String {
        let normalized = name.precomposedStringWithCompatibilityMapping
        var capitals = String.UnicodeScalarView()
        for scalar in normalized.unicodeScalars where !scalar.properties.isDefaultIgnorableCodePoint {
            capitals.append(capitalLookAlikes[scalar] ?? scalar)
        }
        var small = ""
        for scalar in String(capitals).lowercased().unicodeScalars {
            let letter = smallLookAlikes[scalar] ?? scalar
            switch letter {
            case "0": small += "o"
            case "1", "i", "|": small += "l"
            default: small.unicodeScalars.append(letter)
            }
        }
        return small.replacingOccurrences(of: "rn", with: "m").replacingOccurrences(of: "vv", with: "w")
    }

    /// Whether `a` and `b` look alike (the same skeleton).
    public static func looksAlike(_ a: String, _ b: String) -> Bool { skeleton(a) == skeleton(b) }

    /// Capitals of other scripts drawn like a Latin capital (before lowercasing: their
    /// small forms look nothing like the Latin small letter, e.g. Cyrillic в, Greek η).
    static let capitalLookAlikes: [Unicode.Scalar: Unicode.Scalar] = [
        // Cyrillic
        "\u{0410}": "A", "\u{0412}": "B", "\u{0415}": "E", "\u{0417}": "3", "\u{041A}": "K", "\u{041C}": "M",
        "\u{041D}": "H", "\u{041E}": "O", "\u{0420}": "P", "\u{0421}": "C", "\u{0422}": "T", "\u{0423}": "Y",
        "\u{0425}": "X", "\u{0405}": "S", "\u{0406}": "I", "\u{0408}": "J", "\u{04AE}": "Y", "\u{04C0}": "I",
        "\u{051A}": "Q", "\u{051C}": "W",
        // Greek
        "\u{0391}": "A", "\u{0392}": "B", "\u{0395}": "E", "\u{0396}": "Z", "\u{0397}": "H", "\u{0399}": "I",
        "\u{039A}": "K", "\u{039C}": "M", "\u{039D}": "N", "\u{039F}": "O", "\u{03A1}": "P", "\u{03A4}": "T",
        "\u{03A5}": "Y", "\u{03A7}": "X", "\u{03F9}": "C", "\u{037F}": "J",
        // Armenian
        "\u{0555}": "O", "\u{054D}": "U",
    ]

    /// Small letters of other scripts (and Latin variants) drawn like a Latin small letter.
    static let smallLookAlikes: [Unicode.Scalar: Unicode.Scalar] = [
        // Cyrillic
        "\u{0430}": "a", "\u{0435}": "e", "\u{043E}": "o", "\u{0440}": "p", "\u{0441}": "c", "\u{0443}": "y",
        "\u{0445}": "x", "\u{0455}": "s", "\u{0456}": "i", "\u{0458}": "j", "\u{04BB}": "h", "\u{0501}": "d",
        "\u{051B}": "q", "\u{051D}": "w", "\u{04CF}": "l", "\u{04AF}": "y", "\u{0475}": "v",
        // Greek
        "\u{03BF}": "o", "\u{03BD}": "v", "\u{03B1}": "a", "\u{03B9}": "i", "\u{03C1}": "p", "\u{03C5}": "u",
        "\u{03B3}": "y", "\u{03C7}": "x", "\u{03F2}": "c", "\u{03F3}": "j",
        // Latin variants
        "\u{0131}": "i", "\u{0251}": "a", "\u{0261}": "g", "\u{0269}": "i", "\u{01C0}": "l",
        // Armenian
        "\u{0585}": "o", "\u{057D}": "u", "\u{0570}": "h", "\u{0578}": "n", "\u{0566}": "q",
    ]
}
