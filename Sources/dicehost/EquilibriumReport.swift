import DiceHost
import Foundation

/// How `dicehost solve` shows the equilibrium of a game with secrets.
enum EquilibriumReport {
    static func text(_ r: Equilibrium.Result) -> String {
        var head = "\(r.rules) (\(r.rulesFile)), \(r.players.joined(separator: ", "))"
        if !r.params.isEmpty { head += ", " + r.params.joined(separator: " ") }
        let kind = r.players.count > 2 ? "an approximate equilibrium (more than two seats: see its NashConv)"
            : r.players.count == 1 ? "best play of a lone player who sees only their view" : "a Nash equilibrium"
        var lines = [head, "best play with secrets: \(kind) over what each seat has been shown"]
        lines.append(r.perfectRecall ? "information sets: each seat's views and the events it received since the start, and its own moves (perfect recall)"
                     : "information sets: each seat's view alone (the rules declare view_is_complete = true)")
        let sets = zip(r.players, r.informationSets).map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        lines.append("\(r.positions) positions, \(r.nodes) nodes of the game tree; information sets: \(sets)")
        if let note = SolveReport.statisticsNote(r.forgotStatistics) { lines.append(note) }
        let stop: String
        switch r.stoppedBy {
        case .exploitability: stop = "reached the target exploitability"
        case .interrupted: stop = "stopped by Ctrl-C"
        case .iterations: stop = "stopped at the iteration limit, NOT at the target exploitability: raise --iterations"
        }
        lines.append("CFR+: \(r.iterations) iterations, \(stop); "
                     + (r.strategy == .current ? "the strategy shown is its last iterate (less exploitable here than the average)" : "the strategy shown is its average"))
        lines.append(String(format: "explored in %.2f s, solved in %.2f s; memory: process %.1f MiB",
                            r.exploreSeconds, r.solveSeconds, Double(r.processMemoryPeak) / 1048576))
        lines.append("")
        lines.append("seat            win under the equilibrium   a best reply to the others gets")
        for (seat, name) in r.players.enumerated() {
            lines.append(OddsReport.pad(name, max(16, name.count + 1)) + OddsReport.pad(String(format: "%.6f", r.wins[seat]), 28)
                         + String(format: "%.6f", r.bestReplies[seat]))
        }
        if r.draw > 1e-12 { lines.append(OddsReport.pad("draw", 16) + String(format: "%.6f", r.draw) + (r.players.count == 2 ? " (counted half to each seat)" : "")) }
        if r.loss > 1e-12 { lines.append(OddsReport.pad("loses", 16) + String(format: "%.6f", r.loss)) }
        lines.append("")
        if let b = r.valueBracket {
            lines.append(String(format: "the game's value for %@ lies in [%.6f, %.6f]", r.players[0], b.lowerBound, b.upperBound))
        }
        lines.append(String(format: "exploitability %.2e (NashConv %.2e), in chances of winning", r.exploitability, r.nashConv))
        return lines.joined(separator: "\n")
    }

    static func json(_ r: Equilibrium.Result) -> String {
        var object: [String: Any] = [
            "rules": r.rules, "rulesFile": r.rulesFile, "players": r.players, "params": r.params, "secrets": true,
            "wins": Dictionary(uniqueKeysWithValues: zip(r.players, r.wins)), "winsBySeat": r.wins, "draw": r.draw, "loss": r.loss,
            "bestReplies": r.bestReplies, "nashConv": r.nashConv, "exploitability": r.exploitability,
            "perfectRecall": r.perfectRecall, "iterations": r.iterations, "stoppedBy": r.stoppedBy.rawValue, "strategy": r.strategy.rawValue,
            "positions": r.positions, "nodes": r.nodes, "forgotStatistics": r.forgotStatistics, "informationSets": r.informationSets,
            "exploreSeconds": r.exploreSeconds, "solveSeconds": r.solveSeconds, "processMemoryPeak": r.processMemoryPeak,
        ]
        if let b = r.valueBracket { object["valueBracket"] = [b.lowerBound, b.upperBound] }
        return JSONText.compact(object)
    }
}
