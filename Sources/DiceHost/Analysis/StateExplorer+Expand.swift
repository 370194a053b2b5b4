import Foundation
import Lua

/// Expanding a position: the bot's move, and a chance node for a roll (every outcome of
/// the roller's dice) or a kept roll (every outcome of the dice rolled again).
extension StateExplorer {
    func expand(_ index: Int) throws {
        do { try expandPosition(index) } catch let error as OddsError {
            // A hook that failed after looking into a stand-in failed because of it.
            if !keepLastRoll && watch.observed(lua: game.lua) { throw LastRollObserved() }
            throw error
        }
    }

    func expandPosition(_ index: Int) throws {
        defer {
            graph.edgeStart.append(graph.edgeTarget.count)
            graph.metricStart.append(graph.metricEntries.count)
        }
        graph.rollsWeight.append(0)
        graph.turnsWeight.append(0)
        guard graph.terminal[index] == nil else { graph.denominator.append(1); return }
        try restore(index)
        let seat: Int
        do { seat = try game.seat(of: nil) } catch { throw OddsError.ruleError("\(error)") }
        let name = game.playerName(seat: seat)
        // The bot's choice, which must leave the position as it was.
        var choice: LuaValue = .string("roll")
        if case .function = game.hooks.bot {
            do {
                choice = try timed("bot") { try game.withInputBudget { try game.askBot(seat: seat) ?? .nil } }
            } catch { throw OddsError.ruleError("bot(g, \(name)): \(error)") }
            try checkRandom("the bot")
            let (after, _) = try encodeCurrent()
            if after != index {
                throw OddsError.notAnalysable("the bot changed the game when asked what \(name) does (a bot must only choose)")
            }
        }
        let rolls: Bool
        switch choice {
        case .nil, .string("roll"): rolls = true
        default: rolls = false
        }
        if !rolls, let keep = try keptPositions(choice, name: name) {
            // A kept roll is a chance node over the dice not kept, made from the last roll.
            guard keepLastRoll else { throw LastRollObserved() }
            let dice: DiceNotation
            do { dice = try game.dice(forSeat: seat) } catch { throw OddsError.ruleError("\(error)") }
            let rerolled = max(0, dice.count - Set(keep).count)
            let keptText = keep.map(String.init).joined(separator: " ")
            // Every outcome is played from this same position: what the first checked
            // (seat, dice, the last roll) holds for the rest.
            var checkedKeep: Game.CheckedKeep?
            // Under unordered_dice each set of values rolled again is played once, weighted by
            // its orders (as a first roll is, and as `solve` plays keeps).
            try chance(index, name: name, outcomes: keptRollOutcomes(sides: dice.sides, count: rerolled),
                       describe: { "\(name) keeping \(keptText.isEmpty ? "none" : keptText) and rolling \($0)" }) { values in
                try game.roll(keeping: keep, rolled: values, checked: &checkedKeep)
            }
            return
        }
        if !rolls {
            graph.denominator.append(1)
            do { try game.withInputBudget { try game.perform(botChoice: choice) } } catch {
                throw OddsError.ruleError("\(name)'s bot move \(Self.describe(choice)): \(error)")
            }
            try checkRandom("\(name)'s bot move \(Self.describe(choice))")
            stepEffects(weight: 1)
            let (target, _) = try encodeCurrent()
            graph.edgeTarget.append(Int32(target))
            graph.edgeWeight.append(1)
            graph.edgeTurns.append(UInt8(clamping: game.host.turns))
            return
        }
        var checked: Game.CheckedRoll?
        try chance(index, name: name, outcomes: try rollOutcomes(seat: seat), describe: { "\(name) rolling \($0)" }) { values in
            try game.roll(values: values, checked: &checked)
        }
    }

    /// The positions a bot's `{"roll", keep = {...}}` keeps; nil for any other move.
    func keptPositions(_ choice: LuaValue, name: String) throws -> [Int]? {
        guard case .table(let table) = choice, game.lua.array(table).first == .string("roll"),
              case .table(let keep) = game.lua.get(table, "keep") else { return nil }
        do { return try game.botKeep(game.lua.array(keep)) } catch {
            throw OddsError.ruleError("\(name)'s bot move {\"roll\", keep = ...}: \(error)")
        }
    }

