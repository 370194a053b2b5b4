import CLua
import CLuaSupport

extension LuaState {
    /// `new_position_encoder(...)`: makes exact odds' position encoder in C
    /// (`position_codec.c`) over the Lua codec's own tables. Never give it to a script.
    public func positionEncoderFactory() -> LuaValue {
        clua_push_position_encoder_factory(L)
        defer { clua_pop(L, 1) }
        return value(at: -1)
    }

    /// `new_position_index()`: the numbering of an analysis's positions, its keys kept in
    /// C outside Lua's heap (`position_index.c`): `{number, key, decode, count, bytes}`.
    /// Call it from Lua (it allocates). Never give it to a script.
    public func positionIndexFactory() -> LuaValue {
        clua_push_position_index_factory(L)
        defer { clua_pop(L, 1) }
        return value(at: -1)
    }
}
