/// The words of a command line as the REPL reads them: split at spaces, except inside a
/// quoted string (`call "07"`, `name "Ann Lee"`, with `\"` and `\\` - and `\n`, `\t`,
/// `\r` - as escapes), which is one word and always a string. A bare word keeps the
/// meaning it always had (`GameSession.argument` reads `07` as the integer 7).
public enum GameInputLine {
    /// One word: its text (a quoted string without its quotes and escapes), whether it
    /// was quoted, and how it was typed (what a transcript keeps).
    public struct Word: Equatable, Sendable {
        public var text: String
        public var quoted: Bool
        public var typed: String
    }

    /// A line that cannot be split into words: where (a column from 1) and what is wrong.
    public struct SyntaxError: Error, Equatable, CustomStringConvertible {
        public var column: Int
        public var message: String
        public var description: String { "column \(column): \(message)" }
    }

    /// Splits `line` into words. With `quotes` false a `"` is an ordinary character, as
    /// every line was read before quoting existed: format 1 logs and the text rows of a
    /// server's store (which may hold a name or word with a `"` in it) replay as written.
    public static func words(_ line: String, quotes: Bool = true) throws -> [Word] {
        // Most lines quote nothing: split them as the REPL always did.
        if !quotes || !line.utf8.contains(UInt8(ascii: "\"")) {
            return line.split(whereSeparator: \.isWhitespace).map { Word(text: String($0), quoted: false, typed: String($0)) }
        }
        var words: [Word] = []
        let scalars = Array(line.unicodeScalars)
        var index = 0
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { Character(scalar).isWhitespace }
        while index < scalars.count {
            if isSpace(scalars[index]) { index += 1; continue }
            let start = index
            if scalars[index] == "\"" {
                var text = String.UnicodeScalarView()
                index += 1
                var closed = false
                while index < scalars.count {
                    let scalar = scalars[index]
                    if scalar == "\"" { closed = true; index += 1; break }
                    if scalar == "\\" {
                        guard index + 1 < scalars.count else { break }
                        switch scalars[index + 1] {
                        case "\"": text.append("\"")
                        case "\\": text.append("\\")
                        case "n": text.append("\n")
                        case "t": text.append("\t")
                        case "r": text.append("\r")
                        default:
                            throw SyntaxError(column: index + 1, message: "a quoted string knows the escapes \\\" \\\\ \\n \\t \\r, got '\\\(scalars[index + 1])'")
                        }
                        index += 2
                        continue
                    }
                    text.append(scalar)
                    index += 1
                }
                guard closed else { throw SyntaxError(column: start + 1, message: "the string opened here has no closing '\"'") }
                if index < scalars.count, !isSpace(scalars[index]) {
                    throw SyntaxError(column: index + 1, message: "expected a space after the closing '\"' of a string")
                }
                var typed = String.UnicodeScalarView()
                typed.append(contentsOf: scalars[start..<index])
                words.append(Word(text: String(text), quoted: true, typed: String(typed)))
            } else {
                while index < scalars.count, !isSpace(scalars[index]) { index += 1 }
                var typed = String.UnicodeScalarView()
                typed.append(contentsOf: scalars[start..<index])
                words.append(Word(text: String(typed), quoted: false, typed: String(typed)))
            }
        }
        return words
    }

    /// Whether a string argument must be quoted to be read back as that same string: it
    /// is empty, has a space, a quote or a backslash, starts like a comment, or reads as a
    /// number or a boolean bare.
    public static func needsQuotes(_ text: String) -> Bool {
        if text.isEmpty || text.hasPrefix("#") { return true }
        // A leading combining mark joins the space before it into one character, which a
        // bare split would take for the space.
        if let first = text.unicodeScalars.first,
           [.nonspacingMark, .spacingMark, .enclosingMark].contains(first.properties.generalCategory) { return true }
        if text.unicodeScalars.contains(where: { Character($0).isWhitespace || $0 == "\"" || $0 == "\\" || $0.value < 0x20 }) { return true }
        return GameSession.argument(text) != .string(text)
    }

    /// `text` as a quoted string the REPL reads back as it is.
    public static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
