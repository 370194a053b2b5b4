import DiceHost
import Foundation

/// How `dicehost sim` shows a result: a plain-text report for people, JSON for tools
/// (and for `sim merge`, which reads the `result` member back).
enum SimReport {
    // MARK: Text

    static func text(_ r: SimulationResult) -> String {
        var lines = [header(r)]
        if let warning = unfinishedWarning(r) { lines.append(warning) }
        lines.append(row("outcome", "games", "rate", "95% CI"))
        for (seat, name) in r.study.players.enumerated() {
            lines.append(rateRow("\(name) wins", r.wins[seat], r.winRates[seat]))
        }
        // A lone player's loss counts where a draw would: neither is a win.
        lines.append(rateRow(r.study.players.count == 1 ? "losses/draws" : "draws", r.draws, r.drawRate))
        lines += problems(r)
        lines.append("")
        lines.append(lengthLine("rolls", r.rolls, r.meanRolls))
        lines.append(lengthLine("turns", r.turns, r.meanTurns))
        lines += histogram(r.rolls, unit: "rolls")
        lines += metricLines(r)
        lines += errorLines(r)
        return lines.joined(separator: "\n")
    }

    static func text(_ a: SimulationResult, comparedWith b: SimulationResult) -> String {
        var lines = ["A: " + header(a), "B: " + header(b), ""]
        lines.append(pad("", 14) + pad("A", 26) + pad("B", 26) + "B - A (95% CI)")
        func compareRow(_ title: String, _ x: (Int, Int), _ y: (Int, Int)) {
            let ea = Estimate.proportion(x.0, of: x.1), eb = Estimate.proportion(y.0, of: y.1)
            let d = Estimate.difference((x.0, x.1), (y.0, y.1))
            lines.append(pad(title, 14) + pad(percentWithCI(ea), 26) + pad(percentWithCI(eb), 26)
                         + signed(d.value * 100, "%+.2f pts") + " [" + signed(d.lower * 100, "%+.2f") + ", " + signed(d.upper * 100, "%+.2f") + "] "
                         + verdict(d))
        }
        for (seat, name) in a.study.players.enumerated() where seat < b.wins.count {
            compareRow("\(name) wins", (a.wins[seat], a.games), (b.wins[seat], b.games))
        }
        compareRow("draws", (a.draws, a.games), (b.draws, b.games))
        let d = Estimate.difference(a.rolls, b.rolls)
        lines.append(pad("mean rolls", 14) + pad(meanWithCI(a.meanRolls), 26) + pad(meanWithCI(b.meanRolls), 26)
                     + signed(d.value, "%+.3f") + " [" + signed(d.lower, "%+.3f") + ", " + signed(d.upper, "%+.3f") + "] " + verdict(d))
        let t = Estimate.difference(a.turns, b.turns)
        lines.append(pad("mean turns", 14) + pad(meanWithCI(a.meanTurns), 26) + pad(meanWithCI(b.meanTurns), 26)
                     + signed(t.value, "%+.3f") + " [" + signed(t.lower, "%+.3f") + ", " + signed(t.upper, "%+.3f") + "] " + verdict(t))
        for (label, r) in [("A", a), ("B", b)] {
            let extra = (unfinishedWarning(r).map { [$0] } ?? []) + problems(r) + errorLines(r)
            if !extra.isEmpty { lines += ["", "\(label):"] + extra }
        }
        return lines.joined(separator: "\n")
    }

    static func header(_ r: SimulationResult) -> String {
        let covered = r.ranges.count == 1 && r.ranges[0] == [0, r.study.games] ? "" : " (games \(r.ranges.map { "\($0[0])..<\($0[1])" }.joined(separator: ", ")) of \(r.study.games))"
        let params = r.study.params.isEmpty ? "" : ", " + r.study.params.joined(separator: " ")
        return "\(r.study.rules) (\(r.study.rulesFile)\(params)): \(r.games) games\(covered), seed \(r.study.seed), players \(r.study.players.joined(separator: ", ")); "
            + String(format: "%.2f s, %.0f games/s", r.seconds, r.gamesPerSecond)
    }

