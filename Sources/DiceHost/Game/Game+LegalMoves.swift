import Lua

/// The argument lists a player may give an action, as the rules declare them: one
/// enumeration that best play (`solve`, `odds --vs solver`), the prompt's tab completion
/// and rule fuzzing all read.
///
///     rules.choices = {
///       ante = {5, 10, 25},                         -- one argument
///       bid = {{1, 2}, {1, 3}, {2, 2}},             -- several: argument tuples
///       announce = function(g, p) return {...} end, -- a function of the position
///     }
///
/// An action without choices takes no arguments when its function declares none beyond
/// `(g, p)`; otherwise its moves cannot be listed (`ActionArguments.notListed`), and an
/// analysis refuses the game rather than miss them. A listed move may still be refused
/// by the action itself (`error(msg, 0)`): listing is "worth trying", the action decides.
extension Game {
    public enum ActionArguments: Equatable {
        /// Fixed lists (an action without arguments: one empty list).
        case lists([[LuaValue]])
        /// `choices.action` is a function of the position.
        case perPosition
        /// The action takes these parameters and declares no choices.
        case notListed(parameters: [String], isVararg: Bool)
    }

    /// How the rules declare `action`'s arguments (nothing runs).
    public func declaredArguments(of action: String) throws -> ActionArguments {
        if rules.positionalChoices.contains(action) { return .perPosition }
        if case .table(let table) = lua.get(rulesTable, "choices"), case .table = lua.get(table, .string(action)) {
            return .lists(try argumentLists(lua.get(table, .string(action)), action: action))
        }
        guard case .table(let actions) = lua.get(rulesTable, "actions") else { return .lists([[]]) }
        let function = lua.get(actions, .string(action))
        guard let parameters = lua.parameters(of: function) else { return .lists([[]]) }
        let extra = Array(parameters.names.dropFirst(2))
        if extra.isEmpty && !parameters.isVararg { return .lists([[]]) }
        return .notListed(parameters: extra, isVararg: parameters.isVararg)
    }

    /// The argument lists `action` may take from `seat` in the current position (a
    /// function of the position is called as `choices.action(g, p)`). Runs the function
    /// under the caller's budget and leaves the game to the caller to put back.
    func listedArguments(of action: String, seat: Int) throws -> [[LuaValue]] {
        switch try declaredArguments(of: action) {
        case .lists(let lists): return lists
        case .notListed(let parameters, let isVararg):
            throw GameError.refused(Self.notListedMessage(action: action, parameters: parameters, isVararg: isVararg))
        case .perPosition:
            guard case .table(let table) = lua.get(rulesTable, "choices") else { return [] }
            syncClock()
            let result: [LuaValue]
            do {
                result = try lookingAs("choices.\(action)", "a choices function") {
                try lua.call(lua.get(table, .string(action)), [.table(g), try playerValue(seat)])
            }
            } catch let error as LuaError {
                throw GameError.script(error)
            }
            return try argumentLists(result.first ?? .nil, action: action)
        }
    }

    /// The argument lists of `action` for `player` (default: whose turn it is) now, the
    /// game left exactly as it was (for tab completion and front ends).
    public func legalArguments(of action: String, by player: String? = nil) throws -> [[LuaValue]] {
        let seat = try self.seat(of: player)
        return try leavingUnchanged(restoringLua: true) {
            try withInputBudget { try listedArguments(of: action, seat: seat) }
        }
    }

    /// The argument lists of several actions for `player` now, each as `legalArguments(of:by:)`
    /// gives it (its own input budget, the host state put back between them, a failure
    /// only that action's), the game left exactly as it was: one look at a read-only game
    /// for them all (a `choices` function that writes fails, naming the field).
    public func legalArguments(of actions: [String], by player: String? = nil) throws -> [Result<[[LuaValue]], any Error>] {
        let seat = try self.seat(of: player)
        return leavingUnchanged(restoringLua: true) {
            actions.map { action in
                leavingUnchanged(restoringLua: false) {
                    Result { try withInputBudget { try listedArguments(of: action, seat: seat) } }
                }
            }
        }
    }

    static func notListedMessage(action: String, parameters: [String], isVararg: Bool) -> String {
        let takes = (parameters + (isVararg ? ["..."] : [])).joined(separator: ", ")
        return "the moves of action '\(action)' cannot be listed: it takes arguments (\(takes)) and the rules declare no choices for it; "
            + "declare them, e.g. rules.choices = { \(action) = {{1, 2}, {1, 3}} } (argument tuples) or "
            + "{ \(action) = function(g, p) return {{1, 2}} end } (the lists legal in a position)"
    }

    /// A choices list: plain values (one argument each) or tuples (several).
    func argumentLists(_ value: LuaValue, action: String) throws -> [[LuaValue]] {
        guard case .table(let list) = value else {
            throw GameError.refused("choices.\(action) must give a list of argument values or tuples, got \(value.typeName)")
        }
        let items = lua.array(list)
        guard items.count <= Self.maxListedMoves else {
            throw GameError.refused("choices.\(action) lists \(items.count) moves; at most \(Self.maxListedMoves) are followed")
        }
        return try items.map { item in
            switch item {
            case .string, .integer, .number, .boolean: return [item]
            case .table(let tuple):
                return try lua.array(tuple).map { part in
                    switch part {
                    case .string, .integer, .number, .boolean: return part
                    default: throw GameError.refused("choices.\(action): an argument tuple holds a \(part.typeName); only strings, numbers and booleans are arguments")
                    }
                }
            default:
                throw GameError.refused("choices.\(action): a move is a value or a tuple of values, got \(item.typeName)")
            }
        }
    }

    static let maxListedMoves = 10_000
}
