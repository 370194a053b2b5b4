/// Numbers the chain solver can work in: exact fractions or doubles.
protocol ChainNumber {
    static var zero: Self { get }
    static var one: Self { get }
    init(weight: Int32, over denominator: Int32)
    init(metric: Double)
    static func + (a: Self, b: Self) -> Self
    static func - (a: Self, b: Self) -> Self
    static func * (a: Self, b: Self) -> Self
    static func / (a: Self, b: Self) -> Self
    var isZero: Bool { get }
    /// For choosing pivots (doubles: the largest; fractions: any nonzero).
    var size: Double { get }
}

extension Rational: ChainNumber {
    init(weight: Int32, over denominator: Int32) { self.init(Int(weight), Int(denominator)) }
    init(metric: Double) { self.init(exactly: metric) }
    var size: Double { isZero ? 0 : 1 }
}

extension Double: ChainNumber {
    static var one: Double { 1 }
    init(weight: Int32, over denominator: Int32) { self = Double(weight) / Double(denominator) }
    init(metric: Double) { self = metric }
    var size: Double { abs(self) }
}

/// Solves the absorbing chain of a `StateGraph` for every position's outcome
/// probabilities and expected totals: strongly connected components (Tarjan) in reverse
/// topological order, each one a linear system (I − P_CC) v = r + P_out v_out solved by
/// elimination, so cycles (Pig's busts bring both players back to the same scores) are
/// solved exactly, not iterated towards. Small components by dense Gaussian elimination,
/// larger ones by sparse elimination (`SparseElimination`): no component is too large
/// for its size alone, only for the memory its fill-in takes.
///
/// In doubles every value carries a rigorous error bound: each component's residual
/// times a bound on ‖(I − P_CC)⁻¹‖∞ from the expected steps inside it (see `bound`),
/// plus the largest error inherited from the components it leads to.
///
/// Quantities per position: for each seat P(win); P(draw); P(the bots never end the
/// game); expected rolls; expected turns; for each metric the expected sum and expected
/// number of records.
struct ChainSolver<Number: ChainNumber> {
    let graph: StateGraph
    let seats: Int
    var quantityCount: Int { seats + 4 + 2 * graph.metricNames.count }
    var drawIndex: Int { seats }
    var neverIndex: Int { seats + 1 }
    var rollsIndex: Int { seats + 2 }
    var turnsIndex: Int { seats + 3 }
    func metricSumIndex(_ m: Int) -> Int { seats + 4 + 2 * m }
    func metricCountIndex(_ m: Int) -> Int { seats + 5 + 2 * m }

    /// Components up to this size are solved as one dense system, larger ones sparsely.
    var denseLimit = 64
    /// Entry updates after which sparse elimination gives up (`SparseElimination.OverBudget`):
    /// for exact fractions under `--precision auto`, which then solve in doubles.
    var workLimit: Int?
    /// The process's resident memory at which solving stops, with a message.
    var maxMemory = Odds.defaultMaxMemory

    init(graph: StateGraph, seats: Int) {
        self.graph = graph
        self.seats = seats
    }

    struct Solution {
        var start: [Number]
        var components: Int
        var largestComponent: Int
        /// A bound on the error of every value (zero when exact).
        var errorBound: Double
        var neverEnds: Bool
    }

