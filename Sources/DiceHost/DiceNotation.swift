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
        public var description: String { "bad dice notation '\(notation)': \(reason) (expected e.g. 2d6, 4d6kh3, 1d6!+2)" }
    }

    public init(_ text: String) throws {
        self.text = text
        var rest = Substring(text.lowercased().filter { !$0.isWhitespace })
        func fail(_ reason: String) -> ParseError { ParseError(notation: text, reason: reason) }
        func number() -> Int? {
            let digits = rest.prefix(while: \.isASCII).prefix(while: \.isNumber)
            guard !digits.isEmpty, digits.count <= 6 else { return nil }
            rest = rest.dropFirst(digits.count)
            return Int(digits)
        }
        let n = number() ?? 1
        guard rest.first == "d" else { throw fail("missing 'd' between count and sides") }
        rest = rest.dropFirst()
        guard let s = number() else { throw fail("missing number of sides after 'd'") }
        guard (1...100).contains(n) else { throw fail("dice count must be 1..100, got \(n)") }
        guard (2...1000).contains(s) else { throw fail("sides must be 2..1000, got \(s)") }
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
            guard let k = number() else { throw fail("missing count after '\(prefix)'") }
            guard k >= 1, k <= n, !(prefix.hasPrefix("d") && k == n) else {
                throw fail("'\(prefix)\(k)' must leave between 1 and \(n) dice")
            }
            keep = make(k)
            break
        }
        if let sign = rest.first, sign == "+" || sign == "-" {
            rest = rest.dropFirst()
            guard let k = number() else { throw fail("missing number after '\(sign)'") }
            modifier = sign == "+" ? k : -k
        }
        guard rest.isEmpty else { throw fail("unexpected '\(rest)'") }
    }

    /// Rolls with `random(1...sides)`; exploding dice stop after 100 extra rolls.
    public func roll(_ random: (ClosedRange<Int>) -> Int) -> [Int] {
        (0..<count).map { _ in
            var value = random(1...sides)
            if exploding {
                var face = value, extra = 0
                while face == sides, extra < 100 { face = random(1...sides); value += face; extra += 1 }
            }
            return value
        }
    }

    /// The total of a roll: the kept values plus the modifier.
    public func total(of values: [Int]) -> Int {
        kept(values).reduce(0, +) + modifier
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
