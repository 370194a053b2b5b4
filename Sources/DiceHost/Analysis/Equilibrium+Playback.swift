import Foundation
import Lua

/// `odds --vs FILE.lua` in a game with secrets: an equilibrium module (as `solve --policy`
/// writes it) played back exactly. Each seat's information sets are looked up in the
/// module by that seat's view, as a bot given its view looks them up, and played with the
/// module's probabilities (its `chances(v)`), not sampled: every seat playing the module
/// gives solve's value within its exploitability; a seat playing it against the rules'
/// bot in the others shows what the equilibrium gains on the bot.
extension Equilibrium {
    static func playback(explorer: MoveExplorer, policyFile: String, options: BestPlay.Options,
                         botPlays: Bool, started: UInt64) throws -> PolicyVersus {
        let game = explorer.game
        let seats = game.playerNames.count
        let tree = try tree(of: explorer, options: options)
        let chances = try explorer.policyFunction(file: policyFile, named: "chances", signature: "chances(v)")
        let policy = try explorer.moduleStrategy(chances, tree: tree, file: policyFile)
        var botStrategy: [Double]?
        if botPlays {
            let botAction = try botActions(explorer: explorer, tree: tree)
            var pure = [Double](repeating: 0, count: policy.count)
            for i in 0..<tree.infosetCount where botAction[i] >= 0 { pure[Int(tree.infosetStart[i]) + botAction[i]] = 1 }
            botStrategy = pure
        }
        func outcome(policySeats: Set<Int>) throws -> [Double] {
            var strategy = policy
            if policySeats.count < seats {
                guard let bot = botStrategy else { throw OddsError.notAnalysable("the rules have no bot to play the seats the policy does not") }
                for i in 0..<tree.infosetCount where !policySeats.contains(Int(tree.infosetPlayer[i])) {
                    let start = Int(tree.infosetStart[i])
                    for k in 0..<Int(tree.infosetActions[i]) { strategy[start + k] = bot[start + k] }
                }
            }
            return Array(InformationSetBestReply.outcomes(tree, strategy: strategy)[0..<seats])
        }
        let all = Set(0..<seats)
        let everywhere = try outcome(policySeats: all)
        let rows = botStrategy == nil ? [] : try (0..<seats).map { try outcome(policySeats: [$0]) }
        let bots = botStrategy == nil ? [] : try outcome(policySeats: [])
        return PolicyVersus(players: game.playerNames, policyFile: policyFile, policyInSeat: rows, botOnly: bots,
                            policyEverywhere: everywhere, withSecrets: true, states: explorer.graph.count, residual: 0,
                            tolerance: 0, seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
    }
}

extension MoveExplorer {
    /// The module's probabilities as a strategy over the tree's actions: per information
    /// set, `chances(view)` of its seat's view, each move matched to a legal one.
    func moduleStrategy(_ chances: LuaValue, tree: InformationSetTree, file: String) throws -> [Double] {
        let lua = game.lua
        var strategy = [Double](repeating: 0, count: tree.strategySize)
        for i in 0..<tree.infosetCount {
            let node = Int(tree.infosetNode[i])
            let seat = Int(tree.infosetPlayer[i]) + 1
            let name = game.playerName(seat: seat)
            try states.restore(Int(tree.position[node]))
            let answer: [LuaValue]
            do {
                let view = try game.withInputBudget { try game.viewValue(for: name) }
                answer = try lua.call(chances, [view])
            } catch {
                throw PolicyError(file: file, problem: "chances(v) for \(name)'s view failed: \(error)")
            }
            let actionBase = Int(tree.actionStart[node]), count = Int(tree.infosetActions[i]), start = Int(tree.infosetStart[i])
            let legal = (0..<count).map { graph.moves[Int(tree.move[actionBase + $0])].label }
            guard answer.count >= 2, case .table(let moves) = answer[0], case .table(let weights) = answer[1] else {
                throw PolicyError(file: file, problem: "it has no move for a view of \(name) the game reaches (legal there: "
                                  + "\(legal.joined(separator: ", "))); was it written for other rules or params?")
            }
            let listed = lua.array(moves), p = lua.array(weights)
            guard listed.count == p.count else { throw PolicyError(file: file, problem: "chances(v) gave \(listed.count) moves and \(p.count) probabilities") }
            var total = 0.0
            for (move, weight) in zip(listed, p) {
                let label = Self.label(of: move, lua: lua)
                guard let k = legal.firstIndex(of: label) else {
                    throw PolicyError(file: file, problem: "chances(v) for \(name) lists '\(label)', which is not a legal move there "
                                      + "(legal: \(legal.joined(separator: ", "))); was it written for other rules or params?")
                }
                guard let x = weight.doubleValue, x.isFinite, x >= 0, x <= 1 else {
                    throw PolicyError(file: file, problem: "chances(v) for \(name) gives '\(label)' the probability \(weight), expected a number from 0 to 1")
                }
                strategy[start + k] += x
                total += x
            }
            guard abs(total - 1) <= 1e-6 else {
                throw PolicyError(file: file, problem: String(format: "chances(v) for %@ sums to %.9f, not 1", name, total))
            }
            for k in 0..<count { strategy[start + k] /= total }
        }
        return strategy
    }
}
