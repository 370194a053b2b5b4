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
/// That holds only while the rules read `r.kept` to allow or refuse a keep as a whole, not
/// to decide where an outcome leads. It is checked as the analysis goes: every keep plays
/// its first outcome (which also finds a keep the rules refuse), and one position in
/// `checkEvery` plays every outcome of every keep. Each played outcome must reach the
/// position its set reached before, and a keep the rules took at its first outcome must not
/// be refused at a later one; otherwise `KeptRollsDiffer`, and the analysis starts again
/// playing every keep (`BestPlay.explore`). `solve --every-keep` plays every keep from the
/// start.
final class KeptRollTargets {
    /// One position in this many (with a roll left) plays every outcome of every keep.
    static let checkEvery = 32

    /// The last roll's values, by place (1-based positions index it).
    let last: [Int]
    /// Whether this position plays every outcome (a check), sharing none.
    let playsEverything: Bool
    private var reached: [[Int]: Int32] = [:]

    init(last: [Int], playsEverything: Bool) {
        self.last = last
        self.playsEverything = playsEverything
    }

    /// The set of values a keep of `positions` ends with when the other dice show `rolled`.
    func finalValues(keeping positions: [Int], rolled: [Int]) -> [Int] {
        var values = rolled
        for place in positions where last.indices.contains(place - 1) { values.append(last[place - 1]) }
        values.sort()
        return values
    }

    /// The position `values` reached before, if it is to be taken rather than played: never
    /// for a keep's first outcome, nor anywhere on a position that plays everything.
    func target(of values: [Int], outcome: Int) -> Int32? {
        if outcome == 0 || playsEverything { return nil }
        return reached[values]
    }

    /// Notes that `values`, played, reached `target`; throws when the same set reached
    /// another position by an earlier keep.
    func note(_ values: [Int], reached target: Int32, keep label: String) throws {
        if let before = reached[values] {
            if before != target { throw KeptRollsDiffer(values: values, keep: label, refused: false) }
            return
        }
        reached[values] = target
    }
}

/// Two keeps of one position ended with the same set of values and reached different
/// positions, or the rules refused a keep at a later outcome after taking its first: the
/// rules read which dice were kept (`r.kept`) together with the values, so each keep must be
/// played (see `KeptRollTargets`).
struct KeptRollsDiffer: Error, CustomStringConvertible {
    var values: [Int]
    var keep: String
    /// Refused at this outcome after its first was taken (else: reached another position).
    var refused: Bool

    var description: String {
        let ending = "'\(keep)' ending with \(values.map(String.init).joined(separator: " "))"
        if refused {
            return "\(ending) was refused where its first outcome was taken (the rules read r.kept with the values): every keep is played"
        }
        return "\(ending) reached another position than an earlier keep ending with the same values "
            + "(the rules read r.kept, or the order of the dice): every keep is played"
    }
}
