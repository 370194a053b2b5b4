// Why this file: a failed input is rolled back by restoring the tables under `g`, so
// anything else a hook could change - the rule table, the script's globals, the library
// tables - must not change at all once the script has loaded. Lua has no read-only
// tables; a frozen table is made one by moving its fields to a backing table it then
// reads through (__index), while writes (__newindex, and the sandbox's rawset and
// setmetatable) raise. The sandbox's rawget, rawlen, next, pairs and getmetatable, and
// the host's own reads, see through to the backing, so a frozen table reads as before.
// While a script loads (clua_set_loading) writes go to the backing: a script defines
// its globals and fills its rule table then, and again when it is reloaded.
#include "CLuaSupport.h"
#include <string.h>

/* Key of the backing table in a frozen table's metatable (a light userdata: no script
   can name it), and of the original metatable (or false). */
static const char clua_frozen_key = 'f';
static const char clua_original_key = 'o';
static const char clua_what_key = 'w';

int clua_push_backing(lua_State *L, int index) {
    if (lua_type(L, index) != LUA_TTABLE || !lua_getmetatable(L, index)) return 0;
    int kind = lua_rawgetp(L, -1, &clua_frozen_key);
    if (kind == LUA_TTABLE) {
        lua_remove(L, -2);
        return 1;
    }
    /* A look's stand-in (look.c) is seen through to its real table, as a frozen table
       to its backing. */
    int look = kind == LUA_TLIGHTUSERDATA && lua_touserdata(L, -1) == clua_look_marker_value();
    lua_pop(L, 2);
    return look ? clua_push_look_target(L, index) : 0;
}

void clua_set_frozen_marker(lua_State *L, int meta) {
    meta = lua_absindex(L, meta);
    lua_rawsetp(L, meta, &clua_frozen_key);
}

void clua_see_through(lua_State *L, int index) {
    index = lua_absindex(L, index);
    if (clua_push_backing(L, index)) lua_replace(L, index);
}

int clua_push_original_metatable(lua_State *L, int index) {
    index = lua_absindex(L, index);
    if (clua_push_look_target(L, index)) {
        /* A stand-in answers as its real table (and its __metatable field) would. */
        if (!lua_getmetatable(L, -1)) lua_pushnil(L);
        else if (lua_getfield(L, -1, "__metatable") != LUA_TNIL) lua_remove(L, -2);
        else lua_pop(L, 1);
        lua_remove(L, -2);
        return 1;
    }
    if (lua_type(L, index) != LUA_TTABLE || !lua_getmetatable(L, index)) return 0;
    if (lua_rawgetp(L, -1, &clua_frozen_key) != LUA_TTABLE) {
        lua_pop(L, 2);
        return 0;
    }
    lua_pop(L, 1);
    lua_rawgetp(L, -1, &clua_original_key);
    lua_remove(L, -2);
    if (lua_toboolean(L, -1) == 0) {
        lua_pop(L, 1);
        lua_pushnil(L);
    } else if (lua_getfield(L, -1, "__metatable") != LUA_TNIL) {
        lua_remove(L, -2);                  /* the original's own __metatable answers */
    } else {
        lua_pop(L, 1);
    }
    return 1;
}

int clua_refuse_frozen_write(lua_State *L, int table, int key) {
    if (clua_push_look_target(L, table)) {
        lua_pop(L, 1);
        return clua_refuse_look_write(L, table, key);
    }
    lua_getmetatable(L, table);
    lua_rawgetp(L, -1, &clua_what_key);
    const char *what = lua_isstring(L, -1) ? lua_tostring(L, -1) : "this table";
    if (lua_type(L, key) == LUA_TSTRING)
        return luaL_error(L, "cannot set '%s' in %s: it is read-only once the script has loaded "
                             "(game data belongs in g.state or on the player tables)", lua_tostring(L, key), what);
    return luaL_error(L, "cannot change %s: it is read-only once the script has loaded "
                         "(game data belongs in g.state or on the player tables)", what);
}

