import ArgumentParser
import BigInt
import DiceHost
import Foundation

extension DiceHostCommand {
    struct Dice: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The exact distribution of a dice expression, e.g. 3d6, 4d6kh3, 2d20kl1, 1d6!, 2d6+1.",
            discussion: """
                Prints every total with its probability as a fraction and a decimal, the chance of
                at least and at most that total, the mean, the standard deviation and a bar chart.
                Exploding dice are followed to --depth extra rolls per die (by default enough to
                leave out less than 1e-12 of the mass; the runtime stops at 100) and the mass left
                out is reported; 'at least' counts it as above every total shown (exact for one
                die, an upper bound by at most that mass for several). The work is limited to
                2x10^8 steps on exact counts (a few seconds): 100d1000 fits, while 100d1000kh99 or
                100d6! at depth 100 are refused with the estimate.

                Output sizes: the table shows a fraction when it fits in 40 characters, else
                its decimal. --json gives decimal probabilities only, as parallel arrays (version 2;
                about 60 bytes per total: 100d1000, 99,901 totals, is about 6 MB). --exact adds every count and every
                reduced fraction as exact decimal strings, whose digits grow with the number of
                dice: 3d6 is a few kB, but 100d1000 has fractions of ~600 digits, about 95 MB of
                JSON, and reducing them costs more time than computing the distribution.
                """
        )

        @Argument(help: "Dice notation: NdS, then optionally ! (explode), khK/klK/dhK/dlK, +K/-K.")
        var notation: String

        @Option(help: "Extra rolls each exploding die is followed to (0...100).")
        var depth: Int?

        @Flag(help: "Print the distribution as JSON with decimal probabilities: parallel arrays of totals and probabilities, version 2 (about 60 bytes per total).")
        var json = false

        @Flag(help: "Exact fractions in full: every one in the table; with --json, each count, fraction and the denominator as exact decimal strings (large: 100d1000 is about 95 MB).")
        var exact = false

        func run() throws {
            let distribution: DiceDistribution
            do {
                distribution = try DiceDistribution(DiceNotation(notation), depth: depth)
            } catch {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            }
            print(json ? DiceReport.json(distribution, exact: exact) : DiceReport.text(distribution, exact: exact))
        }
    }
}

/// How `dicehost dice` shows a distribution.
enum DiceReport {
    struct Row {
        var total: Int
        var count: BigUInt
        /// Nil when longer than the text report shows (`fractionLimit`).
        var fraction: String?
        var probability: Double
        var atLeast: Double
        var atMost: Double
    }

    /// a/b as a Double from the top 64 bits of each: a division of numbers of thousands
    /// of bits per row cost more than the distribution itself (small ones stay exact).
    static func ratio(_ a: BigUInt, _ b: BigUInt) -> Double {
        guard a.bitWidth > 128 || b.bitWidth > 128, !a.isZero, !b.isZero else { return DiceDistribution.ratio(a, b) }
        func top(_ x: BigUInt) -> (Double, Int) {
            let shift = max(0, x.bitWidth - 64)
            return (Double(UInt64(x >> shift)), shift)
        }
        let (x, ex) = top(a), (y, ey) = top(b)
        return (x / y) * pow(2.0, Double(ex - ey))
    }

    /// The fraction as shown: reduced, or nil when it would be longer than `limit`
    /// characters (numbers of hundreds of digits are not worth converting to text).
    static func fraction(_ d: DiceDistribution, _ count: BigUInt, limit: Int?) -> String? {
        let (numerator, denominator) = d.reduced(count)
        if numerator.isZero { return "0" }
        if let limit, Double(numerator.bitWidth + denominator.bitWidth - 2) * 0.30103 > Double(limit) { return nil }
        let text = "\(numerator)/\(denominator)"
        return limit.map { text.count <= $0 ? text : nil } ?? text
    }

    /// `fractions: false` leaves every fraction out (nil): reducing counts of hundreds of
    /// digits is most of the work for big expressions.
    static func rows(_ d: DiceDistribution, fractions: Bool = true, fractionLimit: Int? = nil) -> [Row] {
        var rows: [Row] = []
        var below = BigUInt(0)
        // The mass a --depth left out is of longer chains, which reach past every total a
        // shorter one shows: "at least" counts it (exact for one die; for several, an upper
        // bound by at most that mass), so "at least" and "at most" still add up to one.
        let all = d.denominator
        for outcome in d.outcomes {
            let atMost = below + outcome.count
            rows.append(Row(total: outcome.total, count: outcome.count, fraction: fractions ? fraction(d, outcome.count, limit: fractionLimit) : nil,
                            probability: ratio(outcome.count, d.denominator),
                            atLeast: ratio(all - below, d.denominator),
                            atMost: ratio(atMost, d.denominator)))
            below = atMost
        }
        return rows
    }

