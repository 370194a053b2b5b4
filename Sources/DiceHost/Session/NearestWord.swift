/// The word a typo most likely meant, for "did you mean" hints: `rol` → `roll`,
/// `plya` → `play`. Every hint (REPL commands and actions, `dicehost` commands, rule
/// fields) judges a typo by this one distance, so a swap of two letters counts the same
/// everywhere.
///
/// A candidate counts when it is at most two edits away (insert, delete, replace, or
/// swap two neighbours) and fewer edits than it has letters less one, so `x` suggests
/// nothing; ties go to the earlier candidate.
public enum NearestWord {
    /// The closest candidate to `word`, or nil when none is close (or `word` is one).
    public static func to(_ word: String, among candidates: [String]) -> String? {
        guard !candidates.contains(word), word.count <= 64 else { return nil }
        let typed = Array(word.lowercased())
        var best: (word: String, distance: Int)?
        for candidate in candidates where candidate.count <= 64 {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            let allowed = min(2, max(1, candidate.count - 2))
            guard distance <= allowed, distance < (best?.distance ?? Int.max) else { continue }
            best = (candidate, distance)
        }
        return best?.word
    }

    /// Optimal string alignment distance (Levenshtein plus swaps of neighbours).
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