// __newindex of a frozen table: upvalue 1 is the backing table.
static int clua_frozen_newindex(lua_State *L) {
    if (clua_takes_loading_writes(L, 1)) {
        lua_settop(L, 3);
        lua_rawset(L, lua_upvalueindex(1));
        return 0;
    }
    return clua_refuse_frozen_write(L, 1, 2);
}

static int clua_frozen_len(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, lua_upvalueindex(1)));
    return 1;
}

/* Releases the parts of the emptied table at `index` that held its `moved` fields.
   Why this way: the Lua API cannot shrink a table, and a table emptied by setting its
   fields to nil keeps its hash part (about 4 KiB a state over the globals and the
   libraries); its identity matters (scripts and chunks hold it), so it cannot
   be swapped for a fresh one. Lua resizes a table only when a new key finds the hash
   part full, sizing both parts from the live keys then: keys 1, 2, ... fill the hash
   part until that happens and all go to the array part, leaving the hash part empty;
   once they are cleared, one more key (which has no room) makes Lua resize again, to no
   array and one node, and is cleared too. A hash part larger than the keys can fill
   (a table that had more fields once) stays as it was. */
static void clua_release_parts(lua_State *L, int index, lua_Integer moved) {
    static const char clua_shrink_key = 's';
    lua_Integer count = 2 * moved + 16;
    for (lua_Integer i = 1; i <= count; i++) {
        lua_pushboolean(L, 1);
        lua_rawseti(L, index, i);
    }
    for (lua_Integer i = 1; i <= count; i++) {
        lua_pushnil(L);
        lua_rawseti(L, index, i);
    }
    lua_pushboolean(L, 1);
    lua_rawsetp(L, index, &clua_shrink_key);
    lua_pushnil(L);
    lua_rawsetp(L, index, &clua_shrink_key);
}

void clua_freeze(lua_State *L, int index, const char *what) {
    index = lua_absindex(L, index);
    luaL_checkstack(L, 8, "freeze");
    if (clua_push_backing(L, index)) return;
    lua_newtable(L);
    int backing = lua_gettop(L);
    lua_Integer moved = 0;
    lua_pushnil(L);
    while (lua_next(L, index)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, backing);
        moved++;
    }
    lua_pushnil(L);
    while (lua_next(L, backing)) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, index);
    }
    if (moved > 0 && moved < (LUA_MAXINTEGER - 16) / 2) clua_release_parts(L, index, moved);
    /* The new metatable keeps the old one's metamethods (a callable table stays
       callable); the backing gets the old one, so lookups that miss go on as before. */
    lua_newtable(L);
    int meta = lua_gettop(L);
    if (lua_getmetatable(L, index)) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, meta);
        }
        lua_pushvalue(L, -1);
        lua_setmetatable(L, backing);
        lua_rawsetp(L, meta, &clua_original_key);
    } else {
        lua_pushboolean(L, 0);
        lua_rawsetp(L, meta, &clua_original_key);
    }
    lua_pushvalue(L, backing);
    lua_setfield(L, meta, "__index");
    lua_pushvalue(L, backing);
    lua_pushcclosure(L, clua_frozen_newindex, 1);
    lua_setfield(L, meta, "__newindex");
    lua_pushvalue(L, backing);
    lua_pushcclosure(L, clua_frozen_len, 1);
    lua_setfield(L, meta, "__len");
    lua_pushstring(L, what);
    lua_rawsetp(L, meta, &clua_what_key);
    lua_pushboolean(L, 0);  /* the real setmetatable refuses; getmetatable sees through */
    lua_setfield(L, meta, "__metatable");
    lua_pushvalue(L, backing);
    lua_rawsetp(L, meta, &clua_frozen_key);
    lua_setmetatable(L, index);
    /* Strings index the string library directly, not through its frozen table. */
    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1)) {
        if (lua_getfield(L, -1, "__index") == LUA_TTABLE && lua_rawequal(L, -1, index)) {
            lua_pushvalue(L, backing);
            lua_setfield(L, -3, "__index");
        }
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
}

void clua_set_loading(lua_State *L, int loading) {
    clua_ctx(L)->loading = loading;
}