    func solve(progress: ((Int) -> Void)? = nil) throws -> Solution {
        let n = graph.count
        let q = quantityCount
        var values = [[Number]](repeating: [], count: n)
        var errors = [Double](repeating: 0, count: n)
        var components = 0, largest = 0
        var neverEnds = false
        var local = [Int32](repeating: -1, count: n)
        try StronglyConnectedComponents.each(count: n, successors: { s in graph.edges(of: s).map { Int(graph.edgeTarget[$0]) } }) { component in
            components += 1
            largest = max(largest, component.count)
            if components & 1023 == 0 { progress?(components) }
            if component.count == 1, let terminal = graph.terminal[component[0]] {
                var v = [Number](repeating: .zero, count: q)
                switch terminal {
                case .win(let seat): v[seat - 1] = .one
                case .draw: v[drawIndex] = .one
                case .loss: break   // nobody won: a loss for every seat
                }
                values[component[0]] = v
                return
            }
            for (i, s) in component.enumerated() { local[s] = Int32(i) }
            defer { for s in component { local[s] = -1 } }
            let m = component.count
            if m > denseLimit {
                let (solution, bound) = try solveSparse(component, local: local, values: values, errors: errors, components: components)
                guard let solution else { neverEnds = true; for s in component { values[s] = neverValue() }; return }
                for (i, s) in component.enumerated() {
                    values[s] = solution[i]
                    errors[s] = bound
                }
                return
            }
            // Right-hand sides: the immediate rewards and the values of what lies beyond.
            var b = [[Number]](repeating: [Number](repeating: .zero, count: q), count: m)
            var a = [[Number]](repeating: [Number](repeating: .zero, count: m), count: m)
            var exits = false
            var inherited = 0.0
            for (i, s) in component.enumerated() {
                a[i][i] = .one
                let d = graph.denominator[s]
                b[i][rollsIndex] = Number(weight: graph.rollsWeight[s], over: d)
                b[i][turnsIndex] = Number(weight: graph.turnsWeight[s], over: d)
                for e in graph.metricStart[s]..<graph.metricStart[s + 1] {
                    let entry = graph.metricEntries[e]
                    let p = Number(weight: entry.weight, over: d)
                    b[i][metricSumIndex(Int(entry.metric))] = b[i][metricSumIndex(Int(entry.metric))] + p * Number(metric: entry.value)
                    b[i][metricCountIndex(Int(entry.metric))] = b[i][metricCountIndex(Int(entry.metric))] + p
                }
                for e in graph.edges(of: s) {
                    let t = Int(graph.edgeTarget[e])
                    let p = Number(weight: graph.edgeWeight[e], over: d)
                    if local[t] >= 0 {
                        a[i][Int(local[t])] = a[i][Int(local[t])] - p
                    } else {
                        exits = true
                        inherited = max(inherited, errors[t])
                        let beyond = values[t]
                        for k in 0..<q where !beyond[k].isZero { b[i][k] = b[i][k] + p * beyond[k] }
                    }
                }
            }
            if !exits {
                // The bots go round these positions for ever: the game never ends from here.
                neverEnds = true
                for s in component { values[s] = neverValue() }
                return
            }
            if m == 1 && a[0][0].size > 0 && isOne(a[0][0]) {
                values[component[0]] = b[0]
                errors[component[0]] = inherited + (Number.self == Double.self ? 4 * Double.ulpOfOne * maxSize(b[0]) : 0)
                return
            }
            let original = (a, b)
            // One more column in double precision: expected steps inside the component,
            // ‖(I − P_CC)⁻¹‖∞, which turns a residual into an error bound.
            let bounding = Number.self == Double.self
            if bounding { for i in 0..<m { b[i].append(.one) } }
            let solution = try Self.eliminate(a, b)
            var bound = inherited
            if bounding {
                let steps = solution.map { $0[q].size }.max() ?? 1
                var residual = 0.0
                for i in 0..<m {
                    for k in 0..<q {
                        var r = original.1[i][k]
                        for j in 0..<m where !original.0[i][j].isZero { r = r - original.0[i][j] * solution[j][k] }
                        residual = max(residual, r.size + Double.ulpOfOne * maxSize(solution[i]))
                    }
                }
                bound = inherited + steps * residual * 2
            }
            for (i, s) in component.enumerated() {
                values[s] = bounding ? Array(solution[i].prefix(q)) : solution[i]
                errors[s] = bound
            }
        }
        return Solution(start: values[0], components: components, largestComponent: largest,
                        errorBound: errors[0], neverEnds: neverEnds)
    }

    private func neverValue() -> [Number] {
        var v = [Number](repeating: .zero, count: quantityCount)
        v[neverIndex] = .one
        return v
    }

