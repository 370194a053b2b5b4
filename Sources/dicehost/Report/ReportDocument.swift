import DiceHost
import Foundation

/// What `dicehost report` found about one rule script: sections of figures, each figure
/// with how it was obtained, written out as HTML (`ReportPage`) and JSON (`ReportJSON`).
struct ReportDocument {
    var rules: String
    var rulesFile: String
    var players: [String]
    var params: [String]
    var budget: Double
    var seconds: Double = 0
    var sections: [ReportSection] = []

    /// Whether any section has a figure: `report` exits 1 when none has.
    var reportsAnything: Bool { sections.contains { !$0.figures.isEmpty } }

    func section(_ key: ReportSection.Key) -> ReportSection? { sections.first { $0.key == key } }
}

/// How a figure was obtained.
enum ReportMethod: Equatable {
    /// From the rules by exact arithmetic: the fraction when there is one.
    case exact(fraction: String?)
    /// Solved numerically: value iteration to a tolerance, doubles within an error bound,
    /// or an equilibrium within an exploitability.
    case solved(tolerance: Double, what: String)
    /// Estimated from `games` played games, with its 95% interval.
    case sampled(lower: Double, upper: Double, games: Int)
    /// Counted (tests passed, lines, inputs tried): no uncertainty.
    case counted

    var name: String {
        switch self {
        case .exact: return "exact"
        case .solved: return "solved"
        case .sampled: return "sampled"
        case .counted: return "counted"
        }
    }
}

struct ReportFigure {
    enum Unit: String { case probability, number, count }

    /// A stable name for the JSON and for pairing two variants' figures ("win.Ann").
    var id: String
    var label: String
    var value: Double
    var unit: Unit
    var method: ReportMethod

    /// The value as shown: a probability as a percentage.
    var shown: String {
        switch unit {
        case .probability: return String(format: "%.2f%%", value * 100)
        case .number: return abs(value) >= 100 ? String(format: "%.1f", value) : String(format: "%.3f", value)
        case .count: return String(Int(value))
        }
    }

    /// How it was obtained, in words beside its tag: "244/495", "95% [48.1%, 50.2%] of 20000 games".
    var how: String {
        func format(_ v: Double) -> String {
            switch unit {
            case .probability: return String(format: "%.2f%%", v * 100)
            case .count: return String(format: "%.0f", v)
            case .number: return String(format: "%.3f", v)
            }
        }
        switch method {
        case .exact(let fraction?) where fraction.count <= 40 && fraction.contains("/"): return fraction
        case .exact: return "from the rules"
        case .solved(let tolerance, let what): return String(format: "%@ %.0e", what, tolerance)
        case .sampled(let lower, let upper, let games): return "95% [\(format(lower)), \(format(upper))] of \(games) games"
        case .counted: return ""
        }
    }
}

struct ReportChart {
    var title: String
    /// An inline SVG (no scripts, no fonts from elsewhere).
    var svg: String
}

struct ReportTable {
    var caption: String
    var headers: [String]
    var rows: [[String]]
}

struct ReportSection {
    enum Key: String, CaseIterable {
        case fairness, length, skill, decisions, drama, health
    }

    var key: Key
    /// The way this section's figures were obtained, in one line ("exact: 1,204 positions
    /// under the bots"), or why it could not be computed (`notComputed`).
    var method: String = ""
    var notComputed: String?
    var notes: [String] = []
    var figures: [ReportFigure] = []
    var charts: [ReportChart] = []
    var tables: [ReportTable] = []
    /// `--sweep`: the param and, per value, each seat's chance (and its 95% interval when sampled).
    var sweepParam: String?
    var sweepRows: [(value: Int, wins: [Double], intervals: [[Double]]?)] = []

    init(_ key: Key) { self.key = key }

    static func missing(_ key: Key, _ why: String) -> ReportSection {
        var section = ReportSection(key)
        section.notComputed = why
        return section
    }

    var title: String {
        switch key {
        case .fairness: return "1. Fairness"
        case .length: return "2. Length"
        case .skill: return "3. Skill"
        case .decisions: return "4. Decisions"
        case .drama: return "5. Drama"
        case .health: return "6. Health"
        }
    }

    var question: String {
        switch key {
        case .fairness: return "Does one seat win more often under the rules' bots?"
        case .length: return "How long does a game last?"
        case .skill: return "Does a good player beat the bots?"
        case .decisions: return "Which decisions matter?"
        case .drama: return "Does the game swing or snowball?"
        case .health: return "Did the last change break anything?"
        }
    }
}
