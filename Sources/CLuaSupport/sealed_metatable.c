// Why this file: a basic type's metatable (the string one: every string shares it) is
// not the script's to change, even while the script loads, when frozen tables take
// writes. A write that seemed to succeed would change nothing strings consult (they
// index the real metatable, which no script reaches), so it raises instead, as Redis
// (CVE-2025-46818) and Luau do. A sealed table is a frozen one (readonly.c) that
// refuses writes at load time too.
#include "CLuaSupport.h"

/* Key in a sealed table's metatable (a light userdata: no script can name it). */
static const char clua_sealed_key = 's';

void clua_seal(lua_State *L, int index, const char *what) {
    index = lua_absindex(L, index);
    clua_freeze(L, index, what);
    lua_pop(L, 1);
    if (lua_getmetatable(L, index)) {
        lua_pushboolean(L, 1);
        lua_rawsetp(L, -2, &clua_sealed_key);
        lua_pop(L, 1);
    }
}

int clua_takes_loading_writes(lua_State *L, int index) {
    if (!clua_ctx(L)->loading) return 0;
    if (lua_type(L, index) != LUA_TTABLE || !lua_getmetatable(L, index)) return 1;
    int sealed = lua_rawgetp(L, -1, &clua_sealed_key) != LUA_TNIL;
    lua_pop(L, 2);
    return !sealed;
}
