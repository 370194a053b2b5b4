import CLua
import CLuaSupport

/// Looks: host work that reads the game and must not change it (a view, a table, the
/// moves listed in a position, a status line) runs its hooks on read-only stand-ins of
/// the game's tables. A stand-in reads through to its table, gives the tables it reaches
/// as stand-ins too, and raises at once on any write, naming the field
/// (`view hook wrote g.state.round: ...`). Nothing is copied or compared: a look costs
/// what its hooks read. The host's own reads and writes see through a stand-in.
extension LuaState {
    /// Whether a look is under way.
    public var isLooking: Bool { clua_in_look(L) != 0 }

    /// Runs `body` as a look. A look inside a look is the same look.
    public func look<T>(_ body: () throws -> T) rethrows -> T {
        if isLooking { return try body() }
        clua_begin_look(L)
        defer { clua_end_look(L) }
        return try body()
    }

    /// Names what looks now, for the error a write raises: `hook` ("view hook") and what
    /// it is ("a view"): "view hook wrote g.state.round: a view must not change the game".
    /// Nil names any look.
    public func setLookRole(hook: String?, role: String?) {
        clua_set_look_role(L, hook, role)
    }

    /// The read-only stand-in of `table` during a look, named `name` in errors ("g");
    /// `table` itself outside one.
    public func readOnly(_ table: LuaRef, as name: String) -> LuaRef {
        guard lua_checkstack(L, 10) != 0 else { return table }
        clua_getref(L, table.reference)
        clua_push_look_root(L, -1, name)
        defer { clua_pop(L, 2) }
        return makeRef(at: -1)
    }

    /// `readOnly(_:as:)` of a value: tables become stand-ins, other values stay.
    public func readOnly(_ value: LuaValue, as name: String) -> LuaValue {
        guard case .table(let table) = value else { return value }
        return .table(readOnly(table, as: name))
    }

    /// What a script reading `proxy[key]` gets: a stand-in for a table.
    public func readOnlyField(_ proxy: LuaRef, _ key: LuaValue) -> LuaValue {
        guard lua_checkstack(L, 10) != 0 else { return .nil }
        clua_getref(L, proxy.reference)
        push(key)
        clua_push_look_field(L, -2, -1)
        defer { clua_pop(L, 3) }
        return value(at: -1)
    }

    /// The real table of a stand-in, or the table itself.
    public func seenThrough(_ table: LuaRef) -> LuaRef {
        guard lua_checkstack(L, 3) != 0 else { return table }
        clua_getref(L, table.reference)
        defer { clua_pop(L, 1) }
        guard clua_push_look_target(L, -1) != 0 else { return table }
        defer { clua_pop(L, 1) }
        return makeRef(at: -1)
    }
}
