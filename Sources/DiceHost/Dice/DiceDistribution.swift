import Foundation
import BigInt

/// The exact distribution of a dice expression: every total the notation can show and
/// how many of the equally likely ways to roll give it (out of `denominator`).
///
///     let d = try DiceDistribution(DiceNotation("4d6kh3"))
///     d.probability(of: 18)        // 21/1296 as (count, denominator)
///     d.mean                       // 12.2446…
///
/// Keep-highest/lowest is a dynamic program over the die's faces from the best down
/// (how many dice are placed so far, the sum of those kept), so `20d6kh3` costs a few
/// thousand steps, not 6^20. Exploding dice explode to `depth` extra rolls per die;
/// the mass of longer chains is `leftOut` (none once `depth` reaches the runtime's cap
/// of `HostLimits.explosionsPerDie`, where the distribution is exactly what rolls do).
public struct DiceDistribution: Sendable {
    public struct Outcome: Sendable, Equatable {
        public var total: Int
        /// Ways to roll this total, out of the distribution's `denominator`.
        public var count: BigUInt
    }

    public let notation: DiceNotation
    /// Totals in ascending order, each with its count (totals that cannot occur are left out).
    public let outcomes: [Outcome]
    /// Equally likely elementary outcomes: sides^count, or sides^(count × (depth + 1)) when exploding.
    public let denominator: BigUInt
    /// Extra rolls each exploding die was followed to (nil: the dice do not explode).
    public let depth: Int?

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case tooMuchWork(notation: String, estimate: Int, limit: Int)
        case badDepth(Int)
        public var description: String {
            switch self {
            case .tooMuchWork(let notation, let estimate, let limit):
                // Each step adds exact counts of hundreds of digits (sides^dice ways), so
                // the limit keeps the command within seconds.
                return "the distribution of '\(DiceNotation.shortened(notation))' needs about \(estimate) steps, more than the \(limit) allowed "
                    + "(a few seconds' work on exact counts): try fewer dice or sides, a smaller keep count or --depth, "
                    + "or estimate it with `dicehost sim` or dice.roll"
            case .badDepth(let depth):
                return "the explosion depth must be 0..\(HostLimits.explosionsPerDie), got \(depth)"
            }
        }
    }

    /// Steps `dicehost dice` allows (a few seconds at most).
    public static let commandWorkLimit = 200_000_000
    /// Steps a rule script's `dice.distribution` allows (each is also charged to the input's budget).
    public static let scriptWorkLimit = 2_000_000

    /// The smallest depth that leaves out less than 1e-12 of the mass (capped at the runtime's).
    public static func defaultDepth(sides: Int) -> Int {
        var depth = 0
        var left = 1.0 / Double(sides)
        while left >= 1e-12 && depth < HostLimits.explosionsPerDie {
            depth += 1
            left /= Double(sides)
        }
        return depth
    }

    /// Computes the distribution, refusing beforehand when `workEstimate` passes `workLimit`.
    public init(_ notation: DiceNotation, depth requested: Int? = nil, workLimit: Int = commandWorkLimit) throws {
        self.notation = notation
        var depth: Int? = nil
        if notation.exploding {
            let d = requested ?? Self.defaultDepth(sides: notation.sides)
            guard (0...HostLimits.explosionsPerDie).contains(d) else { throw Problem.badDepth(d) }
            depth = d
        }
        self.depth = depth
        let estimate = Self.workEstimate(notation, depth: depth)
        guard estimate <= workLimit else {
            throw Problem.tooMuchWork(notation: notation.text, estimate: estimate, limit: workLimit)
        }
        let die = Self.singleDie(sides: notation.sides, depth: depth)
        denominator = die.denominator.power(notation.count)
        let totals: [Int: BigUInt]
        switch notation.keep {
        case .all: totals = Self.sum(of: die.faces, count: notation.count)
        case .highest(let k): totals = Self.keep(k, of: notation.count, faces: die.faces.reversed())
        case .lowest(let k): totals = Self.keep(k, of: notation.count, faces: die.faces)
        }
        outcomes = totals.filter { !$0.value.isZero }.map { Outcome(total: $0.key + notation.modifier, count: $0.value) }
            .sorted { $0.total < $1.total }
    }

    /// A rough count of the big-number steps the computation takes, to refuse what
    /// would take too long before starting it.
    public static func workEstimate(_ notation: DiceNotation, depth: Int?) -> Int {
        let faces = notation.exploding ? (min(depth ?? 0, HostLimits.explosionsPerDie) + 1) * notation.sides : notation.sides
        let n = notation.count
        switch notation.keep {
        case .all where !notation.exploding:
            // A plain die: each of n dice is a window sum over a table up to n × sides
            // wide, two big additions per entry (see `sum`).
            let (a, o1) = n.multipliedReportingOverflow(by: n)
            let (b, o2) = a.multipliedReportingOverflow(by: max(faces, 1))
            return o1 || o2 ? Int.max : b + n
        case .all:
            // n convolutions of a growing table (up to n × top face wide) with `faces` entries.
            return n.multipliedReportingOverflow(by: n).partialValue.multipliedReportingOverflow(by: faces).partialValue
                .multipliedReportingOverflow(by: max(faces, 1)).partialValue / 2 + n
        case .highest(let k), .lowest(let k):
            // faces × dice placed (< k) × kept sums (≤ k × top face) × dice on this face (≤ n).
            let sums = k.multipliedReportingOverflow(by: faces).partialValue + 1
            let (a, o1) = faces.multipliedReportingOverflow(by: k)
            let (b, o2) = a.multipliedReportingOverflow(by: sums)
            let (c, o3) = b.multipliedReportingOverflow(by: n + 1)
            return o1 || o2 || o3 ? Int.max : c
        }
    }

    /// One die's faces (value and count, ascending) out of its denominator.
    static func singleDie(sides: Int, depth: Int?) -> (faces: [(value: Int, count: BigUInt)], denominator: BigUInt) {
        guard let depth else { return ((1...sides).map { ($0, BigUInt(1)) }, BigUInt(sides)) }
        // k explosions then a face below `sides`: value k×sides + f, probability sides^-(k+1).
        // At the runtime's cap the last roll stands whatever it shows.
        let rolls = depth + 1
        let denominator = BigUInt(sides).power(rolls)
        var faces: [(value: Int, count: BigUInt)] = []
        for k in 0...depth {
            let weight = BigUInt(sides).power(rolls - (k + 1))
            let last = k == HostLimits.explosionsPerDie ? sides : sides - 1
            for f in 1...last { faces.append((k * sides + f, weight)) }
        }
        return (faces, denominator)
    }

    /// The sum of `count` dice: repeated convolution.
    static func sum(of faces: [(value: Int, count: BigUInt)], count: Int) -> [Int: BigUInt] {
        guard let low = faces.first?.value, let high = faces.last?.value else { return [:] }
        var table: [BigUInt] = [1]  // index: total - offset
        var offset = 0
        // A plain die (faces low...high, one way each): each new total is a window sum of
        // the old table, two additions per entry with prefix sums, whatever the sides.
        if faces.count == high - low + 1, faces.allSatisfy({ $0.count == 1 }) {
            return plainSum(width: faces.count, low: low, count: count)
        }
        for _ in 0..<count {
            var next = [BigUInt](repeating: 0, count: table.count + high - low)
            for (i, ways) in table.enumerated() where !ways.isZero {
                for face in faces {
                    next[i + face.value - low] += face.count == 1 ? ways : ways * face.count
                }
            }
            table = next
            offset += low
        }
        var result: [Int: BigUInt] = [:]
        for (i, ways) in table.enumerated() where !ways.isZero { result[i + offset] = ways }
        return result
    }

    /// The sum of `count` plain dice (faces low..<low+width, one way each), the counts
    /// kept in fixed-width 64-bit words in one flat table: a BigUInt per entry, allocated
    /// again at every step, made 100d1000 (10^7 additions) take minutes.
    static func plainSum(width: Int, low: Int, count: Int) -> [Int: BigUInt] {
        // Every count is at most width^count: that many bits.
        func wordsFor(dice: Int) -> Int { Int((Double(dice) * log2(Double(width))).rounded(.up)) / 64 + 1 }
        let stride = wordsFor(dice: count)
        var table = [UInt](repeating: 0, count: stride)
        table[0] = 1
        var entries = 1
        for dice in 1...max(count, 1) where count > 0 {
            let used = min(stride, wordsFor(dice: dice))
            // prefix[i]: the sum of the first i entries.
            var prefix = [UInt](repeating: 0, count: (entries + 1) * stride)
            for i in 0..<entries {
                var carry = false
                for w in 0..<used {
                    let (s1, o1) = prefix[i * stride + w].addingReportingOverflow(table[i * stride + w])
                    let (s2, o2) = s1.addingReportingOverflow(carry ? 1 : 0)
                    prefix[(i + 1) * stride + w] = s2
                    carry = o1 || o2
                }
            }
            let next = entries + width - 1
            var sums = [UInt](repeating: 0, count: next * stride)
            for i in 0..<next {
                let upper = min(i + 1, entries) * stride, lower = max(0, i - width + 1) * stride
                var borrow = false
                for w in 0..<used {
                    let (d1, o1) = prefix[upper + w].subtractingReportingOverflow(prefix[lower + w])
                    let (d2, o2) = d1.subtractingReportingOverflow(borrow ? 1 : 0)
                    sums[i * stride + w] = d2
                    borrow = o1 || o2
                }
            }
            table = sums
            entries = next
        }
        var result: [Int: BigUInt] = [:]
        for i in 0..<entries {
            let ways = BigUInt(words: table[(i * stride)..<((i + 1) * stride)])
            if !ways.isZero { result[i + low * count] = ways }
        }
        return result
    }

    /// The sum of the `k` best of `n` dice, faces given best first. Walking the faces
    /// from the best down, a state is (dice placed so far, sum of the kept ones); placing
    /// m dice on a face keeps as many as there are kept places left. Once k dice are
    /// placed the rest only need to be worse, which the faces below give in
    /// (their total count)^(dice left) ways.
    static func keep(_ k: Int, of n: Int, faces: [(value: Int, count: BigUInt)]) -> [Int: BigUInt] {
        var binomial: [[BigUInt]] = [[1]]
        for row in 1...max(n, 1) {
            var line = [BigUInt](repeating: 1, count: row + 1)
            for i in 1..<row { line[i] = binomial[row - 1][i - 1] + binomial[row - 1][i] }
            binomial.append(line)
        }
        var below = [BigUInt](repeating: 0, count: faces.count + 1)  // below[i]: total count of faces after i
        for i in stride(from: faces.count - 1, through: 0, by: -1) { below[i] = below[i + 1] + faces[i].count }
        var states: [Int: [Int: BigUInt]] = [0: [0: 1]]  // placed → kept sum → ways
        var result: [Int: BigUInt] = [:]
        for (i, face) in faces.enumerated() {
            var powers: [BigUInt] = [1]
            for _ in 0..<n { powers.append(powers[powers.count - 1] * face.count) }
            var rest: [BigUInt] = [1]
            for _ in 0..<n { rest.append(rest[rest.count - 1] * below[i + 1]) }
            var next: [Int: [Int: BigUInt]] = [:]
            for (placed, sums) in states {
                let free = n - placed
                for m in 0...free {
                    let kept = min(m, k - placed)
                    let nowPlaced = placed + m
                    let factor = binomial[free][m] * powers[m]
                    if factor.isZero { continue }
                    for (sum, ways) in sums {
                        let total = sum + kept * face.value
                        if nowPlaced >= k {
                            let tail = rest[n - nowPlaced]
                            if tail.isZero { continue }
                            result[total, default: 0] += ways * factor * tail
                        } else {
                            next[nowPlaced, default: [:]][total, default: 0] += ways * factor
                        }
                    }
                }
            }
            states = next
        }
        return result
    }

    // MARK: Reading it

    /// Mass of the chains longer than `depth` (zero unless exploding below the runtime's cap).
    public var leftOut: BigUInt {
        let covered = outcomes.reduce(BigUInt(0)) { $0 + $1.count }
        return denominator > covered ? denominator - covered : 0
    }

    public var leftOutProbability: Double { Self.ratio(leftOut, denominator) }

    /// The reduced fraction of a count, e.g. "7/72".
    public func fraction(_ count: BigUInt) -> String {
        let (numerator, denominator) = reduced(count)
        guard !numerator.isZero else { return "0" }
        return "\(numerator)/\(denominator)"
    }

    /// A count over the denominator in lowest terms. The denominator is a power of the
    /// die's sides, so dividing out the primes of the sides is the whole reduction: a few
    /// divisions by one word, where a general gcd of numbers of thousands of bits would
    /// cost more than computing the distribution (100d1000 has 99,901 totals).
    public func reduced(_ count: BigUInt) -> (numerator: BigUInt, denominator: BigUInt) {
        guard !count.isZero else { return (0, 1) }
        var numerator = count, denominator = self.denominator
        for prime in Self.primeFactors(of: notation.sides) {
            while true {
                let (n, nr) = Self.divide(numerator, by: UInt(prime))
                guard nr == 0 else { break }
                let (d, dr) = Self.divide(denominator, by: UInt(prime))
                guard dr == 0 else { break }
                (numerator, denominator) = (n, d)
            }
        }
        return (numerator, denominator)
    }

    /// x / d and x % d for a one-word d, word by word: BigInt's general division is
    /// made for big divisors and costs far more.
    static func divide(_ x: BigUInt, by d: UInt) -> (quotient: BigUInt, remainder: UInt) {
        let words = Array(x.words)
        var quotient = [UInt](repeating: 0, count: words.count)
        var remainder: UInt = 0
        for i in stride(from: words.count - 1, through: 0, by: -1) {
            (quotient[i], remainder) = d.dividingFullWidth((high: remainder, low: words[i]))
        }
        return (BigUInt(words: quotient), remainder)
    }

    static func primeFactors(of n: Int) -> [Int] {
        var primes: [Int] = [], rest = n, p = 2
        while p * p <= rest {
            if rest % p == 0 { primes.append(p); while rest % p == 0 { rest /= p } }
            p += 1
        }
        if rest > 1 { primes.append(rest) }
        return primes
    }

    public func probability(of total: Int) -> Double {
        Self.ratio(outcomes.first(where: { $0.total == total })?.count ?? 0, denominator)
    }

    /// Mean of the covered outcomes (divided by the mass covered, so a truncated
    /// exploding distribution's mean is of the rolls that stopped within depth).
    public var mean: Double {
        let covered = outcomes.reduce(BigUInt(0)) { $0 + $1.count }
        var weighted = BigInt(0)
        for outcome in outcomes { weighted += BigInt(outcome.total) * BigInt(outcome.count) }
        return Self.ratio(weighted, BigInt(covered))
    }

    public var standardDeviation: Double {
        let covered = outcomes.reduce(BigUInt(0)) { $0 + $1.count }
        var weighted = BigInt(0), squares = BigInt(0)
        for outcome in outcomes {
            weighted += BigInt(outcome.total) * BigInt(outcome.count)
            squares += BigInt(outcome.total) * BigInt(outcome.total) * BigInt(outcome.count)
        }
        // Var = (N Σx²c − (Σxc)²) / N², exact before the one division.
        let n = BigInt(covered)
        let variance = Self.ratio(n * squares - weighted * weighted, n * n)
        return max(variance, 0).squareRoot()
    }

    /// a/b as a Double, for numbers far beyond Double's range.
    public static func ratio(_ a: BigUInt, _ b: BigUInt) -> Double {
        guard !b.isZero else { return .nan }
        guard !a.isZero else { return 0 }
        let shift = a.bitWidth - b.bitWidth - 64
        let q = shift >= 0 ? a / (b << shift) : (a << -shift) / b
        return Double(q) * pow2(shift)
    }

    public static func ratio(_ a: BigInt, _ b: BigInt) -> Double {
        let magnitude = ratio(a.magnitude, b.magnitude)
        return (a.sign == .minus) != (b.sign == .minus) && !a.isZero ? -magnitude : magnitude
    }

    private static func pow2(_ e: Int) -> Double {
        var result = 1.0, e = e
        while e > 0 { let step = min(e, 1000); result *= Double(sign: .plus, exponent: step, significand: 1); e -= step }
        while e < 0 { let step = max(e, -1000); result *= Double(sign: .plus, exponent: step, significand: 1); e -= step }
        return result
    }
}
