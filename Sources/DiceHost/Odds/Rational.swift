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

    public static func + (a: Rational, b: Rational) -> Rational {
        if a.isZero { return b }
        if b.isZero { return a }
        if a.denominator == b.denominator { return Rational(a.numerator + b.numerator, a.denominator) }
        return Rational(a.numerator * b.denominator + b.numerator * a.denominator, a.denominator * b.denominator)
    }
    public static func - (a: Rational, b: Rational) -> Rational { a + Rational(-b.numerator, b.denominator) }
    public static func * (a: Rational, b: Rational) -> Rational {
        if a.isZero || b.isZero { return .zero }
        return Rational(a.numerator * b.numerator, a.denominator * b.denominator)
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
