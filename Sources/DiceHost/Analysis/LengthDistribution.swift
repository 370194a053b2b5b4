/// How long a game is under its bots: the exact distribution of the number of rolls,
/// by moving the start's probability along the chain roll by roll until all but
/// `tolerance` of it has ended (the tail left is reported, not hidden).
public struct LengthDistribution: Sendable, Equatable {
    /// probability[n]: the game ends after exactly n rolls.
    public var probability: [Double]
    /// Probability not yet ended when the count stopped (the bots may never end, or the
    /// tail is longer than `maxRolls`).
    public var unfinished: Double

    /// The smallest n with P(rolls ≤ n) ≥ q (nil if the ended mass never reaches q).
    public func quantile(_ q: Double) -> Int? {
        var total = 0.0
        for (n, p) in probability.enumerated() {
            total += p
            if total >= q - 1e-12 { return n }
        }
        return nil
    }

    public var median: Int? { quantile(0.5) }
    public var percentile90: Int? { quantile(0.9) }

    static func rolls(of graph: StateGraph, tolerance: Double = 1e-12, maxRolls: Int = 100_000) -> LengthDistribution? {
        let n = graph.count
        // Rolls made by each position's step: 1 for a roll, 0 for an action.
        var step = [Int8](repeating: 0, count: n)
        for s in 0..<n where graph.terminal[s] == nil {
            let d = Int(graph.denominator[s]), w = Int(graph.rollsWeight[s])
            guard d > 0, w % d == 0, w / d <= 1 else { return nil }
            step[s] = Int8(w / d)
        }
        // The graph's arrays read once into locals (as doubles where they are used so): the
        // loops below run once per roll over every position (the count is the number of
        // positions times the game's longest plausible length), and reading a class's arrays
        // there checked exclusive access on every read. Shares are worked out as before,
        // m × weight / denominator, so every figure keeps its last bit.
        let ends = graph.terminal.map { $0 != nil }
        let edgeStart = graph.edgeStart, edgeTarget = graph.edgeTarget
        let weight = graph.edgeWeight.map(Double.init), denominator = graph.denominator.map(Double.init)
        var mass = [Double](repeating: 0, count: n)
        var next = [Double](repeating: 0, count: n)
        mass[0] = 1
        var probability: [Double] = []
        var remaining = 1.0
        var rolls = 0
        func ended(_ p: Double, at count: Int) {
            while probability.count <= count { probability.append(0) }
            probability[count] += p
        }
        while remaining > tolerance && rolls <= maxRolls {
            // Actions first (no roll): passed along until only rolls are left to make. A
            // pass moves mass at least one step along every path of actions, so more passes
            // than positions means a cycle of actions: mass still moving then never rolls
            // or ends (the bots never end), and is left out, counted as unfinished.
            var passes = 0
            var moved = true
            while moved && passes <= n + 1 {
                moved = false
                passes += 1
                for s in 0..<n where mass[s] != 0 && !ends[s] && step[s] == 0 {
                    let m = mass[s], d = denominator[s]
                    mass[s] = 0
                    for e in edgeStart[s]..<edgeStart[s + 1] {
                        let t = Int(edgeTarget[e]), share = m * weight[e] / d
                        if ends[t] { ended(share, at: rolls); remaining -= share } else { mass[t] += share; moved = true }
                    }
                }
            }
            if moved {
                for s in 0..<n where mass[s] != 0 && !ends[s] && step[s] == 0 { mass[s] = 0 }
            }
            if remaining <= tolerance || !mass.contains(where: { $0 != 0 }) { break }
            // One roll.
            rolls += 1
            for s in 0..<n where mass[s] != 0 {
                let m = mass[s]
                guard !ends[s], step[s] == 1 else { next[s] += m; continue }
                let d = denominator[s]
                for e in edgeStart[s]..<edgeStart[s + 1] {
                    let t = Int(edgeTarget[e]), share = m * weight[e] / d
                    if ends[t] { ended(share, at: rolls); remaining -= share } else { next[t] += share }
                }
            }
            swap(&mass, &next)
            for s in 0..<n { next[s] = 0 }
        }
        return LengthDistribution(probability: probability, unfinished: max(0, remaining))
    }

    /// The distribution of the number of turns (the first included): mass moved along the
    /// chain one turn count at a time, a worklist within each count. Nil when a step may
    /// begin more than one turn (or 255 and more), or a count never settles (a cycle that
    /// begins no turn and barely ends).
    static func turns(of graph: StateGraph, tolerance: Double = 1e-12, maxTurns: Int = 100_000) -> LengthDistribution? {
        let n = graph.count
        guard graph.edgeTurns.count == graph.edgeTarget.count, !graph.edgeTurns.contains(where: { $0 > 1 }) else { return nil }
        var mass = [Double](repeating: 0, count: n)
        var next = [Double](repeating: 0, count: n)
        var queued = [Bool](repeating: false, count: n)
        var probability: [Double] = []
        var remaining = 1.0
        var turns = graph.initialTurns
        func ended(_ p: Double, at count: Int) {
            while probability.count <= count { probability.append(0) }
            probability[count] += p
        }
        if graph.terminal[0] != nil { return LengthDistribution(probability: [1], unfinished: 0) }
        mass[0] = 1
        var work: [Int] = [0]
        while remaining > tolerance && turns <= maxTurns && !work.isEmpty {
            for s in work { queued[s] = true }
            var head = 0
            var nextWork: [Int] = []
            while head < work.count {
                guard head < 64 * (n + 16) else { return nil }
                let s = work[head]
                head += 1
                queued[s] = false
                let m = mass[s]
                mass[s] = 0
                guard m > 1e-300 else { remaining -= m; continue }
                let d = Double(graph.denominator[s])
                for e in graph.edges(of: s) {
                    let t = Int(graph.edgeTarget[e]), share = m * Double(graph.edgeWeight[e]) / d
                    if graph.terminal[t] != nil {
                        ended(share, at: turns + Int(graph.edgeTurns[e]))
                        remaining -= share
                    } else if graph.edgeTurns[e] == 0 {
                        mass[t] += share
                        if !queued[t] { queued[t] = true; work.append(t) }
                    } else {
                        if next[t] == 0 { nextWork.append(t) }
                        next[t] += share
                    }
                }
            }
            swap(&mass, &next)
            work = nextWork
            turns += 1
        }
        return LengthDistribution(probability: probability, unfinished: max(0, remaining))
    }
}
