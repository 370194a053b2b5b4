import Foundation
import Lua

/// Explores a `MoveGraph` with a `StateExplorer`'s positions (its encoding, decoding and
/// snapshots): every legal move tried from a snapshot, as `odds` tries rolls.
final class MoveExplorer {
    let states: StateExplorer
    let game: Game
    let graph = MoveGraph()
    /// Whether to ask the rules' bot in every position (for `odds --vs solver`).
    var askBot = false
    /// The declared actions with each argument list to try.
    let actionMoves: [(name: String, arguments: [LuaValue], label: String)]

    init(states: StateExplorer, game: Game) {
        self.states = states
        self.game = game
        let lua = game.lua
        var list: [(String, [LuaValue], String)] = []
        let declared = lua.get(game.rulesTable, "choices")
        for action in game.rules.actions {
            if case .table(let table) = declared, case .table(let choices) = lua.get(table, .string(action)) {
                for value in lua.array(choices) {
                    switch value {
                    case .string, .integer, .number, .boolean: list.append((action, [value], "\(action) \(value.description)"))
                    default: continue  // only data can be a bot's answer
                    }
                }
            } else {
                list.append((action, [], action))
            }
        }
        actionMoves = list
    }

    func explore(progress: ((String) -> Void)?) throws -> MoveGraph {
        let lua = game.lua
        let started = lua.random.state
        lua.random.seed(game.seed)
        if started != lua.random.state {
            throw OddsError.notAnalysable("setup drew random numbers (math.random, dice.roll or cards.shuffle), so the starting position depends on the seed")
        }
        states.graph.droppedLastRoll = !states.keepLastRoll
        _ = try states.encodeCurrent()
        graph.terminal.append(states.graph.terminal[0])
        var next = 0
        var lastReport = DispatchTime.now().uptimeNanoseconds
        while next < graph.count {
            do { try expand(next) } catch let error as OddsError {
                if !states.keepLastRoll && states.watch.observed(lua: lua) { throw LastRollObserved() }
                throw error
            }
            next += 1
            states.explored = next
            if next & 255 == 0 {
                let now = DispatchTime.now().uptimeNanoseconds
                if now - lastReport > 200_000_000 {
                    progress?(try states.budget.check(explored: next, found: graph.count))
                    lastReport = now
                }
            }
        }
        return graph
    }

    /// The position the game is in, added to the graph if new.
    func current() throws -> Int32 {
        let (index, isNew) = try states.encodeCurrent()
        if isNew {
            graph.terminal.append(states.graph.terminal[index])
        }
        return Int32(index)
    }

    /// Whether an error is the rules refusing the move (not legal here): an input the
    /// host refuses, or an error raised with level 0 (no file and line).
    static func isRefusal(_ error: Error) -> Bool {
        switch error {
        case GameError.refused: return true
        case GameError.script(let lua): return lua.kind == .runtime && lua.file == nil
        default: return false
        }
    }

