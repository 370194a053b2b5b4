import DiceHost
import Foundation

/// How play output looks in a terminal: dice glyphs in bold, turns and outcomes marked,
/// LED colours drawn in their colour, errors in red. Plain text (exactly the lines
/// tests compare) when output is not a terminal; `NO_COLOR` keeps the terminal's layout
/// and drops only the colour.
struct Renderer {
    /// The terminal's layout: turn banners, `say` text without its tag, marked outcomes.
    let layout: Bool
    /// ANSI colour on top of the layout.
    let colour: Bool

    init(layout: Bool, colour: Bool) {
        self.layout = layout
        self.colour = layout && colour
    }

    static func forStandardOutput() -> Renderer {
        let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return Renderer(layout: isatty(STDOUT_FILENO) != 0, colour: !noColor)
    }

    static let ansi: [String: String] = [
        "red": "31", "green": "32", "yellow": "33", "blue": "34", "purple": "35", "magenta": "35",
        "cyan": "36", "white": "37", "orange": "38;5;208", "pink": "38;5;205",
    ]

    func paint(_ text: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }

    func render(_ line: String) -> String {
        guard layout else { return line }
        if line.hasPrefix("error") { return paint(line, "1;31") }
        if line.hasPrefix("warning") { return paint(line, "33") }
        if line.hasPrefix("turn ") { return paint("── \(line.dropFirst(5))'s turn ──", "1;36") }
        if line.hasPrefix("win ") { return paint("★ \(line.dropFirst(4)) wins ★", "1;32") }
        if line == "draw" { return paint("═ a draw ═", "1;33") }
        if line.hasPrefix("lose ") || line.hasPrefix("eliminate ") { return paint(line, "1;31") }
        if line.hasPrefix("roll ") { return paint(line, "1") }
        if line.hasPrefix("reload") || line.hasPrefix("reloaded") { return paint(line, "35") }
        if line.hasPrefix("face ") || line.hasPrefix("led ") { return colourNames(in: line) }
        if line.hasPrefix("say ") { return String(line.dropFirst(4)) }
        return line
    }

    /// "face 3: green" → a coloured die face; colour words inside LED commands painted.
    func colourNames(in line: String) -> String {
        var out = line
        for (name, code) in Self.ansi where out.contains(name) {
            out = out.replacingOccurrences(of: name, with: colour ? paint("⬤ " + name, code) : name)
        }
        return out
    }

    /// Runs of identical lines as one line with a count ("led 1 blink green ×15"): a `tick`
    /// over a long wait repeats a timer's events, which say nothing new after the first.
    static func foldingRepeats(_ lines: [String]) -> [String] {
        var out: [String] = []
        var index = lines.startIndex
        while index < lines.endIndex {
            var end = index + 1
            while end < lines.endIndex, lines[end] == lines[index] { end += 1 }
            out.append(end - index > 1 ? "\(lines[index]) ×\(end - index)" : lines[index])
            index = end
        }
        return out
    }

    /// The prompt: the rules' status line, if any, and the current player.
    func prompt(for game: Game) -> String {
        let player = game.currentPlayer ?? "-"
        let status = game.statusLine().map { "[\($0)] " } ?? ""
        if game.isOver { return paint(status, "2") + paint("game over", "1;32") + "> " }
        return paint(status, "2") + paint(player, "1;36") + "> "
    }
}
