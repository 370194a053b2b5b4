// Why this file: every input is a transaction, so the host copies the tables reachable
// from `g` before it and restores them in place (references scripts hold stay valid)
// when it fails, metatables included. Done in C: iteratively, so however deep the
// tables nest nothing recurses; with raw access only (no metamethod runs); charged to
// the budget like other C work; and the restore never fails for lack of memory.
#include "CLuaSupport.h"
#include <limits.h>

/// snapshot(root) -> copies, metatables: copies[t] is a raw copy of every table t
/// reachable from root through keys and values; metatables[t] is t's metatable.
static int clua_snapshot(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lua_newtable(L);                        /* 2: copies */
    lua_newtable(L);                        /* 3: metatables */
    lua_newtable(L);                        /* 4: work stack of tables to copy */
    lua_Integer pending = 0;
    lua_pushvalue(L, 1);
    lua_rawseti(L, 4, ++pending);
    lua_pushvalue(L, 1);
    lua_pushboolean(L, 1);
    lua_rawset(L, 2);                       /* marks root as seen until its copy exists */
    int64_t uncharged = 0;
    while (pending > 0) {
        lua_rawgeti(L, 4, pending);         /* 5: the table */
        lua_pushnil(L);
        lua_rawseti(L, 4, pending--);
        /* Its copy, sized for its entries at once: filled from empty, a table is rehashed
           every time it doubles, which was most of what a copy of g cost (issue 32). */
        lua_Integer entries = 0;
        lua_pushnil(L);
        while (lua_next(L, 5)) { entries++; lua_pop(L, 1); }
        lua_Unsigned border = lua_rawlen(L, 5);
        lua_Integer listed = border <= (lua_Unsigned)entries ? (lua_Integer)border : 0;
        lua_Integer keyed = entries - listed;
        lua_createtable(L, listed > INT_MAX ? INT_MAX : (int)listed, keyed > INT_MAX ? INT_MAX : (int)keyed); /* 6 */
        lua_pushvalue(L, 5);
        lua_pushvalue(L, 6);
        lua_rawset(L, 2);
        if (lua_getmetatable(L, 5)) {
            /* The metatable's contents are state too: copied like any reachable table. */
            lua_pushvalue(L, -1);
            if (lua_rawget(L, 2) == LUA_TNIL) {
                lua_pushvalue(L, -2);
                lua_pushboolean(L, 1);
                lua_rawset(L, 2);
                lua_pushvalue(L, -2);
                lua_rawseti(L, 4, ++pending);
            }
            lua_pop(L, 1);
            lua_pushvalue(L, 5);
            lua_insert(L, -2);
            lua_rawset(L, 3);
        }
        lua_pushnil(L);
        while (lua_next(L, 5)) {            /* 7: key, 8: value */
            uncharged++;
            for (int slot = 7; slot <= 8; slot++) {
                if (lua_type(L, slot) != LUA_TTABLE) continue;
                lua_pushvalue(L, slot);
                if (lua_rawget(L, 2) == LUA_TNIL) {
                    lua_pushvalue(L, slot);
                    lua_pushboolean(L, 1);
                    lua_rawset(L, 2);
                    lua_pushvalue(L, slot);
                    lua_rawseti(L, 4, ++pending);
                }
                lua_pop(L, 1);
            }
            lua_pushvalue(L, 7);
            lua_insert(L, -2);
            lua_rawset(L, 6);
        }
        lua_settop(L, 4);
        if (++uncharged >= 4096) { clua_charge_or_raise(L, uncharged); uncharged = 0; }
    }
    clua_charge_or_raise(L, uncharged + 1);
    lua_settop(L, 3);
    return 2;
}

/// restore(copies, metatables): puts every copied table back as it was.
static int clua_restore(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    clua_context *c = clua_ctx(L);
    int saved = c->enforce_memory;
    c->enforce_memory = 0;  /* a rollback is never refused half-way */
    lua_settop(L, 2);
    lua_pushnil(L);
    while (lua_next(L, 1)) {                /* 3: original, 4: copy */
        if (lua_type(L, 4) == LUA_TTABLE) {
            lua_pushnil(L);                 /* clearing fields during traversal is allowed */
            while (lua_next(L, 3)) {
                lua_pop(L, 1);
                lua_pushvalue(L, -1);
                lua_pushnil(L);
                lua_rawset(L, 3);
            }
            lua_pushnil(L);
            while (lua_next(L, 4)) {
                lua_pushvalue(L, -2);
                lua_insert(L, -2);
                lua_rawset(L, 3);
            }
            lua_pushvalue(L, 3);
            if (lua_rawget(L, 2) == LUA_TNIL) {
                lua_pop(L, 1);
                lua_pushnil(L);
            }
            /* Only a changed metatable is set again: setting one marks the table for
               finalization if it has gained a __gc since, which must never run. */
            int current = lua_getmetatable(L, 3) ? lua_gettop(L) : 0;
            int same = current ? lua_rawequal(L, -1, -2) : lua_isnil(L, -1);
            if (current) lua_pop(L, 1);
            if (same) lua_pop(L, 1); else lua_setmetatable(L, 3);
        }
        lua_settop(L, 3);
    }
    c->enforce_memory = saved;
    return 0;
}

/// unchanged(copies, metatables) -> boolean: whether every copied table still holds
/// exactly its copy's fields (raw keys, raw-equal values) and its metatable. Only reads:
/// a look at the game (a view, a table, a status line per seat and per input) that wrote
/// nothing needs no restore, which writes every field of every table twice.
static int clua_unchanged(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    lua_pushnil(L);
    while (lua_next(L, 1)) {                /* 3: original, 4: copy */
        if (lua_type(L, 4) != LUA_TTABLE) { lua_pop(L, 1); continue; }
        lua_Integer fields = 0;
        lua_pushnil(L);
        while (lua_next(L, 3)) {            /* 5: key, 6: value */
            fields++;
            lua_pushvalue(L, 5);
            lua_rawget(L, 4);               /* 7: the copy's value */
            int same = lua_rawequal(L, 6, 7);
            lua_pop(L, 2);
            if (!same) { lua_pushboolean(L, 0); return 1; }
        }
        lua_pushnil(L);
        while (lua_next(L, 4)) {            /* the copy has no field the original lost */
            lua_pop(L, 1);
            if (--fields < 0) { lua_pushboolean(L, 0); return 1; }
        }
        if (fields != 0) { lua_pushboolean(L, 0); return 1; }
        lua_pushvalue(L, 3);
        lua_rawget(L, 2);                   /* 5: the metatable it had (nil: none) */
        if (!lua_getmetatable(L, 3)) lua_pushnil(L);
        int same = lua_rawequal(L, 5, 6);
        lua_settop(L, 3);
        if (!same) { lua_pushboolean(L, 0); return 1; }
    }
    lua_pushboolean(L, 1);
    return 1;
}

void clua_push_snapshot_functions(lua_State *L) {
    lua_pushcfunction(L, clua_snapshot);
    lua_pushcfunction(L, clua_restore);
    lua_pushcfunction(L, clua_unchanged);
}
