import BigInt

/// An exact fraction, always in lowest terms with a positive denominator.
public struct Rational: Sendable, Equatable, CustomStringConvertible {
    public private(set) var numerator: BigInt
    public private(set) var denominator: BigInt

    public init(_ numerator: BigInt, _ denominator: BigInt = 1) {
        precondition(!denominator.isZero, "a fraction with denominator 0")
        let gcd = numerator.greatestCommonDivisor(with: denominator)
        var n = numerator, d = denominator
        if gcd > 1 { n /= gcd; d /= gcd }
        if d.sign == .minus { n.negate(); d.negate() }
        self.numerator = n
        self.denominator = d
    }

    public init(_ n: Int, _ d: Int = 1) { self.init(BigInt(n), BigInt(d)) }

    /// Already in lowest terms with a positive denominator (the arithmetic below keeps it so).
    private init(reduced numerator: BigInt, _ denominator: BigInt) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// A finite double exactly (every one is a dyadic fraction).
    public init(exactly value: Double) {
        precondition(value.isFinite, "a fraction of a non-finite double")
        if value == 0 { self.init(0); return }
        let exponent = Int(value.exponent) - Double.significandBitCount
        let significand = BigInt(Int64(value.significandBitPattern | (value.isNormal ? 1 << UInt64(Double.significandBitCount) : 0)))
        let signed = value.sign == .minus ? -significand : significand
        let scale = value.isNormal ? exponent : Int(Double.leastNormalMagnitude.exponent) - Double.significandBitCount
        self.init(scale >= 0 ? signed << scale : signed, scale >= 0 ? 1 : BigInt(1) << -scale)
    }

    public static let zero = Rational(0)
    public static let one = Rational(1)
    public var isZero: Bool { numerator.isZero }

    // Knuth's forms (TAOCP 4.5.1): the gcds are of the smaller factors, and a result
    // needs no reduction of its own.
    public static func + (a: Rational, b: Rational) -> Rational {
        if a.isZero { return b }
        if b.isZero { return a }
        let d1 = a.denominator.greatestCommonDivisor(with: b.denominator)
        if d1 == 1 {
            return Rational(reduced: a.numerator * b.denominator + b.numerator * a.denominator, a.denominator * b.denominator)
        }
        let t = a.numerator * (b.denominator / d1) + b.numerator * (a.denominator / d1)
        if t.isZero { return .zero }
        let d2 = t.greatestCommonDivisor(with: d1)
        return Rational(reduced: t / d2, (a.denominator / d1) * (b.denominator / d2))
    }
    public static func - (a: Rational, b: Rational) -> Rational { a + Rational(reduced: -b.numerator, b.denominator) }
    public static func * (a: Rational, b: Rational) -> Rational {
        if a.isZero || b.isZero { return .zero }
        let g1 = a.numerator.greatestCommonDivisor(with: b.denominator)
        let g2 = b.numerator.greatestCommonDivisor(with: a.denominator)
        return Rational(reduced: (a.numerator / g1) * (b.numerator / g2), (a.denominator / g2) * (b.denominator / g1))
    }
    public static func / (a: Rational, b: Rational) -> Rational {
        Rational(a.numerator * b.denominator, a.denominator * b.numerator)
    }

    public var doubleValue: Double {
        let magnitude = DiceDistribution.ratio(numerator.magnitude, denominator.magnitude)
        return numerator.sign == .minus ? -magnitude : magnitude
    }

    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }
}
