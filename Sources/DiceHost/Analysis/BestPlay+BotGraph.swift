import Foundation
import Lua

extension BestPlay {
    /// Every position legal moves reach, each move with where it leads, and the move the
    /// rules' bot makes in each: a read-only copy of the graph `solve` and `odds --vs
    /// solver` work on, for tools that compute their own figures over it (`dicehost
    /// report`: the bots against a random player, the cost of each bot move).
    ///
    /// Positions are numbered from 0 (the start). A game with a view is explored as if
    /// every seat saw everything: its values peek at hidden cups (`hasView` says so).
    public final class BotGraph {
        public let players: [String]
        /// Per position: the winning seat (0-based) of a won game, -1 a draw, -2 a lone
        /// player's loss, nil while the game goes on.
        public let outcome: [Int?]
        /// Per position, the seat (0-based) that moves there; -1 where the game is over.
        public let decider: [Int32]
        /// Per position, its moves are moveStart[i]..<moveStart[i + 1].
        public let moveStart: [Int]
        /// Per move, its label ("roll", "hold", "bid 2 5").
        public let moveLabels: [String]
        /// Moves only the bot makes (not among the declared ones).
        public let botOnly: Set<Int>
        /// Per move, its edges are edgeStart[m]..<edgeStart[m + 1]; weights sum to 1.
        public let edgeStart: [Int]
        public let edgeTarget: [Int32]
        public let edgeWeight: [Double]
        /// Per position, the move the bot makes (-1: no bot, or the game is over).
        public let botMove: [Int32]
        /// The bot draws random numbers (a bluff), so it has no one move per position.
        public let botDrawsRandom: Bool
        /// The rules have a view: positions hold what some seats do not see.
        public let hasView: Bool
        private let explorer: MoveExplorer

        init(explorer: MoveExplorer) {
            let graph = explorer.graph
            players = explorer.game.playerNames
            outcome = graph.terminal.map { terminal in
                switch terminal {
                case .win(let seat)?: return seat - 1
                case .draw?: return -1
                case .loss?: return -2
                case nil: return nil
                }
            }
            decider = graph.decider
            moveStart = graph.moveStart
            moveLabels = graph.moves.map(\.label)
            botOnly = graph.botOnly
            edgeStart = graph.edgeStart
            edgeTarget = graph.edgeTarget
            edgeWeight = graph.edgeWeight
            botMove = graph.botMove
            botDrawsRandom = explorer.botDrawsRandom
            hasView = explorer.game.hasView
            self.explorer = explorer
        }

        public var count: Int { outcome.count }

        /// A position's data fields as `solve --explain` reads them ("state.turn_total=4",
        /// "me.score=12", "opponent.score=7"), sorted.
        public func fields(of position: Int) throws -> [String] {
            guard (0..<count).contains(position) else { return [] }
            let lua = explorer.game.lua
            let source = String(decoding: PackageResources.dicehost_explain_lua, as: UTF8.self)
            let function = try lua.call(.function(try lua.load(source, chunkName: "dicehost-explain")), [], budget: .some(nil)).first ?? .nil
            try explorer.states.restore(position)
            guard case .table(let list)? = try lua.call(function, [.table(explorer.game.g)], budget: .some(nil)).first else { return [] }
            return lua.array(list).compactMap { if case .string(let s) = $0 { return s } else { return nil } }
        }
    }

    /// Explores every position legal moves reach, asking the rules' bot in each (as `odds
    /// --vs solver` does; a bot that bluffs is noted, not refused).
    public static func botGraph(rulesFile: String, options: Options = Options(),
                                progress: ((String) -> Void)? = nil) throws -> BotGraph {
        let (explorer, _) = try explore(rulesFile: rulesFile, options: options, askBot: true, toleratesDrawingBot: true, progress: progress)
        return BotGraph(explorer: explorer)
    }
}
