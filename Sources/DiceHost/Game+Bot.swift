import Lua

extension Game {
    /// Asks the rules' `bot(g, p)` what the current player does and does it: "roll"
    /// rolls the declared dice; any other string is an action; a table
    /// `{"ante", 25}` is an action with arguments. Without a bot, the player rolls.
    public func playBotMove() throws {
        let bot = hooks.bot
        guard case .function = bot else { return try roll() }
        let seat = try self.seat(of: nil)
        let choice: [LuaValue]
        do { choice = try lua.call(bot, [.table(g), try playerValue(seat)]) } catch let error as LuaError { throw GameError.script(error) }
        switch choice.first ?? .nil {
        case .nil, .string("roll"): try roll()
        case .string(let action): try act(action)
        case .table(let t):
            let parts = lua.array(t)
            guard case .string(let action)? = parts.first else { throw GameError.refused("bot returned a table without an action name") }
            if action == "roll" { let values = parts.dropFirst().compactMap(\.intValue); try roll(values: values.isEmpty ? nil : values) } else { try act(action, arguments: Array(parts.dropFirst())) }
        case let other:
            throw GameError.refused("bot must return \"roll\", an action name or {action, args...}, got \(other.typeName)")
        }
    }
}
