import CLua
import CLuaSupport

/// Memory a host keeps in a state for itself, outside the script's cap: an analysis
/// stores every position it finds in the analysed game's state, and the game's script
/// is still held to `LuaLimits.memoryBytes` beside them.
extension LuaState {
    /// Bytes of the heap the host holds (stored through `keepFunction()`): the cap
    /// applies to `memoryUsed - hostHeldBytes`.
    public var hostHeldBytes: Int { context.pointee.memory_held }

    /// The heap the script is charged with: everything but what the host holds.
    public var scriptMemoryUsed: Int { max(0, memoryUsed - hostHeldBytes) }

    /// `keep(t, k, v [, s])`: `t[k] = v` raw, with what the table grows by (and the
    /// string `s`) held by the host from then on. Never give it to a script: a script
    /// that could call it could lift its own cap.
    public func keepFunction() -> LuaValue {
        clua_push_keep_function(L)
        defer { clua_pop(L, 1) }
        return value(at: -1)
    }
}
