import Foundation

/// Evaluating strategies on an `InformationSetTree`: every seat's chances when each plays
/// a given strategy, and a seat's best reply that knows only what it has been shown (a
/// best response over information sets, never one that sees another seat's cup).
enum InformationSetBestReply {
    /// Each seat's chance of winning, then of a draw and of a loss, when every seat plays
    /// `strategy` (probabilities per information set action).
    static func outcomes(_ tree: InformationSetTree, strategy: [Double]) -> [Double] {
        let width = tree.seats + 2
        var value = [Double](repeating: 0, count: tree.count * width)
        for node in stride(from: tree.count - 1, through: 0, by: -1) {
            if tree.player[node] < 0 {
                switch tree.outcome[node] {
                case -1: value[node * width + tree.seats] = 1
                case -2: value[node * width + tree.seats + 1] = 1
                case let seat: value[node * width + Int(seat)] = 1
                }
                continue
            }
            let base = Int(tree.infosetStart[Int(tree.infoset[node])]), first = Int(tree.actionStart[node])
            for a in first..<Int(tree.actionStart[node + 1]) {
                let p = strategy[base + a - first]
                if p == 0 { continue }
                for e in Int(tree.edgeStart[a])..<Int(tree.edgeStart[a + 1]) {
                    let c = Int(tree.child[e]), w = p * tree.weight[e]
                    for k in 0..<width { value[node * width + k] += w * value[c * width + k] }
                }
            }
        }
        return Array(value[0..<width])
    }

    /// `seat`'s utility (as the tree defines it) when every seat plays `strategy`.
    static func utility(_ tree: InformationSetTree, strategy: [Double], seat: Int) -> Double {
        let o = outcomes(tree, strategy: strategy)
        return o[seat] + (tree.seats == 2 ? o[tree.seats] / 2 : 0)
    }

    /// The best reply of `seat` to the others playing `strategy`: its utility, and its
    /// move (an action index within the information set) in each of its information sets.
    ///
    /// A reply may depend only on what the seat has been shown: in each of its
    /// information sets it takes the one action that is best summed over the set's nodes,
    /// each weighted by the chance that chance and the others bring the game there. The
    /// sets are decided from the seat's last decisions back to its first (a node's future
    /// holds only sets with more of the seat's decisions before them).
    static func reply(_ tree: InformationSetTree, strategy: [Double], seat: Int) -> (value: Double, choice: [Int32]) {
        let n = tree.count
        // The chance that chance and the other seats reach each node.
        var reach = [Double](repeating: 0, count: n)
        reach[0] = 1
        for node in 0..<n where tree.player[node] >= 0 && reach[node] > 0 {
            let me = Int(tree.player[node])
            let base = Int(tree.infosetStart[Int(tree.infoset[node])]), first = Int(tree.actionStart[node])
            for a in first..<Int(tree.actionStart[node + 1]) {
                let p = me == seat ? 1 : strategy[base + a - first]
                if p == 0 { continue }
                for e in Int(tree.edgeStart[a])..<Int(tree.edgeStart[a + 1]) { reach[Int(tree.child[e])] += reach[node] * p * tree.weight[e] }
            }
        }
        var choice = [Int32](repeating: -1, count: tree.infosetCount)
        let mine = (0..<tree.infosetCount).filter { Int(tree.infosetPlayer[$0]) == seat }
        // Each of the seat's sets gets a level: 0 when none of its sets lies below any of
        // its nodes, else one more than the highest level below. Sets are decided from
        // level 0 up, so a set is decided once all that follows it is. With perfect recall
        // the levels count decisions still to come; with a view as the information set a
        // set may lie below itself (then the levels stop growing at a cap, and the reply
        // is the best of one move changed at a time).
        var level = [Int](repeating: 0, count: tree.infosetCount)
        var below = [Int](repeating: -1, count: n)
        for _ in 0..<64 {
            var changed = false
            for node in stride(from: n - 1, through: 0, by: -1) where tree.player[node] >= 0 {
                var b = -1
                for a in Int(tree.actionStart[node])..<Int(tree.actionStart[node + 1]) {
                    for e in Int(tree.edgeStart[a])..<Int(tree.edgeStart[a + 1]) {
                        let c = Int(tree.child[e])
                        b = max(b, below[c])
                        if Int(tree.player[c]) == seat { b = max(b, level[Int(tree.infoset[c])]) }
                    }
                }
                below[node] = b
                if Int(tree.player[node]) == seat, b + 1 > level[Int(tree.infoset[node])] {
                    level[Int(tree.infoset[node])] = b + 1
                    changed = true
                }
            }
            if !changed { break }
        }
        let deepest = mine.map { level[$0] }.max() ?? -1
        var value = [Double](repeating: 0, count: n)
        var actionValue = [Double](repeating: 0, count: tree.strategySize)
        func pass(deciding depth: Int) {
            for node in stride(from: n - 1, through: 0, by: -1) {
                let me = Int(tree.player[node])
                if me < 0 { value[node] = tree.utility[node * tree.seats + seat]; continue }
                let i = Int(tree.infoset[node])
                let base = Int(tree.infosetStart[i]), first = Int(tree.actionStart[node])
                func q(_ a: Int) -> Double {
                    var x = 0.0
                    for e in Int(tree.edgeStart[a])..<Int(tree.edgeStart[a + 1]) { x += tree.weight[e] * value[Int(tree.child[e])] }
                    return x
                }
                if me == seat {
                    if choice[i] >= 0 {
                        value[node] = q(first + Int(choice[i]))
                    } else if level[i] == depth, reach[node] > 0 {
                        for a in first..<Int(tree.actionStart[node + 1]) { actionValue[base + a - first] += reach[node] * q(a) }
                        value[node] = 0
                    } else {
                        value[node] = 0
                    }
                } else {
                    var total = 0.0
                    for a in first..<Int(tree.actionStart[node + 1]) {
                        let p = strategy[base + a - first]
                        if p > 0 { total += p * q(a) }
                    }
                    value[node] = total
                }
            }
        }
        if deepest >= 0 {
            for depth in 0...deepest {
                pass(deciding: depth)
                for i in mine where level[i] == depth {
                    let base = Int(tree.infosetStart[i])
                    var best = 0
                    for a in 1..<max(1, Int(tree.infosetActions[i])) where actionValue[base + a] > actionValue[base + best] + 1e-15 { best = a }
                    choice[i] = Int32(best)
                }
            }
        }
        pass(deciding: -1)
        return (value[0], choice)
    }
}

