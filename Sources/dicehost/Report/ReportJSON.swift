import Foundation

/// The report's figures as JSON (`--json FILE`): the same figures as the page, each with
/// how it was obtained. The schema is in docs/report.md.
enum ReportJSON {
    static let format = "dicehost-report/1"

    /// A number JSON can hold (an infinite interval of an empty sample is null).
    static func number(_ d: Double) -> Any { d.isFinite ? d : NSNull() }

    static func method(_ m: ReportMethod) -> [String: Any] {
        switch m {
        case .exact(let fraction):
            var o: [String: Any] = ["kind": "exact"]
            if let fraction { o["fraction"] = fraction }
            return o
        case .solved(let tolerance, let what): return ["kind": "solved", "tolerance": number(tolerance), "by": what]
        case .sampled(let lower, let upper, let games): return ["kind": "sampled", "lower": number(lower), "upper": number(upper), "games": games]
        case .counted: return ["kind": "counted"]
        }
    }

    static func figure(_ f: ReportFigure) -> [String: Any] {
        ["id": f.id, "label": f.label, "value": number(f.value), "unit": f.unit.rawValue, "method": method(f.method)]
    }

    static func section(_ s: ReportSection) -> [String: Any] {
        var o: [String: Any] = ["title": s.title, "computed": s.notComputed == nil, "figures": s.figures.map(figure), "notes": s.notes,
                                "charts": s.charts.map(\.title),
                                "tables": s.tables.map { ["caption": $0.caption, "headers": $0.headers, "rows": $0.rows] as [String: Any] }]
        if let why = s.notComputed { o["why_not"] = why } else { o["method"] = s.method }
        if let param = s.sweepParam {
            o["sweep"] = ["param": param, "rows": s.sweepRows.map { row -> [String: Any] in
                var r: [String: Any] = ["value": row.value, "wins": row.wins.map(number)]
                if let intervals = row.intervals { r["intervals"] = intervals }
                return r
            }] as [String: Any]
        }
        return o
    }

    static func document(_ d: ReportDocument) -> [String: Any] {
        ["rules": d.rules, "rules_file": d.rulesFile, "players": d.players, "params": d.params, "budget_seconds": d.budget,
         "seconds": d.seconds, "reports_anything": d.reportsAnything,
         "sections": Dictionary(uniqueKeysWithValues: d.sections.map { ($0.key.rawValue, section($0)) })]
    }

    /// The figures of two variants' sections by id, in A's order then B's own.
    static func pairs(_ a: ReportSection, _ b: ReportSection) -> [(ReportFigure?, ReportFigure?)] {
        var out: [(ReportFigure?, ReportFigure?)] = a.figures.map { f in (f, b.figures.first { $0.id == f.id }) }
        for f in b.figures where !a.figures.contains(where: { $0.id == f.id }) { out.append((nil, f)) }
        return out
    }

    static func json(_ a: ReportDocument, comparedWith b: ReportDocument? = nil) -> String {
        var top: [String: Any] = ["format": format, "report": document(a)]
        if let b {
            top["compare"] = document(b)
            var differences: [[String: Any]] = []
            for key in ReportSection.Key.allCases {
                guard let x = a.section(key), let y = b.section(key) else { continue }
                for case let (f?, g?) in pairs(x, y) {
                    differences.append(["section": key.rawValue, "id": f.id, "a": number(f.value), "b": number(g.value), "difference": number(g.value - f.value)])
                }
            }
            top["differences"] = differences
        }
        return JSONText.pretty(top) + "\n"
    }
}
