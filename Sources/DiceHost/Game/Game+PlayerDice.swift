import Lua

/// How many dice a player rolls can change during a game (a Liar's Dice player who lost
/// two dice rolls three): a roll uses the player's `p.dice` when the rules set it (a
/// number of the declared dice, or dice notation), else `g.params.dice` as a hook last
/// left it, else the declared dice.
extension Game {
    func dice(forSeat seat: Int) throws -> DiceNotation {
        let name = playerNames.indices.contains(seat - 1) ? playerNames[seat - 1] : "the player"
        if let p = try playerValue(seat).tableRef {
            switch lua.get(p, "dice") {
            case .nil: break
            case .integer(let n):
                guard (0...Int64(DiceNotation.counts.upperBound)).contains(n) else {
                    throw GameError.refused("\(name).dice must be a number of dice from 0 to \(DiceNotation.counts.upperBound) or dice notation, got \(n)")
                }
                guard n > 0 else { throw GameError.refused("\(name) has no dice to roll") }
                return try notation(count: Int(n), of: rules.dice)
            case .string(let text):
                return try parsedNotation(text, field: "\(name).dice")
            case let other:
                throw GameError.refused("\(name).dice must be a number of dice or dice notation like \"3d6\", got \(other.typeName)")
            }
        }
        if case .table(let params) = lua.get(g, "params"), case .string(let text) = lua.get(params, "dice"), text != rules.dice.text {
            return try parsedNotation(text, field: "g.params.dice")
        }
        return rules.dice
    }

    /// `dice` with `count` dice: "5d6" with 3 is "3d6" (keep, explode and modifier kept).
    /// The notation's parser ignores whitespace, so the count is replaced in the text
    /// without it (" 3d6" with 2 is "2d6", not "2 3d6", which reads as 23 dice).
    func notation(count: Int, of dice: DiceNotation) throws -> DiceNotation {
        if count == dice.count { return dice }
        let rest = dice.text.filter { !$0.isWhitespace }.drop(while: { $0.isASCII && $0.isNumber })
        return try parsedNotation("\(count)" + rest, field: "the dice")
    }

    private func parsedNotation(_ text: String, field: String) throws -> DiceNotation {
        do { return try DiceNotation(String(text.prefix(200))) } catch {
            throw GameError.refused("\(field): \(error)")
        }
    }
}
