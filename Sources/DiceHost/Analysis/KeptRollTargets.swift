/// Where each set of final values led, for the keeps of one position (`solve` under
/// `unordered_dice`).
///
/// Rules that declare `unordered_dice` promise a roll is the set of values it shows. A keep
/// ends with the kept values and the ones rolled again, so two keeps of the same position
/// that end with the same set (keep a 6, roll 2 3 5 5 / keep 5 5, roll 2 3 6) deliver the
/// same roll but for `r.kept`. Yacht has up to 32 keeps a position and 1,683 such plays,
/// but only 252 sets of five dice: each set is played once and the other keeps that reach
/// it take its position.
///
/// That holds only while the roll hook reads `r.kept` to refuse a keep, not to decide where
/// it leads. So it is checked as it goes: every keep plays its first outcome (which also
/// finds a keep the rules refuse), and, every `StateExplorer.repeatEvery` positions, one
/// more; each must reach the position its set reached before. One that does not throws
/// `KeptRollsDiffer`, and the analysis starts again playing every keep (`BestPlay.explore`).
final class KeptRollTargets {
    /// The last roll's values, by place (1-based positions index it).
    let last: [Int]
    /// Whether this position checks one outcome more per keep.
    let checksMore: Bool
    private var reached: [[Int]: Int32] = [:]
    private(set) var shared = 0

    init(last: [Int], checksMore: Bool) {
        self.last = last
        self.checksMore = checksMore
    }

    /// The set of values a keep of `positions` ends with when the other dice show `rolled`.
    func finalValues(keeping positions: [Int], rolled: [Int]) -> [Int] {
        var values = rolled
        for place in positions where last.indices.contains(place - 1) { values.append(last[place - 1]) }
        values.sort()
        return values
    }

    /// The position `values` reached before, if it is to be taken rather than played: never
    /// for a keep's first outcome, nor for its middle one where this position checks more.
    func target(of values: [Int], outcome: Int, of count: Int) -> Int32? {
        if outcome == 0 || (checksMore && outcome == count / 2) { return nil }
        guard let target = reached[values] else { return nil }
        shared += 1
        return target
    }

    /// Notes that `values`, played, reached `target`; throws when the same set reached
    /// another position by an earlier keep.
    func note(_ values: [Int], reached target: Int32, keep label: String) throws {
        if let before = reached[values] {
            if before != target { throw KeptRollsDiffer(values: values, keep: label) }
            return
        }
        reached[values] = target
    }
}

/// Two keeps of one position ended with the same set of values and reached different
/// positions: the rules read which dice were kept (`r.kept`) to decide a roll, so each keep
/// must be played (see `KeptRollTargets`).
struct KeptRollsDiffer: Error, CustomStringConvertible {
    var values: [Int]
    var keep: String

    var description: String {
        "'\(keep)' ending with \(values.map(String.init).joined(separator: " ")) reached another position than an earlier keep "
            + "ending with the same values (the roll hook reads r.kept): every keep is played"
    }
}
