import Foundation

/// Reduces a failing case to the fewest inputs, then the smallest choices, keeping the
/// check that failed (Hypothesis' shrinking of the underlying choices: the text of the
/// inputs is never edited, so every shrunk case is a game the generator could have made).
///
/// Passes, repeated until none helps: delete runs of inputs (8, 4, 2, 1 at a time, from
/// the end), then lower each choice (to 0, else halving, else one less). A candidate is
/// kept when it fails the same check at the same line of a script (a rule error or a
/// broken invariant elsewhere is another bug) and is smaller: fewer inputs, then fewer
/// choices, then smaller choices in order.
struct FuzzShrinker {
    let game: FuzzGame
    /// When to give up (the smallest case found so far is kept).
    let deadline: DispatchTime
    let maxRuns: Int
    let stop: (() -> Bool)?
    private(set) var runs = 0

    init(game: FuzzGame, seconds: Double, maxRuns: Int = 20_000, stop: (() -> Bool)? = nil) {
        self.game = game
        deadline = DispatchTime.now() + seconds
        self.maxRuns = maxRuns
        self.stop = stop
    }

    var outOfTime: Bool { runs >= maxRuns || DispatchTime.now() > deadline || stop?() == true }

    mutating func shrink(_ failing: FuzzCase) -> FuzzCase {
        guard let check = failing.failure?.check else { return failing }
        let place = failing.failure?.location
        var best = failing
        func smaller(_ a: FuzzCase, than b: FuzzCase) -> Bool {
            if a.inputs.count != b.inputs.count { return a.inputs.count < b.inputs.count }
            if a.choices.count != b.choices.count { return a.choices.count < b.choices.count }
            return a.choices.lexicographicallyPrecedes(b.choices)
        }
        func attempt(_ choices: [Int]) -> Bool {
            guard !outOfTime else { return false }
            runs += 1
            guard let candidate = try? game.play(seed: best.gameSeed, choices: FuzzChoices(replaying: choices)),
                  candidate.failure?.check == check, candidate.failure?.location == place,
                  smaller(candidate, than: best) else { return false }
            best = candidate
            return true
        }
        var improved = true
        while improved && !outOfTime {
            improved = false
            for size in [8, 4, 2, 1] {
                var first = best.inputStarts.count - size
                while first >= 0 && !outOfTime {
                    let starts = best.inputStarts
                    guard first + size <= starts.count else { first = starts.count - size; continue }
                    let from = starts[first], to = first + size < starts.count ? starts[first + size] : best.choices.count
                    var candidate = best.choices
                    candidate.removeSubrange(from..<to)
                    if attempt(candidate) { improved = true } else { first -= 1 }
                }
            }
            var index = 0
            while index < best.choices.count && !outOfTime {
                let value = best.choices[index]
                if value > 0 {
                    for lower in [0, value / 2, value - 1] where lower < value {
                        var candidate = best.choices
                        candidate[index] = lower
                        if attempt(candidate) { improved = true; break }
                    }
                }
                index += 1
            }
        }
        return best
    }
}
