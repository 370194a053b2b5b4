// Why this file: a look (the view, table, choices, status and invariant hooks) must not
// change the game, and a copy of `g` compared after every seat's look cost more than the
// looks themselves. Lua has no read-only tables and no write hook, so a look is given
// stand-ins: empty tables whose metatable reads through to the real table (wrapping the
// tables it reaches in stand-ins of their own, made when first reached) and raises on
// any write, naming the field. A look costs what it reads, not the size of `g`.
// A stand-in is seen through wherever a frozen table is (readonly.c): the host's reads,
// the sandbox's rawget, rawlen and getmetatable. It takes its real table's creation
// serial, so tostring and the order of object keys are as outside a look.
#include "CLuaSupport.h"
#include <stdio.h>
#include <string.h>

/* Defined in determinism.c: the sandbox's ordered pairs and its tostring. */
int clua_pairs(lua_State *L);
int clua_tostring_sandboxed(lua_State *L);

/* Light userdata keys no script can name: in a stand-in, its real table, the stand-in it
   was reached from and the key it was reached by (for a root, its name); in the registry, the stand-ins by real table (under the cache key only
   during a look), what the look is, and the metatable.
   Stand-ins are kept from one look to the next, in a table weak in keys and values: a
   stand-in holds no copy, it reads its real table as it is now, so one made in an earlier
   look is as good as a new one, and making them was most of what a look cost when every
   seat's view reads most of a small `g`. The garbage collector drops them as it would
   have dropped a look's own. The path a stand-in was first reached by is checked when an
   error names it: a table moved since (a card from the deck to a pile) is looked for
   again from the path's root. */
static const char clua_look_real_key = 'r';
static const char clua_look_parent_key = 'p';
static const char clua_look_field_key = 'f';
static const char clua_look_cache_key = 'c';
static const char clua_look_store_key = 's';
static const char clua_look_hook_key = 'h';
static const char clua_look_role_key = 'o';
static const char clua_look_meta_key = 'm';
/* What the shared metatable holds under readonly.c's frozen key: not a backing table. */
static const char clua_look_marker = 'l';

const void *clua_look_marker_value(void) { return &clua_look_marker; }

int clua_push_look_target(lua_State *L, int index) {
    if (lua_type(L, index) != LUA_TTABLE) return 0;
    if (lua_rawgetp(L, index, &clua_look_real_key) != LUA_TTABLE) { lua_pop(L, 1); return 0; }
    return 1;
}

int clua_in_look(lua_State *L) {
    int active = lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_look_cache_key) == LUA_TTABLE;
    lua_pop(L, 1);
    return active;
}

/* Replaces a stand-in at `index` with its real table (anything else stays). */
static void clua_unwrap(lua_State *L, int index) {
    index = lua_absindex(L, index);
    if (clua_push_look_target(L, index)) lua_replace(L, index);
}

