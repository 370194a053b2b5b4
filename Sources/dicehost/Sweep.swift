import DiceHost
import Foundation

/// `--sweep k=a..b[:step]`: one analysis per value of a param, a row each, the fairest
/// value marked, a small plot in the terminal and optionally an SVG chart.
struct Sweep {
    var param: String
    var values: [Int]

    /// Parses "target=10..60:10" (the step defaults to 1; at most 200 values).
    static func parse(_ text: String) throws -> Sweep {
        let usage = "--sweep takes param=first..last[:step] with whole numbers, e.g. target=10..60:10, got '\(text)'"
        guard let equals = text.firstIndex(of: "=") else { throw GameOptions.UsageError(description: usage) }
        let name = String(text[..<equals])
        var range = Substring(text[text.index(after: equals)...])
        var step = 1
        if let colon = range.firstIndex(of: ":") {
            guard let s = Int(range[range.index(after: colon)...]), s >= 1 else { throw GameOptions.UsageError(description: usage) }
            step = s
            range = range[..<colon]
        }
        let bounds = range.components(separatedBy: "..")
        guard !name.isEmpty, bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first <= last else {
            throw GameOptions.UsageError(description: usage)
        }
        let values = Array(stride(from: first, through: last, by: step).prefix(201))
        guard values.count <= 200 else {
            throw GameOptions.UsageError(description: "--sweep covers at most 200 values; use a larger step, got '\(text)'")
        }
        return Sweep(param: name, values: values)
    }

    struct Row {
        var value: Int
        var wins: [Double]
        var length: Double?
        /// Each seat's 95% interval (a simulation's estimate; nil when exact).
        var intervals: [(lower: Double, upper: Double)]? = nil
    }

    /// The row whose seats are nearest one another (the largest minus the smallest win).
    static func fairest(_ rows: [Row]) -> Int? {
        rows.indices.min { spread(rows[$0]) < spread(rows[$1]) }
    }

    /// `--json` of a sweep: a row per value (its wins by player, rolls, whether fairest)
    /// with `extra(i)` added to row i, and `fields` beside the rows.
    static func json(_ rows: [Row], players: [String], param: String, fields: [String: Any] = [:],
                     extra: (Int) -> [String: Any] = { _ in [:] }) -> String {
        let fair = fairest(rows)
        let object: [[String: Any]] = rows.enumerated().map { i, row in
            var o: [String: Any] = [param: row.value, "wins": Dictionary(uniqueKeysWithValues: zip(players, row.wins)), "fairest": i == fair]
            if let length = row.length { o["rolls"] = length }
            return o.merging(extra(i)) { _, new in new }
        }
        var top = fields
        top["param"] = param
        top["rows"] = object
        return JSONText.compact(top)
    }

    static func spread(_ row: Row) -> Double { (row.wins.max() ?? 0) - (row.wins.min() ?? 0) }

    static func table(_ rows: [Row], players: [String], param: String, lengthTitle: String) -> String {
        let fair = fairest(rows)
        let column = rows.contains { $0.intervals != nil } ? 26 : 14
        var lines = [OddsReport.pad(param, 10) + players.map { OddsReport.pad(column == 26 ? "\($0) [95%]" : $0, column) }.joined() + lengthTitle]
        for (i, row) in rows.enumerated() {
            var line = OddsReport.pad(String(row.value), 10)
            if let intervals = row.intervals {
                line += zip(row.wins, intervals).map { OddsReport.pad(String(format: "%.4f [%.4f, %.4f]", $0.0, $0.1.lower, $0.1.upper), 26) }.joined()
            } else {
                line += row.wins.map { OddsReport.pad(String(format: "%.6f", $0), 14) }.joined()
            }
            if !lengthTitle.isEmpty { line += row.length.map { String(format: "%.3f", $0) } ?? "-" }
            if i == fair { line += "   <- fairest" }
            lines.append(line)
        }
        lines.append("")
        lines.append(plot(rows, players: players))
        return lines.joined(separator: "\n")
    }

    /// A small plot: the first seat's win probability per value, 0 to 100% across.
    static func plot(_ rows: [Row], players: [String]) -> String {
        let width = 40
        var lines = ["\(players.first ?? "seat 1")'s chance (| marks 50%):"]
        for row in rows {
            let p = row.wins.first ?? 0
            var bar = Array(repeating: Character(" "), count: width + 1)
            bar[width / 2] = "|"
            let at = Int((p * Double(width)).rounded())
            bar[min(max(at, 0), width)] = "*"
            lines.append(OddsReport.pad(String(row.value), 8) + String(bar) + String(format: " %.3f", p))
        }
        return lines.joined(separator: "\n")
    }

    /// An SVG line chart: a line per seat over the param, labelled axes, the fair line.
    /// Writes a sweep's chart (`--chart FILE.svg`) safely: never onto the rule script, and
    /// over an existing file only when it is a chart already (an SVG this tool wrote).
    static func writeChart(_ rows: [Row], players: [String], param: String, title: String, to path: String, rules: String) throws {
        let isOurs = (try? String(contentsOfFile: path, encoding: .utf8))?.hasPrefix("<?xml") ?? true
        do {
            try SafeFileWriter(protectedPaths: [rules], force: isOurs).write(svg(rows, players: players, param: param, title: title), to: path)
        } catch {
            printError("dicehost: --chart: \(error)")
            throw ExitStatus.failure
        }
    }

