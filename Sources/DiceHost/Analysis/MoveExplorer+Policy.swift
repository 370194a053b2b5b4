import Foundation
import Lua

/// Best play written as Lua modules a bot can `require`: the best move per position of a
/// game where everyone sees everything, or the equilibrium of a game with secrets keyed by
/// what a seat sees.
extension MoveExplorer {
    /// `rules.statistics` for the key function: a Lua list, and as module source text.
    var statisticsList: LuaValue { .table(game.lua.makeTable(array: game.rules.statistics.map { .string($0) })) }
    var statisticsLiteral: String { "{" + game.rules.statistics.map(Self.luaQuoted).joined(separator: ", ") + "}" }

    /// The best move of every decision position as a Lua module: keys from
    /// `dicehost-policy.lua` (a bot's view of the data), so a bot can look its move up.
    func policyModule(choice: [Int32], heading: String, chances: String) throws -> String {
        let lua = game.lua
        let source = String(decoding: PackageResources.dicehost_policy_lua, as: UTF8.self)
        let keepsDice = game.rules.keepsDice
        let keyFunction = try lua.call(.function(try lua.load(source, chunkName: "dicehost-policy")),
                                       [.boolean(keepsDice), .boolean(false), statisticsList], budget: .some(nil)).first ?? .nil
        var answers: [String] = []
        var answerIndex: [String: Int] = [:]
        var best: [String: Int] = [:]
        var order: [String] = []
        for s in 0..<graph.count where graph.terminal[s] == nil && choice[s] >= 0 {
            try states.restore(s)
            guard case .string(let key)? = try lua.call(keyFunction, [.table(game.g)], budget: .some(nil)).first else {
                throw OddsError.internal("the policy key of position \(s + 1)")
            }
            let move = graph.moves[Int(choice[s])]
            if graph.botOnly.contains(Int(choice[s])) { continue }
            let answer = move.botAnswer
            let n: Int
            if let known = answerIndex[answer] { n = known } else { answers.append(answer); n = answers.count; answerIndex[answer] = n }
            if let other = best[key] {
                if other != n {
                    throw OddsError.notAnalysable("two positions a bot cannot tell apart from g.state and the players' fields "
                        + "(they differ in metatables, timers or last rolls) have different best moves: the policy cannot be written as a module")
                }
            } else {
                best[key] = n
                order.append(key)
            }
        }
        var lines = [PolicyFileHeader(kind: .bestPlay).line,
                     "-- Best play for \(heading), written by `dicehost solve --policy`.",
                     "-- Each seat's chance when every seat plays best: \(chances).",
                     "-- A bot that plays it: local best = require(\"<this file's name>\")",
                     "--                      function game.bot(g, p) return best.move(g, p) end",
                     "-- move(g, p) is nil (roll) in a position best play never reaches.",
                     "local key = (function(...)", source, "end)(\(keepsDice), false, \(statisticsLiteral))",
                     "local answers = {" + answers.joined(separator: ", ") + "}",
                     "local best = {"]
        for key in order { lines.append("[" + Self.luaQuoted(key) + "]=" + String(best[key] ?? 1) + ",") }
        lines += ["}", "local M = {key = key}",
                  "function M.move(g, p)", "  local i = best[key(g)]", "  if i then return answers[i] end", "end",
                  "return M", ""]
        return lines.joined(separator: "\n")
    }


