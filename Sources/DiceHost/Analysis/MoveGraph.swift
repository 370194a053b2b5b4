import Foundation

/// Every position reachable by legal moves, with its moves: for each move its targets
/// and weights out of a denominator (sides^dice for a roll, 1 for an action).
final class MoveGraph {
    /// Per position: nil while transient; who decides there (seat - 1, -1 when terminal).
    var terminal: [StateGraph.Terminal?] = []
    var decider: [Int32] = []
    /// Per position, its moves are moveStart[i]..<moveStart[i + 1] (indices into moves).
    var moveStart: [Int] = [0]
    var moves: [BestPlay.Move] = []
    /// Per move, its edges are edgeStart[m]..<edgeStart[m + 1].
    var edgeStart: [Int] = [0]
    var edgeTarget: [Int32] = []
    var edgeWeight: [Double] = []
    /// Per position, the move the rules' bot makes there (-1: none, or not asked).
    var botMove: [Int32] = []
    /// Moves only a bot makes (its choice is not among the declared moves): never chosen
    /// by best play.
    var botOnly: Set<Int> = []

    var count: Int { terminal.count }
    var decisions: Int { decider.filter { $0 >= 0 }.count }

    struct Solution {
        /// Per position: each seat's win probability, then the draw probability, then the
        /// probability that a lone player loses.
        var values: [Double]
        /// Per position, its best move (an index into `moves`), -1 where none.
        var choice: [Int32]
        var residual: Double
        var sweeps: Int
    }

    /// Value iteration: Gauss–Seidel sweeps from the last position found to the first.
    /// Seats in `botSeats` make their bot's move, seats in `policySeats` the move
    /// `policyMove` gives (per position); every other seat its best reply.
    func iterate(seats: Int, tolerance: Double, maxSweeps: Int, botSeats: Set<Int> = [],
                 policySeats: Set<Int> = [], policyMove: [Int32] = [],
                 progress: ((Int, Double) -> Void)?) -> Solution {
        let width = seats + 2
        let n = count
        var values = [Double](repeating: 0, count: n * width)
        var choice = [Int32](repeating: -1, count: n)
        for s in 0..<n {
            switch terminal[s] {
            case .win(let seat)?: values[s * width + seat - 1] = 1
            case .draw?: values[s * width + seats] = 1
            case .loss?: values[s * width + seats + 1] = 1
            default: break
            }
        }
        var residual = Double.infinity
        var sweeps = 0
        var best = [Double](repeating: 0, count: width)
        var candidate = [Double](repeating: 0, count: width)
        var lastReport = DispatchTime.now().uptimeNanoseconds
        while residual > tolerance && sweeps < maxSweeps {
            residual = 0
            sweeps += 1
            for s in stride(from: n - 1, through: 0, by: -1) where terminal[s] == nil {
                let me = Int(decider[s])
                var bestMove: Int32 = -1
                let forced = botSeats.contains(me) ? Int(botMove[s]) : policySeats.contains(me) ? Int(policyMove[s]) : -1
                let range = forced >= 0 ? forced..<forced + 1 : moveStart[s]..<moveStart[s + 1]
                for m in range where forced >= 0 || !botOnly.contains(m) {
                    for k in 0..<width { candidate[k] = 0 }
                    for e in edgeStart[m]..<edgeStart[m + 1] {
                        let t = Int(edgeTarget[e]) * width, w = edgeWeight[e]
                        for k in 0..<width { candidate[k] += w * values[t + k] }
                    }
                    // Strictly better only: ties keep the first legal move (roll first).
                    if bestMove < 0 || candidate[me] > best[me] + 1e-15 {
                        bestMove = Int32(m)
                        swap(&best, &candidate)
                    }
                }
                guard bestMove >= 0 else { continue }
                choice[s] = bestMove
                for k in 0..<width {
                    residual = max(residual, abs(best[k] - values[s * width + k]))
                    values[s * width + k] = best[k]
                }
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if now - lastReport > 200_000_000 { progress?(sweeps, residual); lastReport = now }
        }
        return Solution(values: values, choice: choice, residual: residual, sweeps: sweeps)
    }
}