    /// When most games did not end, the numbers describe nothing: say so, with the fix.
    static func unfinishedWarning(_ r: SimulationResult) -> String? {
        guard r.games > 0, r.unfinished * 2 > r.games else { return nil }
        return "WARNING: \(percent(Double(r.unfinished) / Double(r.games))) of the games (\(r.unfinished) of \(r.games)) did not end within "
            + "\(r.study.moveLimit) moves, so the rates below describe almost nothing. Give the game an end the bots reach "
            + "(a finite param such as --set rounds=1, if the rules have one), or stop sooner with a smaller --move-limit."
    }

    static func problems(_ r: SimulationResult) -> [String] {
        var lines: [String] = []
        if r.errors > 0 { lines.append(row("rule errors", "\(r.errors)", percent(Double(r.errors) / Double(max(r.games, 1))), "")) }
        if r.unfinished > 0 {
            lines.append(row("unfinished", "\(r.unfinished)", percent(Double(r.unfinished) / Double(max(r.games, 1))), "(no outcome after \(r.study.moveLimit) moves)"))
        }
        return lines
    }

    static func lengthLine(_ unit: String, _ tally: IntegerTally, _ mean: Estimate) -> String {
        guard let median = tally.median, let low = tally.minimum, let high = tally.maximum else { return "\(unit) per game: no finished games" }
        return String(format: "%@ per game: mean %.3f [%.3f, %.3f], median %d, min %d, max %d", unit, mean.value, mean.lower, mean.upper, median, low, high)
    }

    /// Up to ten bars of equal width over the range that holds 99% of the games.
    static func histogram(_ tally: IntegerTally, unit: String) -> [String] {
        guard let low = tally.minimum, let top = tally.quantile(0.99), tally.count > 0 else { return [] }
        let span = top - low + 1
        let width = max(1, (span + 9) / 10)
        let binCount = (span + width - 1) / width
        var bins = Array(repeating: 0, count: binCount + 1)
        for (value, c) in tally.counts { bins[min((value - low) / width, binCount)] += c }
        if bins[binCount] == 0 { bins.removeLast() }
        let most = bins.max() ?? 1
        return ["\(unit) per game:"] + bins.enumerated().map { i, c in
            let from = low + i * width, to = from + width - 1
            let label = i == binCount ? "\(from)+" : (width == 1 ? "\(from)" : "\(from)-\(to)")
            let bar = String(repeating: "█", count: Int((Double(c) / Double(most) * 40).rounded()))
            return "  " + pad(label, 8) + pad(percent(Double(c) / Double(tally.count)), 8) + bar
        }
    }

    static func metricLines(_ r: SimulationResult) -> [String] {
        guard !r.metrics.isEmpty else { return [] }
        var lines = ["", "metrics (g:record)   times    games   mean per record [95% CI]        mean per game"]
        for (name, m) in r.metrics.sorted(by: { $0.key < $1.key }) {
            let e = metricEstimate(m)
            let interval = String(format: "%.4g [%.4g, %.4g]", e.value, e.lower, e.upper)
            lines.append("  " + pad(name, 18) + pad("\(m.count)", 9) + pad("\(m.games)", 8)
                         + pad(interval, 32) + String(format: "%.4g", m.sum / Double(max(r.games, 1))))
        }
        return lines
    }

    /// The mean of a metric's records with its 95% interval (normal, from the sums).
    static func metricEstimate(_ m: MetricTally) -> Estimate {
        let n = Double(max(m.count, 1))
        let mean = m.sum / n
        let variance = m.count > 1 ? max(0, (m.sumOfSquares - m.sum * m.sum / n) / (n - 1)) : 0
        return Estimate.mean(mean, standardDeviation: variance.squareRoot(), count: m.count)
    }

    static func errorLines(_ r: SimulationResult) -> [String] {
        guard let e = r.firstError else { return [] }
        var replay = "dicehost play \(r.study.rulesFile) --seed \(e.seed) --players \(r.study.players.joined(separator: ",")) --auto"
        for p in r.study.params { replay += " --set \(p)" }
        return ["", "first rule error: game \(e.index) (seed \(e.seed)):", "  " + e.message.replacingOccurrences(of: "\n", with: "\n  "),
                "  replay it: \(replay)"]
    }