    static func svg(_ rows: [Row], players: [String], param: String, title: String) -> String {
        let w = 640.0, h = 400.0, left = 60.0, right = 120.0, top = 40.0, bottom = 50.0
        let plotW = w - left - right, plotH = h - top - bottom
        let xs = rows.map { Double($0.value) }
        let minX = xs.min() ?? 0, maxX = max(xs.max() ?? 1, (xs.min() ?? 0) + 1)
        func x(_ v: Double) -> Double { left + (v - minX) / (maxX - minX) * plotW }
        func y(_ p: Double) -> Double { top + (1 - p) * plotH }
        let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
        func esc(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        var out = [#"<?xml version="1.0" encoding="UTF-8"?>"#,
                   #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(Int(w))" height="\#(Int(h))" viewBox="0 0 \#(Int(w)) \#(Int(h))" font-family="sans-serif" font-size="12">"#,
                   #"<rect width="100%" height="100%" fill="white"/>"#,
                   #"<text x="\#(f(w / 2))" y="20" text-anchor="middle" font-size="14">\#(esc(title))</text>"#]
        // Axes and grid.
        out.append(#"<line x1="\#(f(left))" y1="\#(f(top))" x2="\#(f(left))" y2="\#(f(top + plotH))" stroke="black"/>"#)
        out.append(#"<line x1="\#(f(left))" y1="\#(f(top + plotH))" x2="\#(f(left + plotW))" y2="\#(f(top + plotH))" stroke="black"/>"#)
        for tick in stride(from: 0.0, through: 1.0, by: 0.25) {
            out.append(#"<text x="\#(f(left - 6))" y="\#(f(y(tick) + 4))" text-anchor="end">\#(Int(tick * 100))%</text>"#)
        }
        let fair = 1.0 / Double(max(players.count, 1))
        out.append(#"<line x1="\#(f(left))" y1="\#(f(y(fair)))" x2="\#(f(left + plotW))" y2="\#(f(y(fair)))" stroke="gray" stroke-dasharray="4 4"/>"#)
        out.append(#"<text x="\#(f(left + plotW + 4))" y="\#(f(y(fair) + 4))" fill="gray">fair \#(Int((fair * 100).rounded()))%</text>"#)
        let labelEvery = max(1, rows.count / 10)
        for (i, row) in rows.enumerated() where i % labelEvery == 0 || i == rows.count - 1 {
            out.append(#"<text x="\#(f(x(Double(row.value))))" y="\#(f(top + plotH + 16))" text-anchor="middle">\#(row.value)</text>"#)
        }
        out.append(#"<text x="\#(f(left + plotW / 2))" y="\#(f(h - 10))" text-anchor="middle">\#(esc(param))</text>"#)
        out.append(#"<text x="16" y="\#(f(top + plotH / 2))" text-anchor="middle" transform="rotate(-90 16 \#(f(top + plotH / 2)))">win probability</text>"#)
        for (seat, name) in players.enumerated() {
            let colour = colours[seat % colours.count]
            let points = rows.map { "\(f(x(Double($0.value)))),\(f(y($0.wins.count > seat ? $0.wins[seat] : 0)))" }.joined(separator: " ")
            out.append(#"<polyline fill="none" stroke="\#(colour)" stroke-width="2" points="\#(points)"/>"#)
            // A simulation's 95% interval of each point: a short vertical bar.
            for row in rows {
                guard let intervals = row.intervals, intervals.count > seat else { continue }
                let px = f(x(Double(row.value)))
                out.append(#"<line x1="\#(px)" y1="\#(f(y(intervals[seat].upper)))" x2="\#(px)" y2="\#(f(y(intervals[seat].lower)))" stroke="\#(colour)" stroke-width="1"/>"#)
            }
            let ly = top + 20 + Double(seat) * 18
            out.append(#"<line x1="\#(f(left + plotW + 8))" y1="\#(f(ly - 4))" x2="\#(f(left + plotW + 28))" y2="\#(f(ly - 4))" stroke="\#(colour)" stroke-width="2"/>"#)
            out.append(#"<text x="\#(f(left + plotW + 32))" y="\#(f(ly))">\#(esc(name))</text>"#)
        }
        if let best = fairest(rows) {
            out.append(#"<line x1="\#(f(x(Double(rows[best].value))))" y1="\#(f(top))" x2="\#(f(x(Double(rows[best].value))))" y2="\#(f(top + plotH))" stroke="darkgray" stroke-width="1"/>"#)
            out.append(#"<text x="\#(f(x(Double(rows[best].value)) + 4))" y="\#(f(top + 12))" fill="dimgray">fairest: \#(rows[best].value)</text>"#)
        }
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }
}
