import Foundation

/// A game with secrets unrolled from its positions into the tree that counterfactual
/// regret minimisation walks: one node per position and per what every seat has been
/// shown on the way there, in flat arrays, parents before children.
///
/// A seat's information set at a node is what it has been shown: by default its view at
/// every position on the way and every event it received, with its own moves (perfect
/// recall); with `view_is_complete = true`, its view of the current position alone. Two
/// nodes whose seats were all shown the same and that are at the same position are one
/// node (the future and every seat's knowledge are the same), so the tree is a DAG.
final class InformationSetTree {
    let seats: Int
    let perfectRecall: Bool
    /// Per node: the seat deciding (-1: terminal), its information set, its position.
    var player: [Int32] = []
    var infoset: [Int32] = []
    var position: [Int32] = []
    /// Per node, its actions are actionStart[n]..<actionStart[n + 1] (the same moves, in
    /// the same order, as every node of its information set).
    var actionStart: [Int32] = [0]
    /// Per action, its edges are edgeStart[a]..<edgeStart[a + 1]: child node and chance.
    var edgeStart: [Int32] = [0]
    var child: [Int32] = []
    var weight: [Double] = []
    /// Per action, the position-graph move it is (for the rules' bot and labels).
    var move: [Int32] = []
    /// Per terminal node × seat: what CFR maximises (a win 1; with two seats a draw ½).
    var utility: [Double] = []
    /// Per terminal node: the winner's seat, -1 a draw, -2 a loss (-3: not terminal).
    var outcome: [Int32] = []

    /// Per information set: its seat, where its strategy starts in the per-action arrays,
    /// how many actions.
    var infosetPlayer: [Int32] = []
    var infosetStart: [Int32] = []
    var infosetActions: [Int32] = []
    /// Per information set, its first node (a representative: the view there is the set's).
    var infosetNode: [Int32] = []
    /// Per seat, made on first use: see `replyLevels(of:)`.
    private var levelsBySeat: [Int: [Int]] = [:]

    var count: Int { player.count }
    var infosetCount: Int { infosetPlayer.count }
    var strategySize: Int { Int(infosetStart.last.map { $0 + (infosetActions.last ?? 0) } ?? 0) }

    init(graph: MoveGraph, observations: Observations, perfectRecall: Bool, playerNames: [String], maxNodes: Int) throws {
        seats = observations.seats
        self.perfectRecall = perfectRecall
        let rank = try Self.topologicalRank(graph)
        // Legal moves per position: the listed ones (a bot's own move is not a legal move).
        func moves(_ p: Int) -> [Int] { (graph.moveStart[p]..<graph.moveStart[p + 1]).filter { !graph.botOnly.contains($0) } }

        struct NodeKey: Hashable { var position: Int32; var shown: UInt64 }
        var index: [NodeKey: Int32] = [:]
        var shown: [UInt64] = []          // per node × seat
        var rawPosition: [Int32] = []
        func node(_ p: Int32, _ seen: [UInt64]) throws -> Int32 {
            let key = NodeKey(position: p, shown: perfectRecall ? seen.reduce(0, Fingerprint.combine) : 0)
            if let known = index[key] { return known }
            guard rawPosition.count < maxNodes else {
                throw OddsError.notAnalysable("the game tree has more than \(maxNodes) nodes (a node per position and per what each seat has been shown); "
                    + "if each seat's view holds all it needs to decide, declare view_is_complete = true; or raise --max-states "
                    + "(or --open: every cup open, not the game as played)")
            }
            let n = Int32(rawPosition.count)
            index[key] = n
            rawPosition.append(p)
            shown.append(contentsOf: seen)
            return n
        }
        let root = (0..<seats).map { Fingerprint.combine(0x5eed, observations.view[$0]) }
        _ = try node(0, root)
        // Children of each raw node, by its moves (the arrays below are filled once sorted).
        var rawChildren: [[(move: Int, edges: [(Int32, Double)])]] = []
        var next = 0
        while next < rawPosition.count {
            let p = Int(rawPosition[next])
            var list: [(Int, [(Int32, Double)])] = []
            if graph.terminal[p] == nil {
                for m in moves(p) {
                    var edges: [(Int32, Double)] = []
                    for e in graph.edgeStart[m]..<graph.edgeStart[m + 1] {
                        let t = graph.edgeTarget[e]
                        var seen = [UInt64](repeating: 0, count: seats)
                        for s in 0..<seats {
                            let before = shown[next * seats + s]
                            let step = Fingerprint.combine(before, observations.edge[e * seats + s])
                            seen[s] = Fingerprint.combine(step, observations.view[Int(t) * seats + s])
                        }
                        edges.append((try node(t, seen), graph.edgeWeight[e]))
                    }
                    list.append((m, edges))
                }
            }
            rawChildren.append(list)
            next += 1
        }
        // Parents before children: order by the positions' topological rank.
        let order = (0..<rawPosition.count).sorted { (rank[Int(rawPosition[$0])], $0) < (rank[Int(rawPosition[$1])], $1) }
        var renumber = [Int32](repeating: 0, count: order.count)
        for (i, raw) in order.enumerated() { renumber[raw] = Int32(i) }

        struct InfosetKey: Hashable { var seat: Int32; var shown: UInt64 }
        var infosetIndex: [InfosetKey: Int32] = [:]
        var infosetMoves: [[String]] = []
        for raw in order {
            let p = Int(rawPosition[raw])
            position.append(Int32(p))
            if let terminal = graph.terminal[p] {
                player.append(-1)
                infoset.append(-1)
                var u = [Double](repeating: 0, count: seats)
                switch terminal {
                case .win(let seat): u[seat - 1] = 1; outcome.append(Int32(seat - 1))
                case .draw: if seats == 2 { u = [0.5, 0.5] }; outcome.append(-1)
                case .loss: outcome.append(-2)
                }
                utility.append(contentsOf: u)
                actionStart.append(actionStart.last ?? 0)
                continue
            }
            let seat = graph.decider[p]
            outcome.append(-3)
            utility.append(contentsOf: repeatElement(0, count: seats))
            player.append(seat)
            let key = InfosetKey(seat: seat, shown: perfectRecall ? shown[raw * seats + Int(seat)] : observations.view[p * seats + Int(seat)])
            let labels = rawChildren[raw].map { graph.moves[$0.move].label }
            let i: Int32
            if let known = infosetIndex[key] {
                i = known
                if infosetMoves[Int(i)] != labels {
                    let name = playerNames[Int(seat)]
                    throw OddsError.notAnalysable("\(name) is shown the same in two positions that offer different moves "
                        + "(\(Self.list(infosetMoves[Int(i)])) and \(Self.list(labels))): the legal moves depend on something \(name) does not see; "
                        + "show it in the view, or make the moves not depend on it")
                }
            } else {
                i = Int32(infosetPlayer.count)
                infosetIndex[key] = i
                infosetMoves.append(labels)
                infosetPlayer.append(seat)
                infosetStart.append(Int32(strategySize))
                infosetActions.append(Int32(labels.count))
                infosetNode.append(Int32(position.count - 1))
            }
            infoset.append(i)
            for (m, edges) in rawChildren[raw] {
                move.append(Int32(m))
                for (c, w) in edges { child.append(renumber[Int(c)]); weight.append(w) }
                edgeStart.append(Int32(child.count))
            }
            actionStart.append(Int32(move.count))
        }
    }

