/// The random choices one fuzz case is made of, Hypothesis-style: every decision the
/// input generator takes (which input, which values, which move) is a draw of a number
/// below some bound, and the case is the list of those numbers. A case is played again
/// from its list; shrinking shortens the list and lowers its numbers, and because the
/// generator still builds each input from the position it is in, every shrunk case is
/// a legal game. A draw past the end of the list is 0: the simplest choice.
public struct FuzzChoices {
    /// The draws made so far (each below the bound it was drawn with).
    public private(set) var recorded: [Int] = []
    /// The list being played again; nil while drawing fresh numbers.
    let replaying: [Int]?
    var generator: SplitMix64

    /// Fresh random choices from `seed`.
    public init(seed: UInt64) {
        replaying = nil
        generator = SplitMix64(seed: seed)
    }

    /// The choices of a case played again (or a shrunk version of them).
    public init(replaying list: [Int]) {
        replaying = list
        generator = SplitMix64(seed: 0)
    }

    /// Whether a replayed list is used up (a fresh source never is).
    public var isExhausted: Bool { replaying.map { recorded.count >= $0.count } ?? false }

    /// A number from 0 to `bound - 1` (0 when `bound` is not positive).
    public mutating func draw(_ bound: Int) -> Int {
        guard bound > 1 else { recorded.append(0); return 0 }
        let value: Int
        if let replaying {
            value = recorded.count < replaying.count ? min(max(replaying[recorded.count], 0), bound - 1) : 0
        } else {
            value = Int(generator.next() % UInt64(bound))
        }
        recorded.append(value)
        return value
    }

    /// One of `items` (nil when empty).
    public mutating func pick<T>(_ items: [T]) -> T? {
        items.isEmpty ? nil : items[draw(items.count)]
    }
}

/// A small, fast generator for the fuzzer's own choices (the game's dice come from the
/// game's generator, seeded by the case).
public struct SplitMix64 {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
