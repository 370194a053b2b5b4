import Foundation

/// Counterfactual regret minimisation on an `InformationSetTree`: CFR+ (regrets floored at
/// zero, each iteration's strategy weighted by its number in the average, the seats
/// updated in turn). Each update is two passes over flat arrays: reach probabilities
/// forward, values and regrets backward. The average strategy converges to an
/// equilibrium of a two-seat constant-sum game; with more seats it is reported with its
/// NashConv as an approximate one.
final class RegretMinimiser {
    let tree: InformationSetTree
    /// Per information set action: cumulative regret (floored), the current strategy,
    /// and the weighted sum of strategies (the average, once normalised).
    var regret: [Double]
    var current: [Double]
    var sum: [Double]
    private(set) var iterations = 0
    private var reachOther: [Double]
    private var reachSelf: [Double]
    private var value: [Double]

    init(tree: InformationSetTree) {
        self.tree = tree
        let size = tree.strategySize
        regret = [Double](repeating: 0, count: size)
        sum = [Double](repeating: 0, count: size)
        current = [Double](repeating: 0, count: size)
        reachOther = [Double](repeating: 0, count: tree.count)
        reachSelf = [Double](repeating: 0, count: tree.count)
        value = [Double](repeating: 0, count: tree.count)
        for i in 0..<tree.infosetCount {
            let start = Int(tree.infosetStart[i]), n = Int(tree.infosetActions[i])
            for a in start..<start + n { current[a] = 1 / Double(n) }
        }
    }

    /// One iteration: each seat's regrets updated in turn against the others' current play.
    func iterate() {
        iterations += 1
        for seat in 0..<tree.seats { update(seat: seat) }
    }

    private func update(seat traverser: Int) {
        let t = Double(iterations)
        let seats = tree.seats
        tree.player.withUnsafeBufferPointer { player in
        tree.infoset.withUnsafeBufferPointer { infoset in
        tree.actionStart.withUnsafeBufferPointer { actionStart in
        tree.edgeStart.withUnsafeBufferPointer { edgeStart in
        tree.child.withUnsafeBufferPointer { child in
        tree.weight.withUnsafeBufferPointer { weight in
        tree.utility.withUnsafeBufferPointer { utility in
        tree.infosetStart.withUnsafeBufferPointer { infosetStart in
        current.withUnsafeMutableBufferPointer { sigma in
        sum.withUnsafeMutableBufferPointer { average in
        regret.withUnsafeMutableBufferPointer { regret in
        reachOther.withUnsafeMutableBufferPointer { ro in
        reachSelf.withUnsafeMutableBufferPointer { rs in
        value.withUnsafeMutableBufferPointer { v in
            let n = player.count
            for i in 0..<n { ro[i] = 0; rs[i] = 0 }
            ro[0] = 1; rs[0] = 1
            // Forward: the chance of reaching each node by chance and the other seats
            // (ro), and by the traverser's own moves (rs); the traverser's average grows.
            for node in 0..<n {
                let me = Int(player[node])
                if me < 0 { continue }
                let other = ro[node], own = rs[node]
                if other == 0 && own == 0 { continue }
                let base = Int(infosetStart[Int(infoset[node])])
                let first = Int(actionStart[node])
                for a in first..<Int(actionStart[node + 1]) {
                    let p = sigma[base + a - first]
                    var o = other, s = own
                    if me == traverser { s *= p; average[base + a - first] += t * own * p } else { o *= p }
                    if o == 0 && s == 0 { continue }
                    for e in Int(edgeStart[a])..<Int(edgeStart[a + 1]) {
                        let c = Int(child[e])
                        ro[c] += o * weight[e]
                        rs[c] += s
                    }
                }
            }
            // Backward: each node's value to the traverser under the current strategies,
            // and the traverser's regrets weighted by the others' reach.
            var q = [Double](repeating: 0, count: 64)
            for node in stride(from: n - 1, through: 0, by: -1) {
                let me = Int(player[node])
                if me < 0 { v[node] = utility[node * seats + traverser]; continue }
                if ro[node] == 0 { v[node] = 0; continue }
                let base = Int(infosetStart[Int(infoset[node])])
                let first = Int(actionStart[node]), count = Int(actionStart[node + 1]) - first
                if count > q.count { q = [Double](repeating: 0, count: count) }
                var total = 0.0
                for k in 0..<count {
                    let a = first + k
                    var x = 0.0
                    for e in Int(edgeStart[a])..<Int(edgeStart[a + 1]) { x += weight[e] * v[Int(child[e])] }
                    q[k] = x
                    total += sigma[base + k] * x
                }
                v[node] = total
                if me == traverser {
                    let r = ro[node]
                    for k in 0..<count { regret[base + k] += r * (q[k] - total) }
                }
            }
        }}}}}}}}}}}}}}
        // CFR+: floor the regrets, then regret matching gives the next strategy.
        for i in 0..<tree.infosetCount where Int(tree.infosetPlayer[i]) == traverser {
            let start = Int(tree.infosetStart[i]), count = Int(tree.infosetActions[i])
            var positive = 0.0
            for a in start..<start + count {
                if regret[a] < 0 { regret[a] = 0 }
                positive += regret[a]
            }
            for a in start..<start + count { current[a] = positive > 0 ? regret[a] / positive : 1 / Double(count) }
        }
    }

    /// The average strategy, normalised per information set (uniform where never reached).
    func averageStrategy() -> [Double] {
        var strategy = sum
        for i in 0..<tree.infosetCount {
            let start = Int(tree.infosetStart[i]), count = Int(tree.infosetActions[i])
            let total = strategy[start..<start + count].reduce(0, +)
            for a in start..<start + count { strategy[a] = total > 0 ? strategy[a] / total : 1 / Double(count) }
        }
        return strategy
    }
}
