import CLua
import CLuaSupport

/// Read-only tables: once a rule script has loaded, its rule table, its globals and the
/// libraries cannot change (a write raises an error saying where game data belongs), so
/// rolling back the tables under `g` undoes everything a failed input did.
extension LuaState {
    /// Makes `table` read-only for scripts and returns the table that holds its fields
    /// from now on (the host reads and writes through either; scripts keep `table`).
    /// `what` names it in the error a write raises ("the rule table"). Freezing a frozen
    /// table returns the same backing table.
    @discardableResult
    public func freeze(_ table: LuaRef, as what: String) -> LuaRef {
        guard lua_checkstack(L, 12) != 0 else { return table }
        clua_getref(L, table.reference)
        defer { clua_pop(L, 2) }
        clua_freeze(L, -1, what)
        return makeRef(at: -1)
    }

    /// Whether `value` is a table made read-only with `freeze`.
    public func isFrozen(_ value: LuaValue) -> Bool {
        guard case .table(let table) = value else { return false }
        clua_getref(L, table.reference)
        defer { clua_pop(L, 1) }
        guard clua_push_backing(L, -1) != 0 else { return false }
        clua_pop(L, 1)
        return true
    }

    /// Runs `body` (a script loading) with frozen tables taking writes: a script
    /// defines its globals and fills its rule table while it loads, and again on reload.
    public func whileLoading<T>(_ body: () throws -> T) rethrows -> T {
        clua_set_loading(L, 1)
        defer { clua_set_loading(L, 0) }
        return try body()
    }
}