    /// Each of `seat`'s information sets gets a level: 0 when none of the seat's sets lies
    /// below any of its nodes, else one more than the highest level below. A best reply
    /// decides sets from level 0 up, so each set once all that follows it is. With perfect
    /// recall the levels count the seat's decisions still to come; with a view as the
    /// information set a set may lie below itself (the levels then stop growing at a cap,
    /// and the reply is the best of one move changed at a time). They depend on the tree
    /// alone, so each seat's are worked out once.
    func replyLevels(of seat: Int) -> [Int] {
        if let known = levelsBySeat[seat] { return known }
        var level = [Int](repeating: 0, count: infosetCount)
        var below = [Int](repeating: -1, count: count)
        for _ in 0..<64 {
            var changed = false
            for node in stride(from: count - 1, through: 0, by: -1) where player[node] >= 0 {
                var b = -1
                for a in Int(actionStart[node])..<Int(actionStart[node + 1]) {
                    for e in Int(edgeStart[a])..<Int(edgeStart[a + 1]) {
                        let c = Int(child[e])
                        b = max(b, below[c])
                        if Int(player[c]) == seat { b = max(b, level[Int(infoset[c])]) }
                    }
                }
                below[node] = b
                if Int(player[node]) == seat, b + 1 > level[Int(infoset[node])] {
                    level[Int(infoset[node])] = b + 1
                    changed = true
                }
            }
            if !changed { break }
        }
        levelsBySeat[seat] = level
        return level
    }

    static func list(_ labels: [String]) -> String {
        labels.isEmpty ? "none" : labels.prefix(6).joined(separator: ", ") + (labels.count > 6 ? ", …" : "")
    }

    /// A rank per position, each move's targets ranked after it; a cycle is refused.
    static func topologicalRank(_ graph: MoveGraph) throws -> [Int] {
        let n = graph.count
        var indegree = [Int](repeating: 0, count: n)
        func targets(_ p: Int) -> [Int] {
            guard graph.terminal[p] == nil, p + 1 < graph.moveStart.count else { return [] }
            return (graph.moveStart[p]..<graph.moveStart[p + 1]).flatMap { m in
                (graph.edgeStart[m]..<graph.edgeStart[m + 1]).map { Int(graph.edgeTarget[$0]) }
            }
        }
        for p in 0..<n { for t in targets(p) { indegree[t] += 1 } }
        var rank = [Int](repeating: -1, count: n)
        var queue = (0..<n).filter { indegree[$0] == 0 }
        var head = 0
        while head < queue.count {
            let p = queue[head]
            rank[p] = head
            head += 1
            for t in targets(p) {
                indegree[t] -= 1
                if indegree[t] == 0 { queue.append(t) }
            }
        }
        if head < n {
            throw OddsError.notAnalysable("the game can come back to a position it has been in (a cycle of moves), "
                + "and best play with secrets is computed for games that always end: bound the rounds (a param) to solve it, "
                + "or solve it as if every cup were open with --open")
        }
        return rank
    }
}
