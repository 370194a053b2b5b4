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
        let n = graph.count, w = width, seats = self.seats
        var v = [Double](repeating: 0, count: n * w)
        for s in 0..<n {
            if let o = graph.outcome[s] {
                if o >= 0 { v[s * w + o] = 1 } else if o == -1 { v[s * w + seats] = 1 }
            }
        }
        // Per position the moves weighed and how: the moves of a fixed play (the bot's one
        // move, every legal move at equal odds) are averaged, a best reply's compared.
        var moveList: [Int32] = [], listStart: [Int] = [0], maximises: [Bool] = []
        for s in 0..<n {
            let me = Int(graph.decider[s])
            var list: [Int] = []
            var best = false
            if graph.outcome[s] == nil, me >= 0, me < seats {
                switch play[me] {
                case .bot: list = botMove(s).map { [$0] } ?? []
                case .random: list = legalMoves(s); if list.isEmpty { list = botMove(s).map { [$0] } ?? [] }
                case .best: list = legalMoves(s); best = true
                }
            }
            moveList += list.map(Int32.init)
            listStart.append(moveList.count)
            maximises.append(best)
        }
        var residual = Double.infinity, sweeps = 0
        graph.edgeStart.withUnsafeBufferPointer { edgeStart in
        graph.edgeTarget.withUnsafeBufferPointer { edgeTarget in
        graph.edgeWeight.withUnsafeBufferPointer { edgeWeight in
        graph.decider.withUnsafeBufferPointer { decider in
        moveList.withUnsafeBufferPointer { moves in
        v.withUnsafeMutableBufferPointer { v in
            let candidate = UnsafeMutablePointer<Double>.allocate(capacity: w), total = UnsafeMutablePointer<Double>.allocate(capacity: w)
            defer { candidate.deallocate(); total.deallocate() }
            while residual > tolerance && sweeps < 100_000 {
                residual = 0
                sweeps += 1
                var s = n - 1
                while s >= 0 {
                    defer { s -= 1 }
                    let first = listStart[s], last = listStart[s + 1]
                    if first == last { continue }
                    let me = Int(decider[s])
                    let count = Double(last - first)
                    var found = false
                    for k in 0..<w { total[k] = 0 }
                    for i in first..<last {
                        let m = Int(moves[i])
                        for k in 0..<w { candidate[k] = 0 }
                        var e = edgeStart[m]
                        let end = edgeStart[m + 1]
                        while e < end {
                            let t = Int(edgeTarget[e]) * w, p = edgeWeight[e]
                            for k in 0..<w { candidate[k] += p * v[t + k] }
                            e += 1
                        }
                        if maximises[s] {
                            if !found || candidate[me] > total[me] + 1e-15 { found = true; for k in 0..<w { total[k] = candidate[k] } }
                        } else {
                            for k in 0..<w { total[k] += candidate[k] / count }
                        }
                    }
                    for k in 0..<w {
                        let d = abs(total[k] - v[s * w + k])
                        if d > residual { residual = d }
                        v[s * w + k] = total[k]
                    }
                }
                if Date() > deadline { break }
            }
        }}}}}}
        return Values(values: v, residual: residual, sweeps: sweeps)
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