    /// A chance node: `play` each outcome (equally likely) from position `index`, an edge
    /// per target and turns begun.
    func chance(_ index: Int, name: String, outcomes: RollOutcomes, describe: (String) -> String, play: ([Int]) throws -> Void) throws {
        graph.denominator.append(outcomes.total)
        // Keyed by target and the turns begun on the way (see `edgeTurns`).
        var weights: [Int64: Int32] = [:]
        var order: [Int64] = []
        var first: Int32 = -1
        let snapshot = try self.snapshot("position \(index + 1)")
        func text(_ values: [Int]) -> String { describe(values.map(String.init).joined(separator: " ")) }
        // With unordered dice, an outcome's values in another order must reach the same
        // position (checked below on a sample); its first such outcome and target.
        var shuffled: (values: [Int], target: Int32)?
        for (i, values) in outcomes.values.enumerated() {
            if i > 0 { try restore(index, from: snapshot) }
            do { try timed("roll") { try play(values) } } catch {
                throw OddsError.ruleError("\(text(values)): \(error)")
            }
            try checkRandom("the roll hook (or a turn hook after it) for \(name)")
            // An outcome stands for every order its values come in (unordered dice): what
            // it did counts that many times, as its edge does.
            stepEffects(weight: outcomes.weights[i])
            let (target, _) = try encodeCurrent()
            let t = Int32(target)
            let key = Int64(t) << 8 | Int64(UInt8(clamping: game.host.turns))
            if weights[key] == nil { order.append(key) }
            weights[key, default: 0] += outcomes.weights[i]
            if i == 0 { first = t }
            if outcomes.unordered, shuffled == nil, Set(values).count > 1 { shuffled = (values, t) }
        }
        if index % Self.repeatEvery == 0, let (values, target) = shuffled {
            try checkOrderDoesNotMatter(values, reached: target, reset: { try restore(index, from: snapshot) }, play: play, describe: describe)
        }
        // Every few positions the first roll is played again, twice, from the same
        // position: a script that keeps something outside g (a global, an upvalue, e.g.
        // the last value rolled) tends to answer differently, where a position could
        // not tell. (A sample, not a proof: see docs/scripting.md.)
        if index % Self.repeatEvery == 0, let values = outcomes.values.first {
            for _ in 0..<2 {
                try restore(index, from: snapshot)
                do { try play(values) } catch {
                    throw OddsError.notAnalysable("\(text(values)) failed when played again "
                        + "from the same position (\(error)): the rules keep state outside g (a script global or upvalue)")
                }
                let (again, _) = try encodeCurrent()
                if Int32(again) != first {
                    throw OddsError.notAnalysable("the roll hook (or a turn hook after it) for \(name) gave a different result when played again "
                        + "from the same position with the same roll: the rules keep state outside g (a script global or upvalue) or read something else outside the game")
                }
            }
        }
        var edges = RepeatedRollCounter.Edges()
        for key in order {
            let weight = weights[key] ?? 0
            graph.edgeTarget.append(Int32(truncatingIfNeeded: key >> 8))
            graph.edgeWeight.append(weight)
            graph.edgeTurns.append(UInt8(truncatingIfNeeded: key & 0xFF))
            edges.add(UInt64(bitPattern: key))
            edges.add(UInt64(UInt32(bitPattern: weight)))
        }
        graph.repeatedRolls.note(edges, played: outcomes.values.count)
    }

    /// Rules that declare `unordered_dice` promise a roll's order never matters: the values
    /// that reached `target`, played again in reverse from the same position (`reset`),
    /// must reach it too (a sample every few positions, in `odds` and `solve`).
    func checkOrderDoesNotMatter(_ values: [Int], reached target: Int32, reset: () throws -> Void,
                                 play: ([Int]) throws -> Void, describe: (String) -> String) throws {
        try reset()
        let reversed = Array(values.reversed())
        func text(_ values: [Int]) -> String { describe(values.map(String.init).joined(separator: " ")) }
        do { try play(reversed) } catch {
            throw OddsError.notAnalysable("the rules declare unordered_dice, but \(text(values)) and \(text(reversed)) do not end alike (\(error))")
        }
        let (other, _) = try encodeCurrent()
        if Int32(other) != target {
            throw OddsError.notAnalysable("the rules declare unordered_dice, but \(text(values)) and \(text(reversed)) reach different positions "
                + "(the script keeps the dice in the order rolled, or reads r.value, the first die rolled: "
                + "keep a sorted copy of r.values and read only that, or drop unordered_dice)")
        }
    }

    static func describe(_ choice: LuaValue) -> String {
        if case .string(let s) = choice { return "'\(s)'" }
        return choice.typeName
    }
}
