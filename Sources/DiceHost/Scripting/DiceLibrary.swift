import Lua

/// The host half of `dice.roll(notation)` (the prelude makes the printable roll table)
/// and all of `dice.distribution(notation)`.
extension Game {
    func diceFunctions() -> [(String, LuaFunctionBody)] {
        [
            ("dice_values", { [unowned self] call in
                let notation: DiceNotation
                do { notation = try DiceNotation(try call.string(1)) } catch let error as DiceNotation.ParseError {
                    // Named as the script calls it, not as the prelude does.
                    throw LuaCall.Failure.message("bad argument #1 to 'roll' (\(error))")
                }
                let values = notation.roll { self.lua.random.integer(in: $0) }
                return call.push([.table(lua.makeTable(array: values.map { .integer(Int64($0)) })),
                                  .integer(Int64(notation.total(of: values)))])
            }),
            // dice.distribution(notation) -> {[total] = probability}: the exact distribution
            // (exploding dice to the default depth), charged to the input's budget by the
            // work it takes and refused beyond `DiceDistribution.scriptWorkLimit`.
            ("dice_distribution", { [unowned self] call in
                let notation: DiceNotation
                do { notation = try DiceNotation(try call.string(1)) } catch let error as DiceNotation.ParseError {
                    throw LuaCall.Failure.message("bad argument #1 to 'distribution' (\(error))")
                }
                let depth = notation.exploding ? DiceDistribution.defaultDepth(sides: notation.sides) : nil
                let estimate = DiceDistribution.workEstimate(notation, depth: depth)
                guard estimate <= DiceDistribution.scriptWorkLimit else {
                    throw LuaCall.Failure.message("bad argument #1 to 'distribution' (\(notation.text) is too much work for a script: "
                        + "about \(estimate) steps, at most \(DiceDistribution.scriptWorkLimit); fewer dice, fewer sides or a smaller keep count, "
                        + "or `dicehost dice` outside the game)")
                }
                try lua.charge(estimate)
                let distribution = try DiceDistribution(notation, depth: depth, workLimit: DiceDistribution.scriptWorkLimit)
                let table = lua.newTable()
                for outcome in distribution.outcomes {
                    lua.set(table, .integer(Int64(outcome.total)), .number(DiceDistribution.ratio(outcome.count, distribution.denominator)))
                }
                return call.push(.table(table))
            }),
        ]
    }

    /// Adds `distribution` to the scripts' `dice` table (the prelude makes the rest of it).
    func installDiceDistribution(hostTable: LuaRef, exports: LuaRef) {
        guard case .table(let dice) = lua.get(exports, "dice") else { return }
        lua.set(dice, "distribution", lua.get(hostTable, "dice_distribution"))
    }
}
