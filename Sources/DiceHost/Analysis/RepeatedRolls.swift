/// Rolls `odds` played only to reach what another position's rolls had reached: a roll
/// from a position whose every outcome led to the same position (with the same weight
/// and turns begun) as every outcome of an earlier position's roll. Two such positions
/// differ only in something every roll forgets - history such as the last round's cups
/// kept in `g` for show - and each is rolled all the same, outcome by outcome. When that
/// is most of the work, `odds` says so (`advice`): Liar's Dice kept the last call's cups
/// in `g.state` until the next roll, and at five dice each 98% of its 19.3 million rolls
/// were such repeats (312 s); with the cups shown by `reveal` events instead, 0.9 million
/// rolls (24 s), the same odds.
public struct RepeatedRolls: Sendable, Equatable {
    /// Positions whose roll was played outcome by outcome, and the outcomes played.
    public var positions = 0
    public var rollsPlayed = 0
    /// Of those, the positions (and their outcomes) that repeated an earlier position's.
    public var repeatedPositions = 0
    public var repeatedRollsPlayed = 0

    public init() {}

    /// Worth a note: at least 10,000 outcomes and a fifth of all played.
    public var isLarge: Bool { repeatedRollsPlayed >= 10_000 && repeatedRollsPlayed * 5 >= rollsPlayed }

    public var advice: String {
        let share = rollsPlayed > 0 ? 100 * repeatedRollsPlayed / rollsPlayed : 0
        return "note: \(repeatedRollsPlayed) of the \(rollsPlayed) rolls played (\(share)%) came from \(repeatedPositions) positions "
            + "that roll exactly as another position does: they differ only in something the roll forgets. "
            + "If that is history kept in g for show (the last dice, the cups of the last call), show it by an event "
            + "(the roll event, g:reveal, g:say) instead; if it is the last roll (r.previous), keep only what the rules compare "
            + "(a number in p or g.state). Either makes odds faster, with the same result."
    }
}

/// Tells repeated rolls from new ones by a 64-bit FNV-1a hash of each roll's edges (a
/// note, not a result: a collision could only make the count one too high).
struct RepeatedRollCounter {
    var counts = RepeatedRolls()
    private var seen: Set<UInt64> = []

    /// The hash of one roll's edges, fed in outcome order as they are written.
    struct Edges {
        private(set) var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        mutating func add(_ value: UInt64) {
            var v = value
            for _ in 0..<8 {
                hash = (hash ^ (v & 0xFF)) &* 0x100_0000_01b3
                v >>= 8
            }
        }
    }

    /// A roll from one position: its edges, and how many outcomes were played to find them.
    mutating func note(_ edges: Edges, played: Int) {
        counts.positions += 1
        counts.rollsPlayed += played
        if !seen.insert(edges.hash).inserted {
            counts.repeatedPositions += 1
            counts.repeatedRollsPlayed += played
        }
    }
}
