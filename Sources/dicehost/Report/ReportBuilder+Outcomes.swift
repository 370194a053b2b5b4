import DiceHost
import Foundation

/// Fairness and length: each seat's chance under the bots, and how long games last.
extension ReportBuilder {
    static func figure(_ id: String, _ label: String, _ value: Odds.Value, exact: Bool, errorBound: Double,
                       unit: ReportFigure.Unit = .probability) -> ReportFigure {
        let method: ReportMethod = exact ? .exact(fraction: value.exact?.description)
            : .solved(tolerance: max(errorBound, 1e-16), what: "doubles, error below")
        return ReportFigure(id: id, label: label, value: value.double, unit: unit, method: method)
    }

    func fairness() -> ReportSection {
        var section = ReportSection(.fairness)
        if let r = odds {
            section.method = r.exact ? "exact: \(r.states) positions under the bots, solved in fractions"
                : String(format: "solved: %d positions under the bots, doubles within ±%.0e", r.states, r.errorBound)
            for (seat, name) in r.players.enumerated() {
                section.figures.append(Self.figure("win.\(name)", "\(name) wins", r.wins[seat], exact: r.exact, errorBound: r.errorBound))
            }
            section.figures.append(Self.figure("draw", "draw", r.draw, exact: r.exact, errorBound: r.errorBound))
            if r.neverEnds.double > 0 {
                section.figures.append(Self.figure("never_ends", "never ends", r.neverEnds, exact: r.exact, errorBound: r.errorBound))
            }
            if r.players.count == 1 {
                section.figures.append(Self.figure("loss.\(r.players[0])", "\(r.players[0]) loses", r.losses[0], exact: r.exact, errorBound: r.errorBound))
            }
            section.charts.append(ReportChart(title: "Each seat's chance of winning",
                                              svg: ReportSVG.bars(r.players.enumerated().map { (name: $0.element, value: r.wins[$0.offset].double, interval: nil) },
                                                                  fair: r.players.count > 1 ? 1 / Double(r.players.count) : nil)))
        } else if let s = simulation {
            section.method = "sampled: \(s.games) games played by the bots (seed \(s.study.seed))"
                + (oddsWhyNot.map { "; not exact: \($0)" } ?? "")
            var bars: [(name: String, value: Double, interval: (Double, Double)?)] = []
            for (seat, name) in s.study.players.enumerated() {
                let e = Estimate.proportion(s.wins[seat], of: s.games)
                section.figures.append(ReportFigure(id: "win.\(name)", label: "\(name) wins", value: e.value, unit: .probability,
                                                    method: .sampled(lower: e.lower, upper: e.upper, games: s.games)))
                bars.append((name: name, value: e.value, interval: (e.lower, e.upper)))
            }
            let d = Estimate.proportion(s.draws, of: s.games)
            section.figures.append(ReportFigure(id: "draw", label: "draw", value: d.value, unit: .probability,
                                                method: .sampled(lower: d.lower, upper: d.upper, games: s.games)))
            section.charts.append(ReportChart(title: "Each seat's chance of winning (95% intervals)",
                                              svg: ReportSVG.bars(bars, fair: bars.count > 1 ? 1 / Double(bars.count) : nil)))
            if s.errors > 0, let f = s.firstError { section.notes.append("\(s.errors) games failed; the first (seed \(f.seed)): \(f.message)") }
        } else {
            return .missing(.fairness, oddsWhyNot.map { "not exact: \($0)" + (simulationWhyNot.map { "; not sampled: \($0)" } ?? "") }
                            ?? "no figures")
        }
        return section
    }