/* Pushes one step of a path: ".round", "[\"a b\"]", "[2]", "[table]". */
static void clua_push_step(lua_State *L, int field) {
    field = lua_absindex(L, field);
    if (lua_type(L, field) == LUA_TSTRING) {
        const char *s = lua_tostring(L, field);
        int identifier = (*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'));
        for (const char *c = s; identifier && *c; c++)
            identifier = *c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9');
        if (identifier) lua_pushfstring(L, ".%s", s); else lua_pushfstring(L, "[\"%s\"]", s);
    } else if (lua_isinteger(L, field)) {
        char text[32];
        snprintf(text, sizeof text, "[%lld]", (long long)lua_tointeger(L, field));
        lua_pushstring(L, text);
    } else {
        lua_pushfstring(L, "[%s]", luaL_typename(L, field));
    }
}

/* Pushes the path of the stand-in at `index` as it was first reached ("g.state.round",
   "g.players[2]"). */
static void clua_push_path(lua_State *L, int index, int depth) {
    index = lua_absindex(L, index);
    lua_rawgetp(L, index, &clua_look_parent_key);
    int parent = lua_gettop(L);
    lua_rawgetp(L, index, &clua_look_field_key);
    int field = lua_gettop(L);
    if (lua_type(L, parent) != LUA_TTABLE) {
        if (lua_type(L, field) == LUA_TSTRING) lua_pushvalue(L, field); else lua_pushliteral(L, "?");
    } else if (depth >= 32) {
        lua_pushliteral(L, "...");
    } else {
        clua_push_path(L, parent, depth + 1);
        clua_push_step(L, field);
        lua_concat(L, 2);
    }
    lua_replace(L, parent);
    lua_settop(L, parent);
}

/* Whether every step of the stand-in at `index`'s path still leads where it did (stand-ins
   are kept from look to look, and a table may have moved since); pushes the path's root. */
static int clua_path_holds(lua_State *L, int index) {
    index = lua_absindex(L, index);
    lua_pushvalue(L, index);
    int holds = 1;
    for (int depth = 0; depth < 32; depth++) {
        int proxy = lua_gettop(L);
        if (lua_rawgetp(L, proxy, &clua_look_parent_key) != LUA_TTABLE) { lua_pop(L, 1); return holds; }
        int parent = lua_gettop(L);
        if (holds) {
            if (!clua_push_look_target(L, parent)) lua_pushnil(L);
            if (lua_type(L, -1) == LUA_TTABLE) {
                lua_rawgetp(L, proxy, &clua_look_field_key);
                lua_rawget(L, -2);
            } else {
                lua_pushnil(L);
            }
            if (!clua_push_look_target(L, proxy)) lua_pushnil(L);
            holds = lua_rawequal(L, -1, -2);
            lua_settop(L, parent);
        }
        lua_replace(L, proxy);
    }
    return holds;
}

/* Looks in the real table at `from` (depth first, a bounded number of tables) for the
   table `target`; on finding it pushes the steps to it and returns 1. */
static int clua_find_steps(lua_State *L, int from, const void *target, int depth, int *budget) {
    from = lua_absindex(L, from);
    if (depth > 8 || !lua_checkstack(L, 8)) return 0;
    lua_pushnil(L);
    while (lua_next(L, from)) {                 /* -2: key, -1: value */
        if (lua_type(L, -1) == LUA_TTABLE && (*budget)-- > 0) {
            if (lua_topointer(L, -1) == target) {
                lua_pop(L, 1);
                clua_push_step(L, -1);
                lua_replace(L, -2);
                return 1;
            }
            if (clua_find_steps(L, -1, target, depth + 1, budget)) {   /* key, value, rest */
                clua_push_step(L, -3);
                lua_insert(L, -2);
                lua_concat(L, 2);
                lua_replace(L, -3);
                lua_pop(L, 1);
                return 1;
            }
        }
        lua_pop(L, 1);
    }
    return 0;
}

/* Pushes the path of the stand-in at `index` as it is now: as first reached while that
   still holds, else found again from the path's root, else as first reached. */
static void clua_push_current_path(lua_State *L, int index) {
    index = lua_absindex(L, index);
    if (clua_path_holds(L, index)) { lua_pop(L, 1); clua_push_path(L, index, 0); return; }
    int root = lua_gettop(L);
    int budget = 4096;
    if (!clua_push_look_target(L, root)) lua_pushnil(L);
    int real = lua_gettop(L);
    if (!clua_push_look_target(L, index)) lua_pushnil(L);
    const void *target = lua_topointer(L, -1);
    lua_pop(L, 1);
    if (lua_type(L, real) != LUA_TTABLE || target == NULL) {
        lua_settop(L, root - 1);
        clua_push_path(L, index, 0);
        return;
    }
    if (!clua_find_steps(L, real, target, 0, &budget)) {
        lua_settop(L, root - 1);
        clua_push_path(L, index, 0);
        return;
    }
    lua_rawgetp(L, root, &clua_look_field_key);
    if (lua_type(L, -1) != LUA_TSTRING) { lua_pop(L, 1); lua_pushliteral(L, "?"); }
    lua_insert(L, -2);
    lua_concat(L, 2);
    lua_replace(L, root);
    lua_settop(L, root);
}

/* "file:line:" of the nearest Lua function on the stack (a write may come through
   table.insert or rawset, C functions with no line). */
static void clua_push_script_where(lua_State *L) {
    lua_Debug ar;
    for (int level = 1; level < 8 && lua_getstack(L, level, &ar); level++) {
        lua_getinfo(L, "Sl", &ar);
        if (ar.currentline > 0) {
            lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
            return;
        }
    }
    lua_pushliteral(L, "");
}

int clua_refuse_look_write(lua_State *L, int proxy, int key) {
    proxy = lua_absindex(L, proxy);
    key = lua_absindex(L, key);
    clua_push_script_where(L);
    int where = lua_gettop(L);
    /* The key written, as one more step of the path. */
    clua_push_current_path(L, proxy);
    clua_push_step(L, key);
    lua_concat(L, 2);
    int field = lua_gettop(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_look_hook_key);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_look_role_key);
    const char *hook = lua_isstring(L, -2) ? lua_tostring(L, -2) : "a look";
    const char *role = lua_isstring(L, -1) ? lua_tostring(L, -1) : "a look";
    lua_pushfstring(L, "%s%s wrote %s: %s must not change the game; compute into a local table instead",
                    lua_tostring(L, where), hook, lua_tostring(L, field), role);
    return lua_error(L);
}

