/// What a simulation counted: outcomes per seat, game lengths, the metrics scripts
/// recorded with `g:record`, and the first failing game. Everything is a count or a
/// sum, so results of disjoint ranges of games merge exactly (`merging`): the result of
/// a study split into shards equals the result of the whole run. (Metric sums are
/// `Double`s: exact for whole-number values, as every shipped game records; fractional
/// values may differ in the last bits depending on the order of merging.)
public struct SimulationResult: Codable, Equatable, Sendable {
    /// What the study is: results merge only when these agree.
    public struct Study: Codable, Equatable, Sendable {
        public var rules: String
        public var rulesFile: String
        public var players: [String]
        public var params: [String]
        public var seed: UInt64
        public var games: Int
        public var moveLimit: Int
    }

    /// The first game (lowest index) that ended in a rule error: replay it with its seed.
    public struct Failure: Codable, Equatable, Sendable {
        public var index: Int
        public var seed: UInt64
        public var message: String
    }

    public var format = 1
    public var study: Study
    /// The game indices this result covers, as half-open ranges [lower, upper).
    public var ranges: [[Int]]
    public var games = 0
    public var wins: [Int]
    public var draws = 0
    public var errors = 0
    /// Games stopped after `moveLimit` moves without an outcome.
    public var unfinished = 0
    public var firstError: Failure?
    /// Rolls and turns of the games that ended (won or drawn).
    public var rolls = IntegerTally()
    public var turns = IntegerTally()
    public var metrics: [String: MetricTally] = [:]
    /// Wall-clock seconds spent playing (merged results add their shards' times).
    public var seconds: Double = 0

    public init(study: Study, ranges: [[Int]] = []) {
        self.study = study
        self.ranges = ranges
        wins = Array(repeating: 0, count: study.players.count)
    }

    public enum MergeError: Error, CustomStringConvertible {
        case differentStudies(String)
        case overlapping([Int], [Int])

        public var description: String {
            switch self {
            case .differentStudies(let what): return "cannot merge results of different studies: \(what) differ"
            case .overlapping(let a, let b): return "cannot merge overlapping results: games \(a[0])..<\(a[1]) and \(b[0])..<\(b[1])"
            }
        }
    }

    /// The result of both runs together; they must be the same study over disjoint games.
    public func merging(_ other: SimulationResult) throws -> SimulationResult {
        if study != other.study {
            let a = study, b = other.study
            let differing = [("rules", a.rules == b.rules && a.rulesFile == b.rulesFile), ("players", a.players == b.players),
                             ("params", a.params == b.params), ("seeds", a.seed == b.seed), ("game counts", a.games == b.games),
                             ("move limits", a.moveLimit == b.moveLimit)].filter { !$0.1 }.map(\.0)
            throw MergeError.differentStudies(differing.joined(separator: ", "))
        }
        for a in ranges { for b in other.ranges where a[0] < b[1] && b[0] < a[1] { throw MergeError.overlapping(a, b) } }
        var merged = self
        merged.ranges = Self.coalesce(ranges + other.ranges)
        merged.games += other.games
        merged.wins = zip(wins, other.wins).map(+)
        merged.draws += other.draws
        merged.errors += other.errors
        merged.unfinished += other.unfinished
        if let theirs = other.firstError, theirs.index < (firstError?.index ?? Int.max) { merged.firstError = theirs }
        merged.rolls.add(other.rolls)
        merged.turns.add(other.turns)
        for (name, tally) in other.metrics { merged.metrics[name, default: MetricTally()].add(tally) }
        merged.seconds += other.seconds
        return merged
    }

    /// The games of the study this result does not cover yet.
    public var missingRanges: [[Int]] {
        var missing: [[Int]] = [], next = 0
        for r in ranges {
            if r[0] > next { missing.append([next, r[0]]) }
            next = max(next, r[1])
        }
        if next < study.games { missing.append([next, study.games]) }
        return missing
    }

    static func coalesce(_ ranges: [[Int]]) -> [[Int]] {
        var out: [[Int]] = []
        for r in ranges.sorted(by: { $0[0] < $1[0] }) {
            if let last = out.last, last[1] == r[0] { out[out.count - 1][1] = r[1] } else { out.append(r) }
        }
        return out
    }
}

/// A distribution of whole numbers (game lengths), kept as exact counts per value.
public struct IntegerTally: Codable, Equatable, Sendable {
    public private(set) var counts: [Int: Int] = [:]

    public init() {}

    public mutating func add(_ value: Int) { counts[value, default: 0] += 1 }
    public mutating func add(_ other: IntegerTally) { counts.merge(other.counts, uniquingKeysWith: +) }

    public var count: Int { counts.values.reduce(0, +) }
    public var mean: Double {
        let n = count
        // In Double: value × count of a hand-edited histogram could overflow an Int.
        return n == 0 ? 0 : counts.reduce(0.0) { $0 + Double($1.key) * Double($1.value) } / Double(n)
    }
    /// The sample standard deviation.
    public var standardDeviation: Double {
        let n = count
        guard n > 1 else { return 0 }
        let m = mean
        let squares = counts.reduce(0.0) { $0 + Double($1.value) * (Double($1.key) - m) * (Double($1.key) - m) }
        return (squares / Double(n - 1)).squareRoot()
    }
    /// The value at quantile `q` (0...1) of the sorted values.
    public func quantile(_ q: Double) -> Int? {
        let n = count
        guard n > 0 else { return nil }
        let rank = min(n - 1, max(0, Int((Double(n - 1) * q).rounded(.down))))
        var seen = 0
        for (value, c) in counts.sorted(by: { $0.key < $1.key }) {
            seen += c
            if seen > rank { return value }
        }
        return counts.keys.max()
    }
    public var median: Int? { quantile(0.5) }
    public var minimum: Int? { counts.keys.min() }
    public var maximum: Int? { counts.keys.max() }

    // JSON: {"3": 120, "4": 98, …} (object keys must be strings).
    public init(from decoder: Decoder) throws {
        let raw = try [String: Int](from: decoder)
        for (key, c) in raw {
            guard let value = Int(key) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "histogram key '\(key)' is not an integer"))
            }
            counts[value] = c
        }
    }
    public func encode(to encoder: Encoder) throws {
        try Dictionary(uniqueKeysWithValues: counts.map { (String($0.key), $0.value) }).encode(to: encoder)
    }
}

/// The values a script recorded under one name with `g:record(name, value)`.
public struct MetricTally: Codable, Equatable, Sendable {
    /// How many times it was recorded, in how many games.
    public var count = 0
    public var games = 0
    public var sum: Double = 0
    public var sumOfSquares: Double = 0
    public var minimum: Double?
    public var maximum: Double?

    /// The most times one metric may have been recorded (2^53): merged counts never overflow.
    public static let maxCount = 1 << 53

    public init() {}

    public mutating func add(_ value: Double) {
        count += 1
        sum += value
        sumOfSquares += value * value
        minimum = Swift.min(minimum ?? value, value)
        maximum = Swift.max(maximum ?? value, value)
    }
    public mutating func add(_ other: MetricTally) {
        // Saturating: counts of validated results stay far below, but merging is public.
        count = count.addingReportingOverflow(other.count).overflow ? Int.max : count + other.count
        games = games.addingReportingOverflow(other.games).overflow ? Int.max : games + other.games
        sum += other.sum
        sumOfSquares += other.sumOfSquares
        if let low = other.minimum { minimum = Swift.min(minimum ?? low, low) }
        if let high = other.maximum { maximum = Swift.max(maximum ?? high, high) }
    }
    public var mean: Double { count == 0 ? 0 : sum / Double(count) }
}