    /// One large component by sparse elimination: its values and their error bound, or
    /// nil when nothing leaves it (the bots go round it for ever).
    private func solveSparse(_ component: [Int], local: [Int32], values: [[Number]], errors: [Double],
                             components: Int) throws -> ([[Number]]?, Double) {
        let m = component.count, q = quantityCount
        let bounding = Number.self == Double.self
        let width = bounding ? q + 1 : q
        var successors = [[Int32: Number]](repeating: [:], count: m)
        var selfLoop = [Number](repeating: .zero, count: m)
        var rhs = [[Number]](repeating: [Number](repeating: .zero, count: width), count: m)
        var exits = false
        var inherited = 0.0
        for (i, s) in component.enumerated() {
            let d = graph.denominator[s]
            rhs[i][rollsIndex] = Number(weight: graph.rollsWeight[s], over: d)
            rhs[i][turnsIndex] = Number(weight: graph.turnsWeight[s], over: d)
            if bounding { rhs[i][q] = .one }
            for e in graph.metricStart[s]..<graph.metricStart[s + 1] {
                let entry = graph.metricEntries[e]
                let p = Number(weight: entry.weight, over: d)
                let sum = metricSumIndex(Int(entry.metric)), count = metricCountIndex(Int(entry.metric))
                rhs[i][sum] = rhs[i][sum] + p * Number(metric: entry.value)
                rhs[i][count] = rhs[i][count] + p
            }
            for e in graph.edges(of: s) {
                let t = Int(graph.edgeTarget[e])
                let p = Number(weight: graph.edgeWeight[e], over: d)
                let j = local[t]
                if j == Int32(i) {
                    selfLoop[i] = selfLoop[i] + p
                } else if j >= 0 {
                    successors[i][j] = (successors[i][j] ?? .zero) + p
                } else {
                    exits = true
                    inherited = max(inherited, errors[t])
                    let beyond = values[t]
                    for k in 0..<q where !beyond[k].isZero { rhs[i][k] = rhs[i][k] + p * beyond[k] }
                }
            }
        }
        guard exits else { return (nil, 0) }
        let original = (successors, selfLoop, rhs)
        var elimination = SparseElimination(successors: successors, selfLoop: selfLoop, rhs: rhs)
        let maxMemory = self.maxMemory
        let x = try elimination.solve(workLimit: workLimit) { eliminated in
            let resident = ExplorationBudget.residentBytes()
            guard resident > maxMemory else { return }
            throw OddsError.tooMuchMemory(String(format: "stopped at the memory budget (--max-memory %.1f GiB) solving a component of %d positions "
                + "that lead to one another in %@ (%d of them eliminated, %.0f MiB): raise --max-memory%@",
                Double(maxMemory) / 1073741824, m, bounding ? "doubles" : "exact fractions", eliminated, Double(resident) / 1048576,
                bounding ? "" : ", or solve in doubles with an error bound (--precision double)"))
        }
        guard bounding else { return (x, 0) }
        guard let xd = x as? [[Double]], let sd = original.0 as? [[Int32: Double]], let ld = original.1 as? [Double],
              let rd = original.2 as? [[Double]] else { throw OddsError.internal("a bound asked of exact fractions") }
        let bound = try ChainSolver<Double>.bound(successors: sd, selfLoop: ld, rhs: rd, x: xd, quantities: q)
        return (x.map { Array($0.prefix(q)) }, inherited + bound)
    }