/* Pushes the stand-in of the value at `value` reached from the stand-in at `parent` by the
   key at `key` (parent 0: a root named by the string at `key`), from the kept stand-ins
   at `cache` (0: not in a look). Values that are not tables, frozen tables and stand-ins
   are pushed as they are, as is everything outside a look. */
static void clua_push_wrapped_from(lua_State *L, int value, int parent, int key, int cache) {
    if (lua_type(L, value) != LUA_TTABLE || cache == 0) { lua_pushvalue(L, value); return; }
    value = lua_absindex(L, value);
    cache = lua_absindex(L, cache);
    lua_pushvalue(L, value);
    /* The cache first: most tables a look reads were reached before. */
    if (lua_rawget(L, cache) == LUA_TTABLE) return;
    lua_pop(L, 1);
    if (clua_push_backing(L, value)) { lua_pop(L, 1); lua_pushvalue(L, value); return; }
    clua_context *c = clua_ctx(L);
    uint64_t serial = c->next_serial;
    lua_createtable(L, 0, 3);
    int proxy = lua_gettop(L);
    lua_pushvalue(L, value);
    lua_rawsetp(L, proxy, &clua_look_real_key);
    if (parent) {
        lua_pushvalue(L, parent);
        lua_rawsetp(L, proxy, &clua_look_parent_key);
    }
    lua_pushvalue(L, key);
    lua_rawsetp(L, proxy, &clua_look_field_key);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_look_meta_key);
    lua_setmetatable(L, proxy);
    /* A stand-in takes no serial of its own: tables the look makes get the ones they
       would have, and the stand-in prints and sorts as its real table. */
    c->next_serial = serial;
    clua_share_serial(L, value, proxy);
    lua_pushvalue(L, value);
    lua_pushvalue(L, proxy);
    lua_rawset(L, cache);
}

/* clua_push_wrapped_from with the kept stand-ins found in the registry. */
static void clua_push_wrapped(lua_State *L, int value, int parent, int key) {
    if (lua_type(L, value) != LUA_TTABLE) { lua_pushvalue(L, value); return; }
    value = lua_absindex(L, value);
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_look_cache_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_pushvalue(L, value);
        return;
    }
    int cache = lua_gettop(L);
    clua_push_wrapped_from(L, value, parent, key, cache);
    lua_remove(L, cache);
}

/* Calls the real table's metamethod `event` (of the operand at 1, else at 2) with the
   arguments as given (stand-ins: what it reads stays read-only); 0 when neither has one. */
static int clua_forward(lua_State *L, const char *event, int results) {
    int n = lua_gettop(L);
    for (int i = 1; i <= 2 && i <= n; i++) {
        if (!clua_push_look_target(L, i)) continue;
        if (luaL_getmetafield(L, -1, event) == LUA_TNIL) { lua_pop(L, 1); continue; }
        lua_remove(L, -2);
        lua_insert(L, 1);
        lua_call(L, n, results);
        return 1;
    }
    return 0;
}

/* A stand-in's read. Upvalues: the kept stand-ins, and whether a look is under way (set
   as looks begin and end), so a read needs no registry lookup. Every field a look reads
   comes through here (a Liar's Dice view reads most of a small `g` for each seat), so
   the usual read - a string key, a value that is not a table or whose stand-in is kept -
   takes as few calls as it can: the real table, the field, and for a table the cache. */
