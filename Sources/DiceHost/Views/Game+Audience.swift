import Lua

/// Who an event is for: `g:tell(p, ...)`, `g:emit(name, data, to)` name a player or a
/// list of players; `g:reveal(p [, r])` shows a secret roll to everyone.
extension Game {
    /// The names of the player (or list of players) at `index`; nil when absent (everyone).
    func audienceArgument(_ call: LuaCall, _ index: Int, function: String) throws -> [String]? {
        let value = call.value(index)
        guard !value.isNil else { return nil }
        let position = function == "tell" ? 1 : 3
        func fail() -> LuaCall.Failure {
            .message("bad argument #\(position) to '\(function)' (player or list of players expected, got \(call.typeName(index)))")
        }
        guard case .table(let t) = value else { throw fail() }
        if let seat = seat(ofPlayerTable: t) { return [playerName(seat: seat)] }
        let items = lua.array(t)
        guard !items.isEmpty, items.count <= playerNames.count, lua.length(t) == items.count else { throw fail() }
        var names: [String] = []
        for item in items {
            guard case .table(let p) = item, let seat = seat(ofPlayerTable: p) else { throw fail() }
            let name = playerName(seat: seat)
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The seat of a player table of this game, or nil for any other table.
    func seat(ofPlayerTable t: LuaRef) -> Int? {
        guard let seat = lua.get(t, "seat").intValue, (1...playerNames.count).contains(seat),
              (try? playerValue(seat)) == .table(t) else { return nil }
        return seat
    }

    /// The largest die value `g:reveal` shows.
    static let maxRevealedValue = 1_000_000

    /// `g:reveal(p, r)`'s roll: r (a roll, or a list of values), else the player's last roll.
    func revealedRoll(_ call: LuaCall, _ index: Int) throws -> Roll {
        var source = call.value(index)
        if source.isNil, case .table(let p) = call.value(1) { source = lua.get(p, "last_roll") }
        func fail() -> LuaCall.Failure {
            .message("bad argument #2 to 'reveal' (a roll or a list of die values expected, got \(source.typeName))")
        }
        guard case .table(let t) = source else { throw fail() }
        var list = t
        if case .table(let values) = lua.get(t, "values") { list = values }
        let items = lua.array(list).prefix(DiceNotation.counts.upperBound + 1)
        guard items.count <= DiceNotation.counts.upperBound else { throw fail() }
        var values: [Int] = []
        for item in items {
            guard let v = item.intValue, (1...Self.maxRevealedValue).contains(v) else { throw fail() }
            values.append(v)
        }
        let total = lua.get(t, "total").intValue ?? values.reduce(0, +)
        return Roll(values: values, total: total)
    }
}