    /// A rigorous bound on the error of a component's values in doubles. With N = (I − P)⁻¹
    /// (nonnegative), the error of x is N r for the residual r = c + P x − x, so at most
    /// ‖N‖∞ ‖r‖∞. The last column t solves the steps inside the component, t = P t + 1;
    /// its residual ρ gives (I − P) t = 1 − ρ ≥ (1 − ‖ρ‖∞), so N 1 ≤ t / (1 − ‖ρ‖∞) and
    /// ‖N‖∞ ≤ max t / (1 − ‖ρ‖∞). Each residual is widened by the rounding of its own sum
    /// and of the weights (n + 4 units in the last place of the sum of magnitudes).
    static func bound(successors: [[Int32: Double]], selfLoop: [Double], rhs: [[Double]], x: [[Double]], quantities q: Int) throws -> Double {
        var residual = 0.0, stepsResidual = 0.0, steps = 0.0
        for i in x.indices {
            let row = successors[i]
            for k in 0...q {
                let xi = x[i][k]
                var sum = rhs[i][k] + selfLoop[i] * xi - xi
                var magnitude = abs(rhs[i][k]) + abs(selfLoop[i] * xi) + abs(xi)
                for (j, w) in row {
                    let term = w * x[Int(j)][k]
                    sum += term
                    magnitude += abs(term)
                }
                let r = abs(sum) + Double(row.count + 6) * Double.ulpOfOne * magnitude
                if k < q { residual = max(residual, r) } else { stepsResidual = max(stepsResidual, r); steps = max(steps, xi) }
            }
        }
        guard stepsResidual < 0.5, residual.isFinite, steps.isFinite else {
            throw OddsError.beyondDoubles(String(format: "no error bound: residual %.1e of the steps inside a component", stepsResidual))
        }
        let norm = steps / (1 - stepsResidual) * (1 + 1e-12)
        return norm * residual * (1 + 1e-12)
    }

    private func isOne(_ x: Number) -> Bool { (x - .one).isZero }
    private func maxSize(_ v: [Number]) -> Double { v.map(\.size).max() ?? 0 }

    /// Gaussian elimination with pivoting on A x = B (A square, nonsingular).
    static func eliminate(_ a: [[Number]], _ b: [[Number]]) throws -> [[Number]] {
        var a = a, b = b
        let m = a.count
        for col in 0..<m {
            var pivot = col
            var best = a[col][col].size
            for r in (col + 1)..<max(col + 1, m) where a[r][col].size > best {
                pivot = r
                best = a[r][col].size
                if Number.self != Double.self { break }
            }
            guard best > 0 else {
                if Number.self == Double.self { throw OddsError.beyondDoubles("a pivot rounded to 0") }
                throw OddsError.internal("a singular system in the odds solver")
            }
            if pivot != col { a.swapAt(pivot, col); b.swapAt(pivot, col) }
            let p = a[col][col]
            for r in 0..<m where r != col && !a[r][col].isZero {
                let f = a[r][col] / p
                for c in col..<m where !a[col][c].isZero { a[r][c] = a[r][c] - f * a[col][c] }
                for k in 0..<b[r].count where !b[col][k].isZero { b[r][k] = b[r][k] - f * b[col][k] }
            }
        }
        for r in 0..<m {
            let p = a[r][r]
            for k in 0..<b[r].count { b[r][k] = b[r][k] / p }
        }
        return b
    }
}

/// Tarjan's algorithm without recursion (a million positions would overflow the stack):
/// calls `body` with each strongly connected component, sinks first.
enum StronglyConnectedComponents {
    static func each(count n: Int, successors: (Int) -> [Int], _ body: ([Int]) throws -> Void) throws {
        var index = [Int32](repeating: -1, count: n)
        var low = [Int32](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var stack: [Int] = []
        var next: Int32 = 0
        var work: [(node: Int, successors: [Int], position: Int)] = []
        for root in 0..<n where index[root] < 0 {
            index[root] = next; low[root] = next; next += 1
            stack.append(root); onStack[root] = true
            work.append((root, successors(root), 0))
            while !work.isEmpty {
                let top = work.count - 1
                let v = work[top].node
                if work[top].position < work[top].successors.count {
                    let w = work[top].successors[work[top].position]
                    work[top].position += 1
                    if index[w] < 0 {
                        index[w] = next; low[w] = next; next += 1
                        stack.append(w); onStack[w] = true
                        work.append((w, successors(w), 0))
                    } else if onStack[w] {
                        low[v] = min(low[v], index[w])
                    }
                    continue
                }
                work.removeLast()
                if let parent = work.last?.node { low[parent] = min(low[parent], low[v]) }
                if low[v] == index[v] {
                    var component: [Int] = []
                    while let w = stack.popLast() {
                        onStack[w] = false
                        component.append(w)
                        if w == v { break }
                    }
                    try body(component)
                }
            }
        }
    }
}