extension InformationSetBestReply {
    /// Per information set action of `seat`: its counterfactual value (Σ over the set's
    /// nodes of the chance that chance and the others reach the node × the value of the
    /// action there), with every seat playing `strategy` afterwards; and per information
    /// set, the same of the strategy's own play. Their difference is what `seat` would
    /// gain by changing its move in that set alone.
    static func counterfactualValues(_ tree: InformationSetTree, strategy: [Double], seat: Int) -> (actions: [Double], played: [Double]) {
        let n = tree.count
        var reach = [Double](repeating: 0, count: n)
        reach[0] = 1
        for node in 0..<n where tree.player[node] >= 0 && reach[node] > 0 {
            let me = Int(tree.player[node])
            let base = Int(tree.infosetStart[Int(tree.infoset[node])]), first = Int(tree.actionStart[node])
            for a in first..<Int(tree.actionStart[node + 1]) {
                let p = me == seat ? 1 : strategy[base + a - first]
                if p == 0 { continue }
                for e in Int(tree.edgeStart[a])..<Int(tree.edgeStart[a + 1]) { reach[Int(tree.child[e])] += reach[node] * p * tree.weight[e] }
            }
        }
        var value = [Double](repeating: 0, count: n)
        var actions = [Double](repeating: 0, count: tree.strategySize)
        var played = [Double](repeating: 0, count: tree.infosetCount)
        for node in stride(from: n - 1, through: 0, by: -1) {
            if tree.player[node] < 0 { value[node] = tree.utility[node * tree.seats + seat]; continue }
            let i = Int(tree.infoset[node])
            let base = Int(tree.infosetStart[i]), first = Int(tree.actionStart[node])
            var total = 0.0
            for a in first..<Int(tree.actionStart[node + 1]) {
                var x = 0.0
                for e in Int(tree.edgeStart[a])..<Int(tree.edgeStart[a + 1]) { x += tree.weight[e] * value[Int(tree.child[e])] }
                let p = strategy[base + a - first]
                total += p * x
                if Int(tree.player[node]) == seat { actions[base + a - first] += reach[node] * x }
            }
            value[node] = total
            if Int(tree.player[node]) == seat { played[i] += reach[node] * total }
        }
        return (actions, played)
    }
}
