/// 95% confidence intervals for what simulations estimate.
public struct Estimate: Codable, Equatable, Sendable {
    public var value: Double
    public var lower: Double
    public var upper: Double

    /// z for a two-sided 95% interval.
    public static let z95 = 1.959963984540054

    /// A proportion `successes / trials` with its Wilson score interval (sound near 0 and 1).
    public static func proportion(_ successes: Int, of trials: Int) -> Estimate {
        guard trials > 0 else { return Estimate(value: 0, lower: 0, upper: 1) }
        let n = Double(trials), p = Double(successes) / n, z = z95
        let denominator = 1 + z * z / n
        let centre = (p + z * z / (2 * n)) / denominator
        let half = z * (p * (1 - p) / n + z * z / (4 * n * n)).squareRoot() / denominator
        return Estimate(value: p, lower: max(0, centre - half), upper: min(1, centre + half))
    }

    /// A mean with its normal-approximation interval.
    public static func mean(_ mean: Double, standardDeviation: Double, count: Int) -> Estimate {
        let half = count > 0 ? z95 * standardDeviation / Double(count).squareRoot() : .infinity
        return Estimate(value: mean, lower: mean - half, upper: mean + half)
    }

    /// `b - a` for two independent proportions, with its (Wald) interval.
    public static func difference(_ a: (successes: Int, trials: Int), _ b: (successes: Int, trials: Int)) -> Estimate {
        guard a.trials > 0, b.trials > 0 else { return Estimate(value: 0, lower: -1, upper: 1) }
        let p = Double(a.successes) / Double(a.trials), q = Double(b.successes) / Double(b.trials)
        let se = (p * (1 - p) / Double(a.trials) + q * (1 - q) / Double(b.trials)).squareRoot()
        return Estimate(value: q - p, lower: q - p - z95 * se, upper: q - p + z95 * se)
    }

    /// `b - a` for the means of two independent samples (Welch).
    public static func difference(_ a: IntegerTally, _ b: IntegerTally) -> Estimate {
        let na = Double(a.count), nb = Double(b.count)
        guard na > 0, nb > 0 else { return Estimate(value: 0, lower: -.infinity, upper: .infinity) }
        let d = b.mean - a.mean
        let se = (a.standardDeviation * a.standardDeviation / na + b.standardDeviation * b.standardDeviation / nb).squareRoot()
        return Estimate(value: d, lower: d - z95 * se, upper: d + z95 * se)
    }

    public func contains(_ x: Double) -> Bool { lower <= x && x <= upper }
    /// A difference is significant (at 5%) when its interval leaves out zero.
    public var isSignificant: Bool { !contains(0) }
}

extension SimulationResult {
    /// The win rate of each seat, in seat order.
    public var winRates: [Estimate] { wins.map { Estimate.proportion($0, of: games) } }
    public var drawRate: Estimate { Estimate.proportion(draws, of: games) }
    public var meanRolls: Estimate { Estimate.mean(rolls.mean, standardDeviation: rolls.standardDeviation, count: rolls.count) }
    public var meanTurns: Estimate { Estimate.mean(turns.mean, standardDeviation: turns.standardDeviation, count: turns.count) }
    public var gamesPerSecond: Double { seconds > 0 ? Double(games) / seconds : 0 }
}
