/// Dice notation: `NdS` (N dice of S sides, N defaults to 1), then optionally
/// `!` (exploding: a die showing S rolls again and adds), `khK`/`klK` (keep the K
/// highest/lowest), `dhK`/`dlK` (drop the K highest/lowest), and `+K`/`-K`.
///
///     try DiceNotation("2d6")      // two six-sided dice
///     try DiceNotation("4d6kh3")   // roll four, keep the best three
///     try DiceNotation("1d6!+2")   // exploding d6 plus two
public struct DiceNotation: Equatable, Sendable, CustomStringConvertible {
    public enum Keep: Equatable, Sendable {
        case all, highest(Int), lowest(Int)
    }

    public var count: Int
    public var sides: Int
    public var exploding: Bool
    public var keep: Keep
    public var modifier: Int
    public let text: String

    public var description: String { text }

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let notation: String
        public let reason: String
        public init(notation: String, reason: String) {
            self.notation = notation
            self.reason = reason
        }
        public var description: String {
            "bad dice notation '\(DiceNotation.shortened(notation))': \(reason) (expected e.g. 2d6, 4d6kh3, 1d6!+2)"
        }
    }

    public init(_ text: String) throws {
        self.text = text
        var rest = Substring(text.lowercased().filter { !$0.isWhitespace })
        func fail(_ reason: String) -> ParseError { ParseError(notation: text, reason: reason) }
        // Digits of any length are read (so "99999999d6" is "count must be 1..100", not
        // a missing 'd'); one past `range` stands for every number too big for an Int,
        // and the message shows the digits as written.
        func number(_ what: String, _ range: ClosedRange<Int>) throws -> Int? {
            let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
            guard !digits.isEmpty else { return nil }
            rest = rest.dropFirst(digits.count)
            guard let n = Int(digits), range.contains(n) else {
                throw fail("\(what) must be \(range.lowerBound)..\(range.upperBound), got \(DiceNotation.shortened(String(digits)))")
            }
            return n
        }
        let n = try number("dice count", Self.counts) ?? 1
        guard rest.first == "d" else { throw fail("missing 'd' between count and sides") }
        rest = rest.dropFirst()
        guard let s = try number("sides", Self.sides) else { throw fail("missing number of sides after 'd'") }
        count = n
        sides = s
        exploding = false
        keep = .all
        modifier = 0
        if rest.first == "!" { exploding = true; rest = rest.dropFirst() }
        for (prefix, make) in [("kh", { Keep.highest($0) }), ("kl", { Keep.lowest($0) }),
                               ("dh", { Keep.lowest(n - $0) }), ("dl", { Keep.highest(n - $0) })] as [(String, (Int) -> Keep)]
        where rest.hasPrefix(prefix) {
            rest = rest.dropFirst(2)
            guard let k = try number("the count after '\(prefix)'", Self.modifiers) else { throw fail("missing count after '\(prefix)'") }
            guard k >= 1, k <= n, !(prefix.hasPrefix("d") && k == n) else {
                throw fail("'\(prefix)\(k)' must leave between 1 and \(n) dice")
            }
            keep = make(k)
            break
        }
        if let sign = rest.first, sign == "+" || sign == "-" {
            rest = rest.dropFirst()
            guard let k = try number("the modifier", Self.modifiers) else { throw fail("missing number after '\(sign)'") }
            modifier = sign == "+" ? k : -k
        }
        guard rest.isEmpty else { throw fail("unexpected '\(Self.shortened(String(rest)))'") }
    }

    /// How many dice one notation may roll.
    public static let counts = 1...100
    /// How many sides a die may have.
    public static let sides = 2...1000
    /// The size of a `+K`/`-K` modifier.
    public static let modifiers = 0...999_999

    /// What one die of this notation can show: 1...sides, or for an exploding die up
    /// to sides × (1 + `HostLimits.explosionsPerDie`). Given values are checked against
    /// it, which keeps every total far from Int overflow.
    public var dieValues: ClosedRange<Int> {
        1...(exploding ? sides * (HostLimits.explosionsPerDie + 1) : sides)
    }

    /// Notation in a message, cut to 40 characters: a script may pass a long string.
    static func shortened(_ text: String) -> String {
        text.count <= 40 ? text : text.prefix(40) + "…"
    }

    /// Rolls with `random(1...sides)`; exploding dice stop after `HostLimits.explosionsPerDie` extra rolls.
    public func roll(_ random: (ClosedRange<Int>) -> Int) -> [Int] {
        (0..<count).map { _ in
            var value = random(1...sides)
            if exploding {
                var face = value, extra = 0
                while face == sides, extra < HostLimits.explosionsPerDie { face = random(1...sides); value += face; extra += 1 }
            }
            return value
        }
    }

    /// The total of a roll: the kept values plus the modifier. Values out of
    /// `dieValues` (an app may pass anything) count as the nearest value in range, so
    /// the sum cannot overflow.
    public func total(of values: [Int]) -> Int {
        kept(values).reduce(modifier) { $0 + min(max($1, dieValues.lowerBound), dieValues.upperBound) }
    }

    /// Which of the values count toward the total.
    public func kept(_ values: [Int]) -> [Int] {
        switch keep {
        case .all: return values
        case .highest(let k): return Array(values.sorted(by: >).prefix(k))
        case .lowest(let k): return Array(values.sorted().prefix(k))
        }
    }
}