static int clua_look_index(lua_State *L) {
    lua_settop(L, 2);
    if (lua_rawgetp(L, 1, &clua_look_real_key) != LUA_TTABLE) { lua_pushnil(L); return 1; }  /* 3: the real table */
    int key = 2;
    if (lua_type(L, 2) == LUA_TTABLE) {         /* 4: a stand-in key unwrapped */
        lua_pushvalue(L, 2);
        clua_unwrap(L, 4);
        key = 4;
    }
    lua_pushvalue(L, key);
    int type = lua_rawget(L, 3);
    int value = lua_gettop(L);
    if (type == LUA_TTABLE) {
        if (!lua_toboolean(L, lua_upvalueindex(2))) return 1;
        lua_pushvalue(L, value);
        if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TTABLE) return 1;
        lua_pop(L, 1);
        clua_push_wrapped_from(L, value, 1, key, lua_upvalueindex(1));
        return 1;
    }
    if (type != LUA_TNIL || !lua_getmetatable(L, 3)) return 1;
    int cache = lua_toboolean(L, lua_upvalueindex(2)) ? lua_upvalueindex(1) : 0;
    int handler = lua_getfield(L, -1, "__index");
    if (handler == LUA_TFUNCTION) {
        lua_pushvalue(L, 1);
        lua_pushvalue(L, 2);
        lua_call(L, 2, 1);
        return 1;
    }
    if (handler == LUA_TTABLE) {
        lua_pushvalue(L, 2);
        lua_gettable(L, -2);
        clua_push_wrapped_from(L, -1, 1, key, cache);
        return 1;
    }
    lua_settop(L, value);
    return 1;
}

static int clua_look_newindex(lua_State *L) {
    lua_settop(L, 3);
    if (clua_in_look(L)) return clua_refuse_look_write(L, 1, 2);
    /* A stand-in kept past its look writes through, as the real table would take it: its
     * own __newindex (a script's, the simulation's watch) runs as for a write to it. */
    clua_unwrap(L, 1);
    clua_unwrap(L, 2);
    clua_unwrap(L, 3);
    lua_settable(L, 1);
    return 0;
}

static int clua_look_len(lua_State *L) {
    if (clua_forward(L, "__len", 1)) return 1;
    clua_push_look_target(L, 1);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
    return 1;
}

/* The iterator of pairs over a stand-in: upvalues the real iterator, its state, the stand-in. */
static int clua_look_next(lua_State *L) {
    lua_settop(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushvalue(L, 2);
    clua_unwrap(L, -1);
    lua_call(L, 2, 2);                          /* 3: key, 4: value */
    if (lua_isnil(L, 3)) return 0;
    int proxy = lua_upvalueindex(3);
    lua_pushvalue(L, proxy);                    /* 5 */
    clua_push_wrapped(L, 3, 5, 3);              /* 6 */
    clua_push_wrapped(L, 4, 5, 3);              /* 7 */
    return 2;
}

static int clua_look_pairs(lua_State *L) {
    lua_settop(L, 1);
    lua_pushcfunction(L, clua_pairs);
    clua_push_look_target(L, 1);
    lua_call(L, 1, 3);                          /* 2: iterator, 3: state, 4: control */
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_pushvalue(L, 1);
    lua_pushcclosure(L, clua_look_next, 3);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static int clua_look_tostring(lua_State *L) {
    lua_settop(L, 1);
    if (clua_forward(L, "__tostring", 1)) return 1;
    lua_pushcfunction(L, clua_tostring_sandboxed);
    clua_push_look_target(L, 1);
    lua_call(L, 1, 1);
    return 1;
}

static int clua_look_eq(lua_State *L) {
    lua_settop(L, 2);
    lua_pushvalue(L, 1);
    clua_unwrap(L, 3);
    lua_pushvalue(L, 2);
    clua_unwrap(L, 4);
    if (lua_rawequal(L, 3, 4)) { lua_pushboolean(L, 1); return 1; }
    /* Two tables without metatables (a view comparing each player with its viewer):
       no __eq to forward to, so no name to look up. */
    if (!lua_getmetatable(L, 3) && !lua_getmetatable(L, 4)) { lua_pushboolean(L, 0); return 1; }
    lua_settop(L, 2);
    if (clua_forward(L, "__eq", 1)) { lua_pushboolean(L, lua_toboolean(L, -1)); return 1; }
    lua_pushboolean(L, 0);
    return 1;
}

static int clua_look_lt(lua_State *L) {
    lua_settop(L, 2);
    if (clua_forward(L, "__lt", 1)) { lua_pushboolean(L, lua_toboolean(L, -1)); return 1; }
    return luaL_error(L, "attempt to compare two table values");
}

static int clua_look_le(lua_State *L) {
    lua_settop(L, 2);
    if (clua_forward(L, "__le", 1)) { lua_pushboolean(L, lua_toboolean(L, -1)); return 1; }
    return luaL_error(L, "attempt to compare two table values");
}

static int clua_look_concat(lua_State *L) {
    lua_settop(L, 2);
    if (clua_forward(L, "__concat", 1)) return 1;
    return luaL_error(L, "attempt to concatenate a table value");
}

static int clua_look_call(lua_State *L) {
    int n = lua_gettop(L);
    if (!clua_push_look_target(L, 1) || luaL_getmetafield(L, -1, "__call") == LUA_TNIL)
        return luaL_error(L, "attempt to call a table value");
    lua_remove(L, -2);
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* The kept stand-ins by real table, made once per state: weak both ways, so a kept
   stand-in holds neither its real table nor itself past the next collection. */
static void clua_push_look_store(lua_State *L) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_look_store_key) == LUA_TTABLE) return;
    lua_pop(L, 1);
    lua_createtable(L, 0, 1);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "kv");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &clua_look_store_key);
}

