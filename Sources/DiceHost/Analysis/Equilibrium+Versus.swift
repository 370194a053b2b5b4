import Foundation

/// `odds --vs solver` in a game with secrets: the rules' bot in each seat against a best
/// reply that knows only what its own seat is shown.
extension Equilibrium {
    /// One of the bot's information sets where a different move would gain the most.
    public struct Costly: Sendable {
        /// What the bot's seat sees there (its view, one field a line).
        public var view: [String]
        public var botMove: String
        public var betterMove: String
        /// The chance of winning the bot gives away there (weighted by how often the
        /// game reaches it against the best reply).
        public var loss: Double
    }

    static func versus(explorer: MoveExplorer, options: BestPlay.Options, started: UInt64,
                       progress: ((String) -> Void)?) throws -> BestPlay.Versus {
        let game = explorer.game, graph = explorer.graph
        let seats = game.playerNames.count
        guard seats == 2 else {
            throw OddsError.notAnalysable("with secrets, --vs solver sets the bot against one best reply: two players only (this table has \(seats))")
        }
        guard case .function = game.hooks.bot else { throw OddsError.notAnalysable("the rules have no bot to measure") }
        let tree = try tree(of: explorer, options: options)
        let equilibrium = run(tree, options: options.equilibrium, progress: progress)
        let best = Array(InformationSetBestReply.outcomes(tree, strategy: equilibrium.strategy)[0..<seats])
        let botAction = try botActions(explorer: explorer, tree: tree)
        var rows: [[Double]] = []
        var costliest: [[Costly]] = []
        for botSeat in 0..<seats {
            var strategy = equilibrium.strategy
            for i in 0..<tree.infosetCount where Int(tree.infosetPlayer[i]) == botSeat {
                let start = Int(tree.infosetStart[i])
                for k in 0..<Int(tree.infosetActions[i]) { strategy[start + k] = k == botAction[i] ? 1 : 0 }
            }
            let other = 1 - botSeat
            let reply = InformationSetBestReply.reply(tree, strategy: strategy, seat: other)
            for i in 0..<tree.infosetCount where Int(tree.infosetPlayer[i]) == other {
                let start = Int(tree.infosetStart[i])
                for k in 0..<Int(tree.infosetActions[i]) { strategy[start + k] = Int32(k) == reply.choice[i] ? 1 : 0 }
            }
            rows.append(Array(InformationSetBestReply.outcomes(tree, strategy: strategy)[0..<seats]))
            costliest.append(options.explains ? try costly(explorer: explorer, tree: tree, strategy: strategy, seat: botSeat) : [])
        }
        return BestPlay.Versus(players: game.playerNames, botInSeat: rows, best: best, states: graph.count,
                               residual: equilibrium.nashConv / Double(seats), tolerance: options.equilibrium.exploitability,
                               seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9,
                               withSecrets: true, exploitability: equilibrium.nashConv / Double(seats), costliest: costliest)
    }

    /// The rules' bot as a strategy: its move (an action index) in each information set,
    /// the same in every node of a set (a fair bot decides from its view).
    static func botActions(explorer: MoveExplorer, tree: InformationSetTree) throws -> [Int] {
        let game = explorer.game, graph = explorer.graph
        var botAction = [Int](repeating: -1, count: tree.infosetCount)
        for n in 0..<tree.count where tree.player[n] >= 0 {
            let i = Int(tree.infoset[n]), first = Int(tree.actionStart[n])
            let name = game.playerName(seat: Int(tree.player[n]) + 1)
            let bot = graph.botMove[Int(tree.position[n])]
            guard bot >= 0, let a = (first..<Int(tree.actionStart[n + 1])).first(where: { tree.move[$0] == bot }) else {
                let label = bot >= 0 ? graph.moves[Int(bot)].label : "nothing"
                throw OddsError.notAnalysable("\(name)'s bot plays \(label) where it is not among the listed moves; list it in choices")
            }
            if botAction[i] < 0 {
                botAction[i] = a - first
            } else if botAction[i] != a - first {
                throw OddsError.notAnalysable("\(name)'s bot moves differently in two positions its seat cannot tell apart")
            }
        }
        return botAction
    }

    /// The bot's information sets where changing its move alone gains the most.
    static func costly(explorer: MoveExplorer, tree: InformationSetTree, strategy: [Double], seat: Int,
                       count: Int = 5) throws -> [Costly] {
        let values = InformationSetBestReply.counterfactualValues(tree, strategy: strategy, seat: seat)
        var found: [(i: Int, gain: Double, better: Int, played: Int)] = []
        for i in 0..<tree.infosetCount where Int(tree.infosetPlayer[i]) == seat {
            let start = Int(tree.infosetStart[i])
            var best = 0, played = 0
            for k in 0..<Int(tree.infosetActions[i]) {
                if values.actions[start + k] > values.actions[start + best] { best = k }
                if strategy[start + k] == 1 { played = k }
            }
            let gain = values.actions[start + best] - values.played[i]
            if gain > 1e-9 { found.append((i, gain, best, played)) }
        }
        found.sort { $0.gain > $1.gain }
        let game = explorer.game
        return try found.prefix(count).map { entry in
            let n = Int(tree.infosetNode[entry.i])
            try explorer.states.restore(Int(tree.position[n]))
            let view = (try? game.viewLines(for: game.playerName(seat: seat + 1))) ?? []
            func label(_ k: Int) -> String { explorer.graph.moves[Int(tree.move[Int(tree.actionStart[n]) + k])].label }
            return Costly(view: view, botMove: label(entry.played), betterMove: label(entry.better), loss: entry.gain)
        }
    }
}
