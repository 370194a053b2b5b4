import Lua

/// `dice.roll(notation)` and `dice.glyph(n)`: rolls drawn from the game's generator.
extension Game {
    func diceFunctions() -> [(String, LuaFunctionBody)] {
        [
            ("values", { [unowned self] call in
                let notation: DiceNotation
                do { notation = try DiceNotation(try call.string(1)) } catch let error as DiceNotation.ParseError {
                    throw LuaCall.Failure.argument(1, error.description)
                }
                let values = notation.roll { self.lua.random.integer(in: $0) }
                let total = notation.kept(values).reduce(0, +) + notation.modifier
                return call.push([.table(lua.makeTable(array: values.map { .integer(Int64($0)) })), .integer(Int64(total))])
            }),
        ]
    }

    /// dice.roll wraps dice.values into a printable roll table (Lua side, no bridge cost).
    func installDiceRoll(into dice: LuaRef, makeRoll: LuaValue) {
        guard let chunk = try? lua.load("""
            local values, make_roll = ...
            return function(notation)
              local v, total = values(notation)
              return make_roll(v, total, "ok")
            end
            """, chunkName: "dicehost-dice"),
            let roll = try? lua.call(.function(chunk), [lua.get(dice, "values"), makeRoll], budget: .some(nil)).first
        else { return }
        lua.set(dice, "roll", roll)
    }
}