/* The metatable every stand-in shares, made once per state. */
static void clua_push_look_meta(lua_State *L) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_look_meta_key) == LUA_TTABLE) return;
    lua_pop(L, 1);
    static const luaL_Reg methods[] = {
        {"__newindex", clua_look_newindex}, {"__len", clua_look_len},
        {"__pairs", clua_look_pairs}, {"__tostring", clua_look_tostring}, {"__eq", clua_look_eq},
        {"__lt", clua_look_lt}, {"__le", clua_look_le}, {"__concat", clua_look_concat},
        {"__call", clua_look_call}, {NULL, NULL},
    };
    lua_createtable(L, 0, 12);
    luaL_setfuncs(L, methods, 0);
    clua_push_look_store(L);
    lua_pushboolean(L, 0);
    lua_pushcclosure(L, clua_look_index, 2);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pushlightuserdata(L, (void *)&clua_look_marker);
    clua_set_frozen_marker(L, -2);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &clua_look_meta_key);
}

/* Tells the stand-ins' reads whether a look is under way. */
static void clua_set_looking(lua_State *L, int looking) {
    clua_push_look_meta(L);
    lua_pushliteral(L, "__index");
    lua_rawget(L, -2);
    lua_pushboolean(L, looking);
    lua_setupvalue(L, -2, 2);
    lua_pop(L, 2);
}

void clua_begin_look(lua_State *L) {
    luaL_checkstack(L, 4, "look");
    clua_set_looking(L, 1);
    clua_push_look_store(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &clua_look_cache_key);
    clua_set_look_role(L, NULL, NULL);
}

void clua_set_look_role(lua_State *L, const char *hook, const char *role) {
    if (hook) lua_pushstring(L, hook); else lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &clua_look_hook_key);
    if (role) lua_pushstring(L, role); else lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &clua_look_role_key);
}

void clua_end_look(lua_State *L) {
    luaL_checkstack(L, 4, "look");
    clua_set_looking(L, 0);
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &clua_look_cache_key);
    clua_set_look_role(L, NULL, NULL);
}

void clua_push_look_root(lua_State *L, int index, const char *name) {
    index = lua_absindex(L, index);
    luaL_checkstack(L, 8, "look");
    lua_pushstring(L, name);
    clua_push_wrapped(L, index, 0, lua_gettop(L));
    lua_remove(L, -2);
}

void clua_push_look_field(lua_State *L, int proxy, int key) {
    proxy = lua_absindex(L, proxy);
    key = lua_absindex(L, key);
    luaL_checkstack(L, 8, "look");
    if (!clua_push_look_target(L, proxy)) { lua_pushnil(L); return; }
    lua_pushvalue(L, key);
    clua_unwrap(L, -1);
    lua_rawget(L, -2);
    clua_push_wrapped(L, -1, proxy, key);
    lua_replace(L, -3);
    lua_pop(L, 1);
}

int clua_raw_next(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    if (clua_push_look_target(L, 1)) {          /* 3: the real table */
        lua_pushvalue(L, 2);
        clua_unwrap(L, 4);
        if (!lua_next(L, 3)) { lua_pushnil(L); return 1; }
        clua_push_wrapped(L, 4, 1, 4);          /* the next key and value, as stand-ins */
        clua_push_wrapped(L, 5, 1, 4);
        return 2;
    }
    if (lua_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}