    func length() -> ReportSection {
        var section = ReportSection(.length)
        if let r = odds {
            section.method = r.exact ? "exact: the distributions of rolls and turns per game from the same positions"
                : "solved: doubles from the same positions"
            if let rolls = r.rolls, let turns = r.turns {
                section.figures.append(Self.figure("rolls.mean", "rolls per game, mean", rolls, exact: r.exact, errorBound: r.errorBound, unit: .number))
                section.figures.append(Self.figure("turns.mean", "turns per game, mean", turns, exact: r.exact, errorBound: r.errorBound, unit: .number))
            } else {
                section.notes.append("the expected length is infinite: the bots may never end the game")
            }
            let method: ReportMethod = r.exact ? .exact(fraction: nil) : .solved(tolerance: max(r.errorBound, 1e-16), what: "doubles, error below")
            for (name, d) in [("rolls", r.rollDistribution), ("turns", r.turnDistribution)] {
                guard let d, let p90 = d.percentile90 else { continue }
                section.figures.append(ReportFigure(id: "\(name).p90", label: "\(name) per game, 90th percentile", value: Double(p90), unit: .count, method: method))
                if d.unfinished > 1e-9 {
                    section.notes.append(String(format: "%.2g of the probability is in games longer than the %@ distribution follows", d.unfinished, name))
                }
                section.charts.append(ReportChart(title: "\(name.capitalized) per game", svg: ReportSVG.histogram(d.probability, xLabel: name, upTo: d.quantile(0.995))))
            }
            section.figures.append(Self.figure("draw", "draws", r.draw, exact: r.exact, errorBound: r.errorBound))
            section.notes.append("no move limit: exact analysis follows every game to its end")
        } else if let s = simulation {
            section.method = "sampled: \(s.games) games played by the bots, cut at \(s.study.moveLimit) moves"
            for (name, tally) in [("rolls", s.rolls), ("turns", s.turns)] where tally.count > 0 {
                let e = Estimate.mean(tally.mean, standardDeviation: tally.standardDeviation, count: tally.count)
                section.figures.append(ReportFigure(id: "\(name).mean", label: "\(name) per game, mean", value: e.value, unit: .number,
                                                    method: .sampled(lower: e.lower, upper: e.upper, games: tally.count)))
                if let p90 = tally.quantile(0.9) {
                    section.figures.append(ReportFigure(id: "\(name).p90", label: "\(name) per game, 90th percentile", value: Double(p90), unit: .count,
                                                        method: .sampled(lower: Double(tally.quantile(0.88) ?? p90), upper: Double(tally.quantile(0.92) ?? p90), games: tally.count)))
                }
                let top = tally.maximum ?? 0
                var frequency = [Double](repeating: 0, count: top + 1)
                for (value, n) in tally.counts where value >= 0 { frequency[value] += Double(n) / Double(tally.count) }
                section.charts.append(ReportChart(title: "\(name.capitalized) per game (\(tally.count) games)",
                                                  svg: ReportSVG.histogram(frequency, xLabel: name, upTo: tally.quantile(0.995))))
            }
            let d = Estimate.proportion(s.draws, of: s.games), u = Estimate.proportion(s.unfinished, of: s.games)
            section.figures.append(ReportFigure(id: "draw", label: "draws", value: d.value, unit: .probability,
                                                method: .sampled(lower: d.lower, upper: d.upper, games: s.games)))
            section.figures.append(ReportFigure(id: "cut", label: "games cut by the move limit", value: u.value, unit: .probability,
                                                method: .sampled(lower: u.lower, upper: u.upper, games: s.games)))
        } else {
            return .missing(.length, oddsWhyNot.map { "not exact: \($0)" + (simulationWhyNot.map { "; not sampled: \($0)" } ?? "") } ?? "no figures")
        }
        return section
    }

    /// `--sweep k=a..b[:step]`: each seat's chance by the param's value, as a chart (exact
    /// where each value's positions fit, else sampled with 95% intervals).
    func addSweep(_ sweep: Sweep, to section: inout ReportSection) {
        guard botsPlayTheGame else { section.notes.append("no sweep: \(noBotLine)"); return }
        var rows: [Sweep.Row] = []
        var names: [String] = []
        var methods: Set<String> = []
        let share = 0.25 / Double(max(sweep.values.count, 1))
        for value in sweep.values {
            progress("sweep \(sweep.param)=\(value)")
            let each = params.filter { $0.0 != sweep.param } + [(sweep.param, String(value))]
            var options = Odds.Options()
            options.players = players
            options.params = each
            options.maxStates = max(200, Int(rate * left * share))
            options.exactStateLimit = 20_000
            if let r = try? Odds.analyse(rulesFile: rulesFile, options: options) {
                names = r.players
                rows.append(Sweep.Row(value: value, wins: r.wins.map(\.double), length: r.rolls?.double))
                methods.insert(r.exact ? "exact" : "solved")
                continue
            }
            var plan = Simulation.Plan(rulesFile: rulesFile, players: players, games: 400, seed: seed)
            plan.params = each
            plan.moveLimit = 5_000
            guard let s = try? Simulation.run(plan) else {
                section.notes.append("sweep: \(sweep.param)=\(value) could not be played (a bad value?)")
                continue
            }
            names = s.study.players
            let estimates = s.wins.map { Estimate.proportion($0, of: s.games) }
            rows.append(Sweep.Row(value: value, wins: estimates.map(\.value), length: s.rolls.count > 0 ? s.rolls.mean : nil,
                                  intervals: estimates.map { ($0.lower, $0.upper) }))
            methods.insert("sampled (\(s.games) games each)")
        }
        guard !rows.isEmpty else { return }
        let svg = Sweep.svg(rows, players: names, param: sweep.param, title: "win chance by \(sweep.param)")
        section.charts.append(ReportChart(title: "Each seat's chance by \(sweep.param) (\(methods.sorted().joined(separator: ", ")))",
                                          svg: ReportSVG.inline(svg)))
        section.tables.append(ReportTable(caption: "By \(sweep.param)", headers: [sweep.param] + names + ["rolls"],
                                          rows: rows.map { row in
                                              [String(row.value) + (Sweep.fairest(rows).map { rows[$0].value == row.value } == true ? " (fairest)" : "")]
                                                  + row.wins.map { String(format: "%.2f%%", $0 * 100) }
                                                  + [row.length.map { String(format: "%.2f", $0) } ?? "-"]
                                          }))
        section.sweepParam = sweep.param
        section.sweepRows = rows.map { row in (row.value, row.wins, row.intervals.map { $0.map { [$0.lower, $0.upper] } }) }
    }
}
