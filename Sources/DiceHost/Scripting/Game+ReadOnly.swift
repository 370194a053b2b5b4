import Lua

/// Once a rule script has loaded, its rule table, its globals and the libraries are
/// read-only (DESIGN.md, invariant 5): a hook that tries to replace an action, set a
/// global or patch `string` gets an error saying game data belongs in `g`, so rolling
/// back `g` undoes everything a failed input did, and reload and replay start clean.
extension Game {
    /// The rule table's fields that are tables of the rules (not data of the game).
    static let frozenRuleFields = ["actions", "params", "anytime", "while_out", "choices"]

    /// Freezes the libraries and the global table (called once the libraries are in).
    /// Returns the table that now holds the `led` library's fields, which the fast
    /// simulation driver swaps functions in.
    func freezeGlobals(led: LuaRef) -> LuaRef {
        let globals = lua.globals
        for (key, value) in lua.entries(globals) {
            guard case .string(let name) = key, case .table(let library) = value, name != "_G" else { continue }
            lua.freeze(library, as: "the '\(name)' library")
        }
        lua.freeze(globals, as: "the global table")
        return lua.freeze(led, as: "the 'led' library")
    }

    /// Freezes a rule table just loaded (and the rule tables it extends) and returns the
    /// table that holds its fields, which the host reads.
    func freezeRules(_ table: LuaRef) -> LuaRef {
        var seen: [LuaRef] = []
        func freeze(_ table: LuaRef) {
            guard !seen.contains(table), !lua.isFrozen(.table(table)) else { return }
            seen.append(table)
            for field in Self.frozenRuleFields {
                if case .table(let inner) = lua.get(table, .string(field)) { lua.freeze(inner, as: "the rule table's \(field)") }
            }
            if case .table(let base) = lua.get(table, "base") { freeze(base) }
            lua.freeze(table, as: "the rule table")
        }
        freeze(table)
        return lua.freeze(table, as: "the rule table")
    }
}
