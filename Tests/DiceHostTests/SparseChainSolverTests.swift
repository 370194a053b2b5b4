import BigInt
import Foundation
import Testing
@testable import DiceHost

/// Large strongly connected components are solved, not refused: sparse elimination in
/// exact fractions equals a slow obvious solver, and in doubles lies within the bound it
/// prints (issue 43).
@Suite struct SparseChainSolverTests {
    /// A reproducible generator (SplitMix64) for random chains.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A random absorbing chain for two seats: `transient` positions (the start first),
    /// then a win for each seat and a draw. Each position steps to its successor (so every
    /// position reaches the last, which always may end the game), jumps back at random
    /// (cycles), and ends the game now and then; one metric is recorded on some steps.
    static func randomGraph(transient n: Int, seed: UInt64) -> StateGraph {
        var rng = SplitMix(state: seed)
        let g = StateGraph()
        g.metricNames = ["points"]
        let terminals: [StateGraph.Terminal] = [.win(seat: 1), .win(seat: 2), .draw]
        for i in 0..<n {
            g.terminal.append(nil)
            var targets: [Int32] = [Int32(min(i + 1, n - 1))]
            if i == n - 1 || Int.random(in: 0..<4, using: &rng) == 0 { targets.append(Int32(n + Int.random(in: 0..<3, using: &rng))) }
            for _ in 0..<Int.random(in: 0...3, using: &rng) { targets.append(Int32(Int.random(in: 0..<n, using: &rng))) }
            if i == n - 1 && targets[0] == Int32(i) { targets[0] = Int32(n) }
            var denominator: Int32 = 0
            for t in targets {
                let w = Int32.random(in: 1...6, using: &rng)
                g.edgeTarget.append(t)
                g.edgeWeight.append(w)
                g.edgeTurns.append(0)
                denominator += w
            }
            g.edgeStart.append(g.edgeTarget.count)
            g.denominator.append(denominator)
            g.rollsWeight.append(Int32.random(in: 0...denominator, using: &rng))
            g.turnsWeight.append(Int32.random(in: 0...1, using: &rng))
            if Bool.random(using: &rng) {
                g.metricEntries.append((metric: 0, weight: Int32.random(in: 1...denominator, using: &rng),
                                        value: Double(Int.random(in: -8...8, using: &rng)) / 4))
            }
            g.metricStart.append(g.metricEntries.count)
        }
        for t in terminals {
            g.terminal.append(t)
            g.edgeStart.append(g.edgeTarget.count)
            g.denominator.append(1)
            g.rollsWeight.append(0)
            g.turnsWeight.append(0)
            g.metricStart.append(g.metricEntries.count)
        }
        return g
    }

    /// The slow obvious solver: every transient position in one dense system of exact
    /// fractions, (I − P) x = b, by Gauss–Jordan, no components. The start's quantities in
    /// `ChainSolver`'s order (wins, draw, never, rolls, turns, points sum, points count).
    static func obvious(_ g: StateGraph, seats: Int) -> [Rational] {
        let transient = (0..<g.count).filter { g.terminal[$0] == nil }
        let n = transient.count, q = seats + 6
        var a = [[Rational]](repeating: [Rational](repeating: .zero, count: n), count: n)
        var b = [[Rational]](repeating: [Rational](repeating: .zero, count: q), count: n)
        for (i, s) in transient.enumerated() {
            a[i][i] = .one
            let d = Int(g.denominator[s])
            b[i][seats + 2] = Rational(Int(g.rollsWeight[s]), d)
            b[i][seats + 3] = Rational(Int(g.turnsWeight[s]), d)
            for e in g.metricStart[s]..<g.metricStart[s + 1] {
                let entry = g.metricEntries[e]
                b[i][seats + 4] = b[i][seats + 4] + Rational(Int(entry.weight), d) * Rational(exactly: entry.value)
                b[i][seats + 5] = b[i][seats + 5] + Rational(Int(entry.weight), d)
            }
            for e in g.edges(of: s) {
                let t = Int(g.edgeTarget[e]), p = Rational(Int(g.edgeWeight[e]), d)
                switch g.terminal[t] {
                case .win(let seat)?: b[i][seat - 1] = b[i][seat - 1] + p
                case .draw?: b[i][seats] = b[i][seats] + p
                case .loss?: break
                case nil: a[i][t] = a[i][t] - p
                }
            }
        }
        for col in 0..<n {
            guard let pivot = (col..<n).first(where: { !a[$0][col].isZero }) else { continue }
            a.swapAt(pivot, col); b.swapAt(pivot, col)
            let p = a[col][col]
            for c in 0..<n { a[col][c] = a[col][c] / p }
            for k in 0..<q { b[col][k] = b[col][k] / p }
            for r in 0..<n where r != col && !a[r][col].isZero {
                let f = a[r][col]
                for c in 0..<n { a[r][c] = a[r][c] - f * a[col][c] }
                for k in 0..<q { b[r][k] = b[r][k] - f * b[col][k] }
            }
        }
        return b[0]
    }