    static func summary(_ d: DiceDistribution) -> String {
        var line = "\(d.notation.text): \(d.outcomes.count) totals, mean \(format(d.mean)), sd \(format(d.standardDeviation))"
        if let depth = d.depth {
            line += d.leftOut.isZero ? ", exploding to the runtime's cap (\(depth) extra rolls): exact"
                : ", exploding to depth \(depth): mass left out \(String(format: "%.3g", d.leftOutProbability)) (\(d.fraction(d.leftOut))); "
                    + "'at least' counts it as above every total shown"
        }
        return line
    }

    static func text(_ d: DiceDistribution, exact: Bool = false) -> String {
        let rows = rows(d, fractionLimit: exact ? nil : 40)
        let fractionWidth = max(rows.map { $0.fraction?.count ?? 12 }.max() ?? 11, 11)
        let totalWidth = max(rows.map { String($0.total).count }.max() ?? 5, 5)
        let top = rows.map(\.probability).max() ?? 1
        var lines = [summary(d), ""]
        lines.append(pad("total", totalWidth, left: true) + "  " + pad("probability", fractionWidth) + "  "
                     + pad("decimal", 10) + "  " + pad("at least", 10) + "  " + pad("at most", 10))
        for row in rows {
            let fraction = row.fraction ?? String(format: "%.6e", row.probability)
            lines.append(pad(String(row.total), totalWidth, left: true) + "  " + pad(fraction, fractionWidth) + "  "
                         + pad(decimal(row.probability), 10) + "  " + pad(decimal(row.atLeast), 10) + "  "
                         + pad(decimal(row.atMost), 10) + "  " + bar(row.probability / top, width: 40))
        }
        return lines.joined(separator: "\n")
    }

    /// The version of `json`'s form. 2: `outcomes` is an object of parallel arrays
    /// (`total[i]` has `probability[i]`, `at_least[i]` and `at_most[i]`), not an array of
    /// one object per total: the same numbers without four keys repeated per total.
    static let jsonVersion = 2

    /// Decimal probabilities (each the shortest text that reads back as the same double);
    /// with `exact`, each count and reduced fraction, the denominator and the count left
    /// out as exact decimal strings too (their digits grow with the number of dice:
    /// 100d1000's make about 95 MB).
    static func json(_ d: DiceDistribution, exact: Bool = false) -> String {
        let rows = rows(d, fractions: exact)
        var out: [UInt8] = []
        out.reserveCapacity(64 + rows.count * (exact ? 160 : 64))
        func key(_ name: String) {
            if out.last != UInt8(ascii: "{") { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "\"\(name)\":".utf8)
        }
        func text(_ value: String) { out.append(contentsOf: JSONValue.string(value).description.utf8) }
        func number(_ value: Double) { out.append(contentsOf: (value.isFinite ? value.description : "null").utf8) }
        func array<T>(_ name: String, _ values: [T], _ write: (T) -> Void) {
            key(name)
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(value)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "{"))
        key("version"); out.append(contentsOf: String(jsonVersion).utf8)
        key("notation"); text(d.notation.text)
        key("mean"); number(d.mean)
        key("sd"); number(d.standardDeviation)
        key("left_out"); number(d.leftOutProbability)
        if let depth = d.depth { key("depth"); out.append(contentsOf: String(depth).utf8) }
        if exact {
            key("denominator"); text(String(d.denominator))
            key("left_out_count"); text(String(d.leftOut))
        }
        key("outcomes")
        out.append(UInt8(ascii: "{"))
        array("total", rows) { out.append(contentsOf: String($0.total).utf8) }
        array("probability", rows) { number($0.probability) }
        array("at_least", rows) { number($0.atLeast) }
        array("at_most", rows) { number($0.atMost) }
        if exact {
            array("count", rows) { text(String($0.count)) }
            array("fraction", rows) { text($0.fraction ?? "") }
        }
        out.append(contentsOf: "}}".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    static func decimal(_ p: Double) -> String {
        p != 0 && p < 0.000_001 ? String(format: "%.3e", p) : String(format: "%.6f", p)
    }

    static func format(_ x: Double) -> String { String(format: "%.4f", x) }

    static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let gap = String(repeating: " ", count: max(0, width - text.count))
        return left ? gap + text : text + gap
    }

    /// A horizontal bar `share` of `width` cells, in eighths.
    static func bar(_ share: Double, width: Int) -> String {
        let eighths = Int((max(0, min(1, share)) * Double(width * 8)).rounded())
        let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8]
        return String(repeating: "█", count: eighths / 8) + partial
    }
}
