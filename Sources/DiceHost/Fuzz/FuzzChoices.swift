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