    /// The equilibrium of a game with secrets as a Lua module a bot requires: per view
    /// (what a seat sees, keyed by `dicehost-policy.lua`'s view key), its moves and their
    /// probabilities, drawn with the game's seeded generator so games stay reproducible.
    /// Refused when two information sets that look the same to the bot (the same view)
    /// are played differently: a bot is given its view alone.
    func equilibriumPolicyModule(tree: InformationSetTree, strategy: [Double], rulesFile: String,
                                 params: [(String, String)], wins: [Double]) throws -> String {
        let lua = game.lua
        let source = String(decoding: PackageResources.dicehost_policy_lua, as: UTF8.self)
        let keyFunction = try lua.call(.function(try lua.load(source, chunkName: "dicehost-policy")),
                                       [.boolean(false), .boolean(true), statisticsList], budget: .some(nil)).first ?? .nil
        var entries: [String: (moves: [String], p: [Double])] = [:]
        var order: [String] = []
        for i in 0..<tree.infosetCount {
            let node = Int(tree.infosetNode[i])
            let position = Int(tree.position[node]), seat = Int(tree.infosetPlayer[i])
            try states.restore(position)
            let view: LuaValue
            do { view = try game.withInputBudget { try game.viewValue(for: game.playerName(seat: seat + 1)) } } catch {
                throw OddsError.ruleError("view(g, \(game.playerName(seat: seat + 1))): \(error)")
            }
            guard case .string(let key)? = try lua.call(keyFunction, [view], budget: .some(nil)).first else {
                throw OddsError.internal("the policy key of information set \(i + 1)")
            }
            let start = Int(tree.infosetStart[i]), count = Int(tree.infosetActions[i])
            let actionBase = Int(tree.actionStart[node])
            let moves = (0..<count).map { graph.moves[Int(tree.move[actionBase + $0])].botAnswer }
            let p = (0..<count).map { strategy[start + $0] }
            if let known = entries[key] {
                if known.moves != moves || zip(known.p, p).contains(where: { abs($0 - $1) > 1e-6 }) {
                    throw OddsError.notAnalysable("two information sets of \(game.playerName(seat: seat + 1)) look the same in the view "
                        + "but are played differently, so a bot given its view cannot play the equilibrium: show in the view what the seat "
                        + "was told earlier (then declare view_is_complete = true)")
                }
            } else {
                entries[key] = (moves, p)
                order.append(key)
            }
        }
        var heading = "\(game.rules.name) (\(rulesFile))"
        if !params.isEmpty { heading += ", " + params.map { "\($0.0)=\($0.1)" }.joined(separator: " ") }
        let chances = zip(game.playerNames, wins).map { String(format: "%@ %.6f", $0.0, $0.1) }.joined(separator: ", ")
        var lines = [PolicyFileHeader(kind: .equilibrium).line,
                     "-- Best play for \(heading), written by `dicehost solve --policy`: an equilibrium over what each seat sees.",
                     "-- Each seat's chance when every seat plays it: \(chances).",
                     "-- A bot that plays it: local best = require(\"<this file's name>\")",
                     "--                      function game.bot(v, p) return best.move(v, p) end",
                     "-- move(v, p) draws a move with the game's generator; nil (roll) in a view the equilibrium never reaches.",
                     "local key = (function(...)", source, "end)(false, true, \(statisticsLiteral))",
                     "local policy = {"]
        for key in order {
            guard let entry = entries[key] else { continue }
            lines.append("[" + Self.luaQuoted(key) + "]={{" + entry.moves.joined(separator: ", ") + "}, {"
                         + entry.p.map { String(format: "%.17g", $0) }.joined(separator: ", ") + "}},")
        }
        lines += ["}", "local M = {key = key}",
                  "function M.move(v, p)",
                  "  local entry = policy[key(v)]",
                  "  if not entry then return nil end",
                  "  local moves, chances = entry[1], entry[2]",
                  "  local x, last = math.random(), nil",
                  "  for i = 1, #moves do",
                  "    if chances[i] > 0 then",
                  "      last = moves[i]",
                  "      x = x - chances[i]",
                  "      if x < 0 then return moves[i] end",
                  "    end",
                  "  end",
                  "  return last",
                  "end",
                  "-- chances(v): the moves of a view and their probabilities (`odds --vs` plays them exactly).",
                  "function M.chances(v)",
                  "  local entry = policy[key(v)]",
                  "  if entry then return entry[1], entry[2] end",
                  "end",
                  "return M", ""]
        return lines.joined(separator: "\n")
    }
}