    @Test func sparseExactEliminationEqualsTheObviousSolverOnRandomChains() throws {
        // Up to 20 positions: the obvious solver's exact fractions grow fast with size (42
        // positions cost over a minute in a debug build), and fill-in and cycles show by 10.
        for seed in UInt64(1)...40 {
            let g = Self.randomGraph(transient: 3 + Int(seed % 18), seed: seed)
            let expected = Self.obvious(g, seats: 2)
            var sparse = ChainSolver<Rational>(graph: g, seats: 2)
            sparse.denseLimit = 0
            let solution = try sparse.solve()
            #expect(solution.start == expected, "seed \(seed)")
            #expect(solution.errorBound == 0)
            let dense = try ChainSolver<Rational>(graph: g, seats: 2).solve()
            #expect(dense.start == expected, "seed \(seed), dense")
        }
    }

    @Test func sparseDoublesLieWithinTheBoundTheyReport() throws {
        for seed in UInt64(100)...140 {
            let g = Self.randomGraph(transient: 3 + Int(seed % 20), seed: seed)
            let expected = Self.obvious(g, seats: 2)
            var sparse = ChainSolver<Double>(graph: g, seats: 2)
            sparse.denseLimit = 0
            let solution = try sparse.solve()
            #expect(solution.errorBound > 0 && solution.errorBound < 1e-9, "seed \(seed): bound \(solution.errorBound)")
            for (k, value) in expected.enumerated() {
                let error = abs(value.doubleValue - solution.start[k])
                // The exact value rounded to a double is itself off by half an ulp.
                #expect(error <= solution.errorBound + value.doubleValue.ulp, "seed \(seed), quantity \(k): off by \(error), bound \(solution.errorBound)")
            }
        }
    }

    @Test func aBoundTooSmallForItsResidualIsCaughtByTheCheck() throws {
        // The bound must be able to fail: a solution nudged by 1e-6 has a residual that says so.
        let successors: [[Int32: Double]] = [[1: 0.5], [0: 0.25]]
        let selfLoop = [0.0, 0.0]
        let rhs: [[Double]] = [[0.5, 1], [0.75, 1]]
        var x = try SparseEliminationHelper.solve(successors, selfLoop, rhs)
        let tight = try ChainSolver<Double>.bound(successors: successors, selfLoop: selfLoop, rhs: rhs, x: x, quantities: 1)
        #expect(tight < 1e-14)
        x[0][0] += 1e-6
        let loose = try ChainSolver<Double>.bound(successors: successors, selfLoop: selfLoop, rhs: rhs, x: x, quantities: 1)
        #expect(loose >= 1e-6)
    }

    enum SparseEliminationHelper {
        static func solve(_ s: [[Int32: Double]], _ l: [Double], _ r: [[Double]]) throws -> [[Double]] {
            var e = SparseElimination(successors: s, selfLoop: l, rhs: r)
            return try e.solve()
        }
    }

    @Test func exactEliminationStopsAtItsWorkLimitSayingSo() throws {
        let g = Self.randomGraph(transient: 200, seed: 7)
        var solver = ChainSolver<Rational>(graph: g, seats: 2)
        solver.workLimit = 10
        #expect(throws: SparseElimination<Rational>.OverBudget.self) { try solver.solve() }
    }

    /// A ladder: a 1 slides back a rung, a 2 or a 3 climbs two; reaching the top wins.
    /// Every rung leads to the others: one component of `size` positions. Three faces and a
    /// quick climb, not six and a slow one: each position is played once per face, and the
    /// rolls-per-game count moves the whole chain once per roll of the longest games (a
    /// debug build took a minute on the slow ladder). A ladder that loses ground on average
    /// would leave its bottom rungs with a chance below a double's precision.
    static let ladder = """
        local ladder = rules { name = "Ladder", players = 1, dice = "1d3", params = { size = 5000 } }
        function ladder.setup(g) g.state.at = 0 end
        function ladder.roll(g, p, r)
          local s = g.state
          if r.value == 1 then s.at = math.max(0, s.at - 1) else s.at = s.at + 2 end
          if s.at >= g.params.size then g:win(p) end
        end
        return ladder
        """

    @Test func aComponentOfFiveThousandPositionsIsSolvedNotRefused() throws {
        let file = try temporaryRules(Self.ladder, name: "ladder.lua")
        var options = Odds.Options()
        options.precision = .double
        let result = try Odds.analyse(rulesFile: file, options: options)
        #expect(result.largestComponent == 5000)
        #expect(!result.exact)
        #expect(result.errorBound > 0 && result.errorBound < 1e-6)
        #expect(abs(result.wins[0].double - 1) <= result.errorBound)
    }

    @Test func exactAndDoubleAgreeOnALargeComponentWithinTheBound() throws {
        let file = try temporaryRules(Self.ladder, name: "ladder.lua")
        var options = Odds.Options()
        options.params = [("size", "200")]
        options.precision = .exact
        let exact = try Odds.analyse(rulesFile: file, options: options)
        #expect(exact.largestComponent == 200)
        #expect(exact.exact)
        #expect(exact.wins[0].exact == Rational(1))
        options.precision = .double
        let doubles = try Odds.analyse(rulesFile: file, options: options)
        let rolls = try #require(exact.rolls?.exact?.doubleValue)
        #expect(abs((doubles.rolls?.double ?? 0) - rolls) <= doubles.errorBound + rolls.ulp)
    }
}