    func expand(_ index: Int) throws {
        defer { graph.moveStart.append(graph.moves.count) }
        guard graph.terminal[index] == nil else { graph.decider.append(-1); graph.botMove.append(-1); return }
        // Keeping dice is made from the last roll: positions must hold it.
        if game.rules.keepsDice && !states.keepLastRoll { throw LastRollObserved() }
        try states.restore(index)
        let seat: Int
        do { seat = try game.seat(of: nil) } catch { throw OddsError.ruleError("\(error)") }
        graph.decider.append(Int32(seat - 1))
        let name = game.playerName(seat: seat)
        let snapshot: [LuaValue]
        do { snapshot = try game.lua.call(game.api.snapshot, [.table(game.g)], budget: .some(nil)) } catch {
            throw OddsError.internal("copying position \(index + 1): \(error)")
        }
        var fresh = true
        func reset() throws {
            if !fresh { try states.restore(index, from: snapshot) }
            fresh = false
        }
        // The bot's choice (asked only when measuring it: `askBot`), which must leave the
        // position as it was.
        var botChoice: LuaValue?
        if askBot, case .function = game.hooks.bot {
            fresh = false
            do {
                botChoice = try game.withInputBudget { try game.askBot(seat: seat) }
            } catch { throw OddsError.ruleError("bot(g, \(name)): \(error)") }
            try states.checkRandom("the bot")
            let (after, _) = try states.encodeCurrent()
            if after != index { throw OddsError.notAnalysable("the bot changed the game when asked what \(name) does (a bot must only choose)") }
        }
        let firstMove = graph.moves.count
        // Roll: a chance node over every outcome of the player's dice (none: no roll move).
        var hasDice = true
        do { _ = try game.dice(forSeat: seat) } catch {
            guard Self.isRefusal(error) else { throw OddsError.ruleError("\(error)") }
            hasDice = false
        }
        if hasDice {
            try addChanceMove(BestPlay.Move(label: "roll", action: nil, arguments: []), outcomes: try states.rollOutcomes(seat: seat),
                              index: index, name: name, describe: { "\(name) rolling \($0)" }, reset: reset) { try game.roll(values: $0) }
        }
        // Keeping each subset of the last roll's dice, where the rules keep dice.
        if game.rules.keepsDice, let dice = try? game.dice(forSeat: seat), (try? game.lastRollValues(seat: seat, dice: dice)) != nil {
            for subset in 0..<(1 << dice.count) {
                let positions = (1...dice.count).filter { subset & (1 << ($0 - 1)) != 0 }
                try addKeepMove(positions, dice: dice, index: index, name: name, reset: reset)
            }
        }
        // Every declared action with each declared choice.
        for move in actionMoves {
            try reset()
            do { try game.withInputBudget { try game.act(move.name, arguments: move.arguments) } } catch {
                if Self.isRefusal(error) { continue }
                throw OddsError.ruleError("\(name)'s move \(move.label): \(error)")
            }
            try states.checkRandom("\(name)'s move \(move.label)")
            let t = try current()
            let answer = move.arguments.isEmpty ? Self.luaQuoted(move.name)
                : "{" + ([Self.luaQuoted(move.name)] + move.arguments.map(Self.luaLiteral)).joined(separator: ", ") + "}"
            graph.moves.append(BestPlay.Move(label: move.label, action: move.name, arguments: move.arguments.map(\.description), botAnswer: answer))
            graph.edgeTarget.append(t)
            graph.edgeWeight.append(1)
            graph.edgeStart.append(graph.edgeTarget.count)
        }
        graph.botMove.append(-1)
        guard let botChoice else { return }
        let label = Self.label(of: botChoice, lua: game.lua)
        if let found = (firstMove..<graph.moves.count).first(where: { graph.moves[$0].label == label }) {
            graph.botMove[index] = Int32(found)
            return
        }
        // A move the declared ones do not list: made as the bot makes it.
        if let positions = try states.keptPositions(botChoice, name: name) {
            guard states.keepLastRoll else { throw LastRollObserved() }
            let dice: DiceNotation
            do { dice = try game.dice(forSeat: seat) } catch { throw OddsError.ruleError("\(error)") }
            let before = graph.moves.count
            try addKeepMove(positions, dice: dice, index: index, name: name, reset: reset, refusalIsAnError: true)
            graph.botOnly.insert(before)
            graph.botMove[index] = Int32(before)
            return
        }
        try reset()
        do { try game.withInputBudget { try game.perform(botChoice: botChoice) } } catch {
            throw OddsError.ruleError("\(name)'s bot move \(label): \(error)")
        }
        try states.checkRandom("\(name)'s bot move \(label)")
        let t = try current()
        graph.botOnly.insert(graph.moves.count)
        graph.botMove[index] = Int32(graph.moves.count)
        graph.moves.append(BestPlay.Move(label: label, action: nil, arguments: []))
        graph.edgeTarget.append(t)
        graph.edgeWeight.append(1)
        graph.edgeStart.append(graph.edgeTarget.count)
    }

    /// `roll keep ...` of `positions` as a move when the rules take it: a chance node over
    /// the dice not kept (a refusal makes it no move, or an error for a bot's own choice).
    func addKeepMove(_ positions: [Int], dice: DiceNotation, index: Int, name: String, reset: () throws -> Void,
                     refusalIsAnError: Bool = false) throws {
        let label = (["roll keep"] + positions.map(String.init)).joined(separator: " ")
        let answer = "{\"roll\", keep = {" + positions.map(String.init).joined(separator: ", ") + "}}"
        let outcomes = RollOutcomes(sides: dice.sides, count: max(0, dice.count - Set(positions).count), unordered: false)
        try addChanceMove(BestPlay.Move(label: label, action: nil, arguments: [], botAnswer: answer), outcomes: outcomes,
                          index: index, name: name, describe: { "\(name) \(label) = \($0)" }, reset: reset,
                          refusalIsAnError: refusalIsAnError) { values in
            try game.withInputBudget { try game.roll(keeping: positions, rolled: values) }
        }
    }

