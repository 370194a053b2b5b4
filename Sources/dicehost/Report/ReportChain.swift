import DiceHost
import Foundation

/// The figures `report` computes itself over a `BestPlay.BotGraph`: each seat's chances
/// when every seat plays a given way (its bot, its best reply, a random legal move), how
/// often the bots reach each position, and games walked through the graph at random.
struct ReportChain {
    enum Play { case bot, best, random }

    let graph: BestPlay.BotGraph
    var seats: Int { graph.players.count }
    /// Per position: each seat's win chance, then a draw's.
    var width: Int { seats + 1 }

    struct Values {
        var values: [Double]
        var residual: Double
        var sweeps: Int
    }

    /// The legal moves a player chooses among at `s` (the bot's own extra moves left out).
    func legalMoves(_ s: Int) -> [Int] {
        (graph.moveStart[s]..<graph.moveStart[s + 1]).filter { !graph.botOnly.contains($0) }
    }

    /// The bot's move at `s`: its answer, else the first move (a game without a bot rolls).
    func botMove(_ s: Int) -> Int? {
        let m = Int(graph.botMove[s])
        if m >= 0 { return m }
        let range = graph.moveStart[s]..<graph.moveStart[s + 1]
        return range.first { graph.moveLabels[$0] == "roll" } ?? range.first
    }

    /// Each seat's chances from every position when seat k plays `play[k]`: Gauss–Seidel
    /// sweeps from the last position found, until no value moves by more than `tolerance`
    /// (or `deadline` passes: the residual says how far it got).
    func values(_ play: [Play], tolerance: Double = 1e-10, deadline: Date = .distantFuture) -> Values {
        let n = graph.count, w = width
        var v = [Double](repeating: 0, count: n * w)
        for s in 0..<n {
            if let o = graph.outcome[s] {
                if o >= 0 { v[s * w + o] = 1 } else if o == -1 { v[s * w + seats] = 1 }
            }
        }
        var candidate = [Double](repeating: 0, count: w), best = [Double](repeating: 0, count: w)
        var residual = Double.infinity, sweeps = 0
        while residual > tolerance && sweeps < 100_000 {
            residual = 0
            sweeps += 1
            for s in stride(from: n - 1, through: 0, by: -1) where graph.outcome[s] == nil {
                let me = Int(graph.decider[s])
                guard me >= 0, me < seats else { continue }
                for k in 0..<w { best[k] = 0 }
                switch play[me] {
                case .bot:
                    guard let m = botMove(s) else { continue }
                    accumulate(m, into: &best, v, scale: 1)
                case .random:
                    let moves = legalMoves(s)
                    let list = moves.isEmpty ? (botMove(s).map { [$0] } ?? []) : moves
                    guard !list.isEmpty else { continue }
                    for m in list { accumulate(m, into: &best, v, scale: 1 / Double(list.count)) }
                case .best:
                    var found = false
                    for m in legalMoves(s) {
                        for k in 0..<w { candidate[k] = 0 }
                        accumulate(m, into: &candidate, v, scale: 1)
                        if !found || candidate[me] > best[me] + 1e-15 { found = true; swap(&best, &candidate) }
                    }
                    guard found else { continue }
                }
                for k in 0..<w {
                    residual = max(residual, abs(best[k] - v[s * w + k]))
                    v[s * w + k] = best[k]
                }
            }
            if Date() > deadline { break }
        }
        return Values(values: v, residual: residual, sweeps: sweeps)
    }

    func accumulate(_ m: Int, into out: inout [Double], _ v: [Double], scale: Double) {
        let w = width
        for e in graph.edgeStart[m]..<graph.edgeStart[m + 1] {
            let t = Int(graph.edgeTarget[e]) * w, p = graph.edgeWeight[e] * scale
            for k in 0..<w { out[k] += p * v[t + k] }
        }
    }

    /// The value of move `m` to `seat`, when play goes on as `values` were computed.
    func moveValue(_ m: Int, seat: Int, _ values: [Double]) -> Double {
        var x = 0.0
        for e in graph.edgeStart[m]..<graph.edgeStart[m + 1] { x += graph.edgeWeight[e] * values[Int(graph.edgeTarget[e]) * width + seat] }
        return x
    }

    /// How many times the bots' games visit each position, on average (the start once).
    func visits(tolerance: Double = 1e-12, deadline: Date = .distantFuture) -> [Double] {
        let n = graph.count
        var inflow = [Double](repeating: 0, count: n)
        var visits = [Double](repeating: 0, count: n)
        // Visits satisfy x = e0 + Pᵀx; sweeps in the order positions were found.
        var change = Double.infinity, sweeps = 0
        while change > tolerance && sweeps < 100_000 {
            sweeps += 1
            change = 0
            for s in 0..<n { inflow[s] = s == 0 ? 1 : 0 }
            for s in 0..<n where graph.outcome[s] == nil {
                guard let m = botMove(s) else { continue }
                let x = visits[s]
                if x == 0 { continue }
                for e in graph.edgeStart[m]..<graph.edgeStart[m + 1] { inflow[Int(graph.edgeTarget[e])] += x * graph.edgeWeight[e] }
            }
            for s in 0..<n {
                change = max(change, abs(inflow[s] - visits[s]))
                visits[s] = inflow[s]
            }
            if Date() > deadline { break }
        }
        return visits
    }

    /// One game walked through the graph by the bots: the positions it passed, and the
    /// outcome it ended in (nil: cut at `moveLimit`).
    func walk(_ random: inout SplitMix64, moveLimit: Int) -> (path: [Int], outcome: Int?) {
        var s = 0, path = [0]
        while graph.outcome[s] == nil, path.count <= moveLimit {
            guard let m = botMove(s) else { return (path, nil) }
            let u = Double(random.next() >> 11) / Double(1 << 53)
            var acc = 0.0
            var next = Int(graph.edgeTarget[graph.edgeStart[m + 1] - 1])
            for e in graph.edgeStart[m]..<graph.edgeStart[m + 1] {
                acc += graph.edgeWeight[e]
                if u < acc { next = Int(graph.edgeTarget[e]); break }
            }
            s = next
            path.append(s)
        }
        return (path, graph.outcome[s])
    }
}
