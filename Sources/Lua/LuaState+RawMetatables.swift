import CLua
import CLuaSupport

extension LuaState {
    /// `raw_getmetatable(t)` and `raw_setmetatable(t, mt)`: a table's true metatable, past
    /// `__metatable`, for the host's own bookkeeping (exact odds' positions). Never give
    /// them to a script.
    public func rawMetatableFunctions() -> (get: LuaValue, set: LuaValue) {
        clua_push_raw_metatable_functions(L)
        defer { clua_pop(L, 2) }
        return (value(at: -2), value(at: -1))
    }
}