    /// A move that is a chance node: `play` each outcome from the position (`reset` puts
    /// it back), an edge per target weighted out of the outcomes' total. Returns false, and
    /// adds no move, when the rules refuse it (unless `refusalIsAnError`).
    @discardableResult
    func addChanceMove(_ move: BestPlay.Move, outcomes: RollOutcomes, index: Int, name: String, describe: (String) -> String,
                       reset: () throws -> Void, refusalIsAnError: Bool = false, play: ([Int]) throws -> Void) throws -> Bool {
        var weights: [Int32: Int] = [:]
        var order: [Int32] = []
        var shuffled: (values: [Int], target: Int32)?
        for (i, values) in outcomes.values.enumerated() {
            try reset()
            do { try play(values) } catch {
                if Self.isRefusal(error) && !refusalIsAnError { return false }
                throw OddsError.ruleError("\(describe(values.map(String.init).joined(separator: " "))): \(error)")
            }
            try states.checkRandom("the roll hook (or a turn hook after it) for \(name)")
            let t = try current()
            if weights[t] == nil { order.append(t) }
            weights[t, default: 0] += Int(outcomes.weights[i])
            if outcomes.unordered, shuffled == nil, Set(values).count > 1 { shuffled = (values, t) }
        }
        if index % StateExplorer.repeatEvery == 0, let (values, target) = shuffled {
            try states.checkOrderDoesNotMatter(values, reached: target, reset: reset, play: play, describe: describe)
        }
        graph.moves.append(move)
        for t in order {
            graph.edgeTarget.append(t)
            graph.edgeWeight.append(Double(weights[t] ?? 0) / Double(outcomes.total))
        }
        graph.edgeStart.append(graph.edgeTarget.count)
        return true
    }

    static func luaQuoted(_ text: String) -> String {
        var out = "\""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): out += "\\\\"
            case UInt8(ascii: "\""): out += "\\\""
            case 32..<127: out.append(Character(Unicode.Scalar(byte)))
            default: out += String(format: "\\%03d", byte)
            }
        }
        return out + "\""
    }

    static func luaLiteral(_ value: LuaValue) -> String {
        switch value {
        case .string(let s): return luaQuoted(s)
        case .integer(let i): return String(i)
        case .number(let d): return d.isFinite ? String(format: "%.17g", d) : "0/0"
        case .boolean(let b): return b ? "true" : "false"
        default: return "nil"
        }
    }

    /// The best move of every decision position as a Lua module: keys from
    /// `dicehost-policy.lua` (a bot's view of the data), so a bot can look its move up.
    func policyModule(choice: [Int32], heading: String, chances: String) throws -> String {
        let lua = game.lua
        let source = String(decoding: PackageResources.dicehost_policy_lua, as: UTF8.self)
        let keepsDice = game.rules.keepsDice
        let keyFunction = try lua.call(.function(try lua.load(source, chunkName: "dicehost-policy")), [.boolean(keepsDice)],
                                       budget: .some(nil)).first ?? .nil
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
        var lines = ["-- Best play for \(heading), written by `dicehost solve --policy`.",
                     "-- Each seat's chance when every seat plays best: \(chances).",
                     "-- A bot that plays it: local best = require(\"<this file's name>\")",
                     "--                      function game.bot(g, p) return best.move(g, p) end",
                     "-- move(g, p) is nil (roll) in a position best play never reaches.",
                     "local key = (function(...)", source, "end)(\(keepsDice))",
                     "local answers = {" + answers.joined(separator: ", ") + "}",
                     "local best = {"]
        for key in order { lines.append("[" + Self.luaQuoted(key) + "]=" + String(best[key] ?? 1) + ",") }
        lines += ["}", "local M = {key = key}",
                  "function M.move(g, p)", "  local i = best[key(g)]", "  if i then return answers[i] end", "end",
                  "return M", ""]
        return lines.joined(separator: "\n")
    }

    /// A bot's answer as a move label: "roll", "hold", "bet 5".
    static func label(of choice: LuaValue, lua: LuaState) -> String {
        switch choice {
        case .nil: return "roll"
        case .string(let s): return s
        case .table(let t):
            let words = lua.array(t).map { if case .string(let s) = $0 { return s } else { return $0.description } }
            if words == ["roll"], case .table(let keep) = lua.get(t, "keep") {
                return (["roll keep"] + lua.array(keep).map(\.description)).joined(separator: " ")
            }
            return words.joined(separator: " ")
        default: return choice.description
        }
    }
}
