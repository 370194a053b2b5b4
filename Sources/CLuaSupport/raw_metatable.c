// Why this file: exact odds must see a table's true metatable, and put it back, even
// when a script hides it with __metatable (getmetatable then answers the field, and
// setmetatable refuses): positions hold everything a hook can observe.
#include "CLuaSupport.h"

/// raw_getmetatable(t) -> t's metatable (nil when none), ignoring __metatable.
static int clua_raw_getmetatable(lua_State *L) {
    luaL_checkany(L, 1);
    if (!lua_getmetatable(L, 1)) lua_pushnil(L);
    return 1;
}

/// raw_setmetatable(t, mt|nil) -> t, ignoring __metatable (the host's own restore).
static int clua_raw_setmetatable(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    int kind = lua_type(L, 2);
    luaL_argexpected(L, kind == LUA_TNIL || kind == LUA_TTABLE, 2, "nil or table");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

void clua_push_raw_metatable_functions(lua_State *L) {
    lua_pushcfunction(L, clua_raw_getmetatable);
    lua_pushcfunction(L, clua_raw_setmetatable);
}
