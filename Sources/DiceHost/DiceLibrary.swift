import Lua

/// The host half of `dice.roll(notation)` (the prelude makes the printable roll table).
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
        ]
    }
}