    static func rateRow(_ title: String, _ count: Int, _ e: Estimate) -> String {
        row(title, "\(count)", percent(e.value), "[\(percent(e.lower)), \(percent(e.upper))]")
    }
    static func row(_ a: String, _ b: String, _ c: String, _ d: String) -> String {
        "  " + pad(a, 14) + String(repeating: " ", count: max(0, 9 - b.count)) + b + String(repeating: " ", count: max(0, 10 - c.count)) + c + "   " + d
    }
    static func percent(_ x: Double) -> String { String(format: "%.2f%%", x * 100) }
    static func percentWithCI(_ e: Estimate) -> String { "\(percent(e.value)) [\(percent(e.lower)), \(percent(e.upper))]" }
    static func meanWithCI(_ e: Estimate) -> String { String(format: "%.3f [%.3f, %.3f]", e.value, e.lower, e.upper) }
    static func signed(_ x: Double, _ format: String) -> String { String(format: format, x) }
    static func verdict(_ d: Estimate) -> String { d.isSignificant ? "significant" : "not significant" }
    static func pad(_ s: String, _ width: Int) -> String { s + String(repeating: " ", count: max(1, width - s.count)) }

    // MARK: JSON

    /// What `--json` prints: the mergeable result and the estimates derived from it.
    struct Document: Codable {
        var result: SimulationResult
        var summary: Summary?
    }
    struct Summary: Codable {
        var winRates: [String: Estimate]
        var drawRate: Estimate
        var meanRolls: Estimate
        var meanTurns: Estimate
        var medianRolls: Int?
        var gamesPerSecond: Double
        /// Each `g:record` metric's mean per record with its 95% interval.
        var metricMeans: [String: Estimate]?
        init(_ r: SimulationResult) {
            metricMeans = r.metrics.isEmpty ? nil : r.metrics.mapValues(SimReport.metricEstimate)
            winRates = Dictionary(uniqueKeysWithValues: zip(r.study.players, r.winRates))
            drawRate = r.drawRate
            meanRolls = r.meanRolls
            meanTurns = r.meanTurns
            medianRolls = r.rolls.median
            gamesPerSecond = r.gamesPerSecond
        }
    }
    struct Comparison: Codable {
        var a: Document
        var b: Document
        var winRateDifferences: [String: Estimate]
        var drawRateDifference: Estimate
        var meanRollsDifference: Estimate
    }

    static func json(_ r: SimulationResult) -> String { encode(Document(result: r, summary: Summary(r))) }

    static func json(_ a: SimulationResult, comparedWith b: SimulationResult) -> String {
        var differences: [String: Estimate] = [:]
        for (seat, name) in a.study.players.enumerated() where seat < b.wins.count {
            differences[name] = Estimate.difference((a.wins[seat], a.games), (b.wins[seat], b.games))
        }
        return encode(Comparison(a: Document(result: a, summary: Summary(a)), b: Document(result: b, summary: Summary(b)),
                                 winRateDifferences: differences,
                                 drawRateDifference: Estimate.difference((a.draws, a.games), (b.draws, b.games)),
                                 meanRollsDifference: Estimate.difference(a.rolls, b.rolls)))
    }

    /// A Codable document (the schema `sim merge` decodes) as indented JSON: Foundation
    /// turns it into a `JSONValue` tree (a non-finite number as "inf", "-inf" or "nan",
    /// which `sim merge` reads back), and the package's one writer writes it.
    static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        guard let data = try? encoder.encode(value), let tree = try? JSONDecoder().decode(JSONValue.self, from: data) else { return "{}" }
        return JSONText.pretty(tree)
    }

    struct ReadError: Error, CustomStringConvertible { let description: String }

    /// The bytes of a result file: a regular file of at most `SimulationResult.maxJSONBytes`.
    static func read(_ path: String) throws -> Data {
        var info = stat()
        guard stat(path, &info) == 0 else { throw ReadError(description: "cannot read the file: \(String(cString: strerror(errno)))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw ReadError(description: "cannot read the file: it is not a regular file") }
        guard info.st_size <= SimulationResult.maxJSONBytes else {
            throw ReadError(description: "the file is larger than \(SimulationResult.maxJSONBytes >> 20) MiB")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw ReadError(description: "cannot read the file") }
        return data
    }

    static func describe(_ error: Error) -> String { "\(error)" }
}
