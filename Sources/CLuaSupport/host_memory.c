// Why this file: an analysis keeps every position it finds in the analysed game's own
// Lua state (the keys and the tables that number them), so the state's heap grows far
// past the game's memory cap while the script's share of it must not. The host's share
// is counted here, at the moment it is stored, and the cap applies to the rest.
#include "CLuaSupport.h"

/* Bytes of a Lua 5.4 string object of `length` bytes: its header (CommonHeader, extra,
   shrlen, hash and the long/next union, 24 bytes on 64-bit) and the text with its
   terminating zero (lstring.c, luaS_sizelstring). */
#define CLUA_STRING_HEADER 24

// Why C: the growth of one raw store is measured around lua_rawset, in the allocator's count.
/// keep(t, k, v [, s]): t[k] = v raw, the bytes the table grows by (and the string s's)
/// held by the host from then on, never charged to the script. Host code only.
static int clua_keep(lua_State *L) {
    clua_context *c = clua_ctx(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    size_t length = 0, string = 0;
    if (lua_type(L, 4) == LUA_TSTRING) {
        lua_tolstring(L, 4, &length);
        string = CLUA_STRING_HEADER + length + 1;
    }
    lua_settop(L, 3);
    /* Not refused mid-way (host work): the table's old part is freed at once when it
       grows, so the difference is what stays. */
    int saved = c->enforce_memory;
    c->enforce_memory = 0;
    size_t before = c->memory_used;
    lua_rawset(L, 1);
    c->enforce_memory = saved;
    if (c->memory_used > before) c->memory_held += c->memory_used - before;
    c->memory_held += string;
    return 0;
}

void clua_push_keep_function(lua_State *L) {
    lua_pushcfunction(L, clua_keep);
}
