import CLua
import CLuaSupport

/// A Lua object (table, function, userdata, coroutine) held from Swift through the
/// registry. The object stays alive while this reference does; dropping the last
/// Swift reference releases it. Two refs are equal when they name the same object.
public final class LuaRef: Equatable {
    /// The registry slot (`luaL_ref`).
    public let reference: Int32
    let state: LuaState

    init(state: LuaState, reference: Int32) {
        self.state = state
        self.reference = reference
    }

    deinit {
        state.release(reference)
    }

    public static func == (lhs: LuaRef, rhs: LuaRef) -> Bool {
        if lhs === rhs { return true }
        guard lhs.state === rhs.state, let L = lhs.state.mainThread else { return false }
        clua_getref(L, lhs.reference)
        clua_getref(L, rhs.reference)
        defer { clua_pop(L, 2) }
        return lua_rawequal(L, -1, -2) != 0
    }
}
