/// Solves one strongly connected component's system x = P x + c (P substochastic, some
/// probability leaving the component from every position) by eliminating positions one at
/// a time, as a chain is reduced by hand: a position's equation, divided by one minus its
/// self-loop, is put into every equation that refers to it. Fill-in stays small when the
/// order takes first the positions with fewest (predecessors × successors) - a turn's
/// positions feed one another in a chain and only a bust leads back - so components of
/// many thousands are solved where a dense elimination would take their cube. Generic over
/// the number: exact fractions give the exact solution; doubles are checked afterwards by
/// `ChainSolver` (a residual and a rigorous bound).
struct SparseElimination<Number: ChainNumber> {
    /// Per position (local index): its successors in the component and their weights,
    /// its self-loop and its right-hand side (one value per quantity).
    var successors: [[Int32: Number]]
    var selfLoop: [Number]
    var rhs: [[Number]]
    private var predecessors: [Set<Int32>]
    /// Entry updates done so far (for a budget on exact fractions).
    private(set) var work = 0

    /// Thrown when `workLimit` would be passed: the exact solution is too costly here.
    struct OverBudget: Error { var eliminated: Int; var work: Int }

    init(successors: [[Int32: Number]], selfLoop: [Number], rhs: [[Number]]) {
        self.successors = successors
        self.selfLoop = selfLoop
        self.rhs = rhs
        var predecessors = [Set<Int32>](repeating: [], count: successors.count)
        for (i, row) in successors.enumerated() { for j in row.keys { predecessors[Int(j)].insert(Int32(i)) } }
        self.predecessors = predecessors
    }

    private func cost(_ k: Int) -> Int { predecessors[k].count * successors[k].count }

    /// The solution, one row per position. `check` is called every 256 eliminations (a
    /// memory budget may throw there).
    mutating func solve(workLimit: Int? = nil, check: ((Int) throws -> Void)? = nil) throws -> [[Number]] {
        let m = successors.count
        var eliminated = [Bool](repeating: false, count: m)
        var order: [Int] = []
        order.reserveCapacity(m)
        var heap = MinHeap()
        for k in 0..<m { heap.push(cost: cost(k), node: k) }
        while let (c, k) = heap.pop() {
            if eliminated[k] || c != cost(k) { continue }
            eliminated[k] = true
            order.append(k)
            let stay = Number.one - selfLoop[k]
            guard stay.size > 0 else {
                // In fractions every position of a component leaves it with some chance; in
                // doubles that chance can round to nothing.
                if Number.self == Double.self { throw OddsError.beyondDoubles("a position's chance of leaving rounded to 0") }
                throw OddsError.internal("a position that never leaves a component that others leave")
            }
            let scale = Number.one / stay
            let row = successors[k].mapValues { $0 * scale }
            successors[k] = row
            for q in rhs[k].indices where !rhs[k][q].isZero { rhs[k][q] = rhs[k][q] * scale }
            selfLoop[k] = .zero
            let bk = rhs[k]
            for p32 in predecessors[k] {
                let p = Int(p32)
                guard let a = successors[p].removeValue(forKey: Int32(k)) else { continue }
                for (j, w) in row {
                    if Int(j) == p {
                        selfLoop[p] = selfLoop[p] + a * w
                    } else if let old = successors[p][j] {
                        successors[p][j] = old + a * w
                    } else {
                        successors[p][j] = a * w
                        predecessors[Int(j)].insert(p32)
                    }
                }
                for q in bk.indices where !bk[q].isZero { rhs[p][q] = rhs[p][q] + a * bk[q] }
                work += row.count + bk.count
            }
            for j in row.keys { predecessors[Int(j)].remove(Int32(k)) }
            for p in predecessors[k] { heap.push(cost: cost(Int(p)), node: Int(p)) }
            for j in row.keys { heap.push(cost: cost(Int(j)), node: Int(j)) }
            predecessors[k] = []
            if let workLimit, work > workLimit { throw OverBudget(eliminated: order.count, work: work) }
            if order.count & 255 == 0 { try check?(order.count) }
        }
        // Back substitution: a position's row refers only to positions eliminated after it.
        var x = [[Number]](repeating: [], count: m)
        for k in order.reversed() {
            var v = rhs[k]
            // In a fixed order, so doubles round the same way in every run.
            for (j, w) in successors[k].sorted(by: { $0.key < $1.key }) {
                let xj = x[Int(j)]
                for q in v.indices where !xj[q].isZero { v[q] = v[q] + w * xj[q] }
            }
            x[k] = v
        }
        return x
    }
}

/// A binary min-heap of (cost, node), for the elimination order (stale entries are
/// skipped by the caller).
struct MinHeap {
    private var items: [(cost: Int, node: Int)] = []

    mutating func push(cost: Int, node: Int) {
        items.append((cost, node))
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard Self.less(items[i], items[parent]) else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> (Int, Int)? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var smallest = i
                if l < items.count && Self.less(items[l], items[smallest]) { smallest = l }
                if r < items.count && Self.less(items[r], items[smallest]) { smallest = r }
                if smallest == i { break }
                items.swapAt(i, smallest)
                i = smallest
            }
        }
        return (first.cost, first.node)
    }

    /// Ties broken by node number, so the order (and a double's rounding) is reproducible.
    private static func less(_ a: (cost: Int, node: Int), _ b: (cost: Int, node: Int)) -> Bool {
        a.cost != b.cost ? a.cost < b.cost : a.node < b.node
    }
}
