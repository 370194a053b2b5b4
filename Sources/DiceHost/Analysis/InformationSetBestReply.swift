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

    /// Each seat's utility (as the tree defines it: a win 1, with two seats a draw ½) when
    /// every seat plays `strategy`, from one pass for all seats.
    static func utilities(_ tree: InformationSetTree, strategy: [Double]) -> [Double] {
        let o = outcomes(tree, strategy: strategy)
        return (0..<tree.seats).map { o[$0] + (tree.seats == 2 ? o[tree.seats] / 2 : 0) }
    }

    /// The chance that chance and every seat but `seat` bring the game to each node (the
    /// seat's own moves count as taken).
    static func reachByOthers(_ tree: InformationSetTree, strategy: [Double], seat: Int) -> [Double] {
        var reach = [Double](repeating: 0, count: tree.count)
        reach[0] = 1
        for node in 0..<tree.count where tree.player[node] >= 0 && reach[node] > 0 {
            let me = Int(tree.player[node])
            let base = Int(tree.infosetStart[Int(tree.infoset[node])]), first = Int(tree.actionStart[node])
            for a in first..<Int(tree.actionStart[node + 1]) {
                let p = me == seat ? 1 : strategy[base + a - first]
                if p == 0 { continue }
                for e in Int(tree.edgeStart[a])..<Int(tree.edgeStart[a + 1]) { reach[Int(tree.child[e])] += reach[node] * p * tree.weight[e] }
            }
        }
        return reach
    }

    /// The value of action `a` at a node: its edges' children, weighted by chance.
    @inline(__always)
    static func actionValue(_ tree: InformationSetTree, _ a: Int, _ value: [Double]) -> Double {
        var x = 0.0
        for e in Int(tree.edgeStart[a])..<Int(tree.edgeStart[a + 1]) { x += tree.weight[e] * value[Int(tree.child[e])] }
        return x
    }

    /// The best reply of `seat` to the others playing `strategy`: its utility, and its
    /// move (an action index within the information set) in each of its information sets.
    ///
    /// A reply may depend only on what the seat has been shown: in each of its
    /// information sets it takes the one action that is best summed over the set's nodes,
    /// each weighted by the chance that chance and the others bring the game there. Sets
    /// are decided by their level (`InformationSetTree.replyLevels`), so a set is decided
    /// once all that follows it is.
    static func reply(_ tree: InformationSetTree, strategy: [Double], seat: Int) -> (value: Double, choice: [Int32]) {
        let n = tree.count
        let reach = reachByOthers(tree, strategy: strategy, seat: seat)
        let level = tree.replyLevels(of: seat)
        var choice = [Int32](repeating: -1, count: tree.infosetCount)
        let mine = (0..<tree.infosetCount).filter { Int(tree.infosetPlayer[$0]) == seat }
        let deepest = mine.map { level[$0] }.max() ?? -1
        var value = [Double](repeating: 0, count: n)
        var summed = [Double](repeating: 0, count: tree.strategySize)
        func pass(deciding depth: Int) {
            for node in stride(from: n - 1, through: 0, by: -1) {
                let me = Int(tree.player[node])
                if me < 0 { value[node] = tree.utility[node * tree.seats + seat]; continue }
                let i = Int(tree.infoset[node])
                let base = Int(tree.infosetStart[i]), first = Int(tree.actionStart[node])
                if me == seat {
                    if choice[i] >= 0 {
                        value[node] = actionValue(tree, first + Int(choice[i]), value)
                    } else {
                        // Undecided sets matter only while their own level is decided.
                        if level[i] == depth, reach[node] > 0 {
                            for a in first..<Int(tree.actionStart[node + 1]) { summed[base + a - first] += reach[node] * actionValue(tree, a, value) }
                        }
                        value[node] = 0
                    }
                } else {
                    var total = 0.0
                    for a in first..<Int(tree.actionStart[node + 1]) {
                        let p = strategy[base + a - first]
                        if p > 0 { total += p * actionValue(tree, a, value) }
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
                    for a in 1..<max(1, Int(tree.infosetActions[i])) where summed[base + a] > summed[base + best] + 1e-15 { best = a }
                    choice[i] = Int32(best)
                }
            }
        }
        pass(deciding: -1)
        return (value[0], choice)
    }

    /// Per information set action of `seat`: its counterfactual value (Σ over the set's
    /// nodes of the chance that chance and the others reach the node × the value of the
    /// action there), with every seat playing `strategy` afterwards; and per information
    /// set, the same of the strategy's own play. Their difference is what `seat` would
    /// gain by changing its move in that set alone.
    static func counterfactualValues(_ tree: InformationSetTree, strategy: [Double], seat: Int) -> (actions: [Double], played: [Double]) {
        let reach = reachByOthers(tree, strategy: strategy, seat: seat)
        var value = [Double](repeating: 0, count: tree.count)
        var actions = [Double](repeating: 0, count: tree.strategySize)
        var played = [Double](repeating: 0, count: tree.infosetCount)
        for node in stride(from: tree.count - 1, through: 0, by: -1) {
            if tree.player[node] < 0 { value[node] = tree.utility[node * tree.seats + seat]; continue }
            let i = Int(tree.infoset[node]), mine = Int(tree.player[node]) == seat
            let base = Int(tree.infosetStart[i]), first = Int(tree.actionStart[node])
            var total = 0.0
            for a in first..<Int(tree.actionStart[node + 1]) {
                let x = actionValue(tree, a, value)
                total += strategy[base + a - first] * x
                if mine { actions[base + a - first] += reach[node] * x }
            }
            value[node] = total
            if mine { played[i] += reach[node] * total }
        }
        return (actions, played)
    }
}
