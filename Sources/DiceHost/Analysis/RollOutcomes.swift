/// The outcomes of a roll and their weights out of `total` (sides^count): every tuple
/// once, or - for rules that declare `unordered_dice = true` - every set of values once,
/// weighted by the orders it can come in (252 sets for 5d6 instead of 7,776 tuples).
struct RollOutcomes {
    var values: [[Int]]
    var weights: [Int32]
    var total: Int32
    let unordered: Bool

    init(sides: Int, count: Int, unordered: Bool) {
        self.unordered = unordered
        let tuples = Self.tuples(sides: sides, count: count)
        total = Int32(clamping: tuples.count)
        guard unordered else { values = tuples; weights = Array(repeating: 1, count: tuples.count); return }
        var index: [[Int]: Int] = [:]
        values = []
        weights = []
        for tuple in tuples {
            let set = tuple.sorted()
            if let i = index[set] { weights[i] += 1 } else { index[set] = values.count; values.append(set); weights.append(1) }
        }
    }

    /// Every tuple of `count` dice of `sides` (one empty tuple for none).
    static func tuples(sides: Int, count: Int) -> [[Int]] {
        var tuples: [[Int]] = [[]]
        for _ in 0..<count { tuples = tuples.flatMap { t in (1...max(1, sides)).map { t + [$0] } } }
        return tuples
    }
}

/// The outcomes of dice rolled again after a keep, made once per number of dice: every keep
/// of every position asks (Yacht: 32 keeps a position, 7,776 tuples for none kept).
struct RerolledOutcomes {
    let unordered: Bool
    private var made: [Int: RollOutcomes] = [:]

    init(unordered: Bool) { self.unordered = unordered }

    mutating func outcomes(sides: Int, count: Int) -> RollOutcomes {
        let key = sides << 32 | count
        if let known = made[key] { return known }
        let outcomes = RollOutcomes(sides: sides, count: count, unordered: unordered)
        made[key] = outcomes
        return outcomes
    }
}
