import Foundation

/// The report as one self-contained HTML page: the template (Templates/report.html, its
/// CSS inline) filled with each section's figures, charts and tables; with a second
/// variant, every figure beside its counterpart and the difference.
enum ReportPage {
    /// The first line every page starts with: an existing file that starts so is a report
    /// this command wrote, and may be replaced.
    static let marker = "<!DOCTYPE html>\n<!-- dicehost report:"

    static var template: String { String(decoding: PackageResources.report_html, as: UTF8.self) }

    static func escape(_ s: String) -> String { ReportSVG.escape(s) }

    static func html(_ a: ReportDocument, comparedWith b: ReportDocument? = nil) -> String {
        let heading = b == nil ? "Designer's report: \(a.rules)" : "Designer's report: \(a.rules) (A) and \(b?.rules ?? "") (B)"
        var meta = [describe(a, label: b == nil ? nil : "A")]
        if let b { meta.append(describe(b, label: "B")) }
        var body: [String] = []
        for key in ReportSection.Key.allCases {
            guard let first = a.section(key) else { continue }
            body.append(section(first, other: b?.section(key)))
        }
        let seconds = a.seconds + (b?.seconds ?? 0)
        let footer = String(format: "Made by dicehost report in %.1f s (budget %.0f s per variant). ", seconds, a.budget)
            + "The same figures are in the JSON the command writes with --json."
        return template
            .replacingOccurrences(of: "{{title}}", with: escape(heading))
            .replacingOccurrences(of: "{{heading}}", with: escape(heading))
            .replacingOccurrences(of: "{{meta}}", with: meta.joined(separator: "\n"))
            .replacingOccurrences(of: "{{footer}}", with: escape(footer))
            .replacingOccurrences(of: "{{body}}", with: body.joined(separator: "\n"))
    }

    static func describe(_ d: ReportDocument, label: String?) -> String {
        var text = (label.map { "\($0): " } ?? "") + "\(d.rulesFile) — \(d.players.joined(separator: ", "))"
        if !d.params.isEmpty { text += " — " + d.params.joined(separator: " ") }
        return #"<p class="meta">\#(escape(text))</p>"#
    }

    static func tag(_ method: ReportMethod) -> String { #"<span class="tag \#(method.name)">\#(method.name)</span>"# }

    static func section(_ s: ReportSection, other: ReportSection?) -> String {
        var out = [#"<section id="\#(s.key.rawValue)">"#, "<h2>\(escape(s.title))</h2>", #"<p class="question">\#(escape(s.question))</p>"#]
        if let other {
            out.append(methodLine(s, label: "A"))
            out.append(methodLine(other, label: "B"))
            out.append(compareTable(s, other))
        } else {
            out.append(methodLine(s, label: nil))
            if !s.figures.isEmpty {
                var rows = ["<tr><th>figure</th><th>value</th><th>how it was obtained</th></tr>"]
                for f in s.figures {
                    rows.append("<tr><td>\(escape(f.label))</td><td class=\"num\">\(escape(f.shown))</td><td class=\"how\">\(tag(f.method))\(escape(f.how))</td></tr>")
                }
                out.append(#"<div class="scroll"><table>"# + rows.joined() + "</table></div>")
            }
        }
        let labelled = other == nil ? s.charts.map { ("", $0) } : s.charts.map { ("A: ", $0) } + (other?.charts.map { ("B: ", $0) } ?? [])
        if !labelled.isEmpty {
            let figures = labelled.map { "<figure><figcaption>\(escape($0.0 + $0.1.title))</figcaption>\($0.1.svg)</figure>" }
            out.append(other == nil ? figures.joined(separator: "\n") : #"<div class="pair">"# + figures.joined(separator: "\n") + "</div>")
        }
        for (label, t) in s.tables.map({ (other == nil ? "" : "A: ", $0) }) + (other?.tables.map { ("B: ", $0) } ?? []) {
            out.append(table(t, label: label))
        }
        let notes = s.notes.map { (other == nil ? "" : "A: ") + $0 } + (other?.notes.map { "B: " + $0 } ?? [])
        if !notes.isEmpty { out.append(#"<ul class="notes">"# + notes.map { "<li>\(escape($0))</li>" }.joined() + "</ul>") }
        out.append("</section>")
        return out.joined(separator: "\n")
    }

    static func methodLine(_ s: ReportSection, label: String?) -> String {
        let prefix = label.map { "\($0): " } ?? ""
        if let why = s.notComputed { return #"<p class="missing">\#(escape(prefix + "not computed: " + why))</p>"# }
        return #"<p class="method">\#(escape(prefix + s.method))</p>"#
    }

    static func table(_ t: ReportTable, label: String) -> String {
        // The caption above the table, not in it: a wide table scrolls, its caption must not.
        var rows = ["<tr>" + t.headers.map { "<th>\(escape($0))</th>" }.joined() + "</tr>"]
        for row in t.rows { rows.append("<tr>" + row.map { "<td>\(escape($0))</td>" }.joined() + "</tr>") }
        if t.rows.isEmpty { rows.append("<tr><td colspan=\"\(t.headers.count)\">none</td></tr>") }
        return #"<p class="caption">\#(escape(label + t.caption))</p><div class="scroll"><table>"# + rows.joined() + "</table></div>"
    }

    /// Each figure of either variant, A beside B with B − A.
    static func compareTable(_ a: ReportSection, _ b: ReportSection) -> String {
        let pairs = ReportJSON.pairs(a, b)
        guard !pairs.isEmpty else { return "" }
        var rows = ["<tr><th>figure</th><th>A</th><th>B</th><th>B − A</th></tr>"]
        for (x, y) in pairs {
            let label = (x ?? y)?.label ?? ""
            let difference: String
            if let x, let y {
                let d = y.value - x.value
                difference = x.unit == .probability ? String(format: "%+.2f points", d * 100) : String(format: "%+.3f", d)
            } else {
                difference = "—"
            }
            func cell(_ f: ReportFigure?) -> String {
                guard let f else { return "<td class=\"num\">—</td>" }
                return "<td class=\"num\">\(escape(f.shown))<br><span class=\"how\">\(tag(f.method))</span></td>"
            }
            rows.append("<tr><td>\(escape(label))</td>\(cell(x))\(cell(y))<td class=\"num\">\(escape(difference))</td></tr>")
        }
        return #"<div class="scroll"><table>"# + rows.joined() + "</table></div>"
    }
}
