// Why this file: every input is a transaction, so the host copies the tables reachable
// from `g` before it and restores them in place (references scripts hold stay valid)
// when it fails, metatables included. Done in C: iteratively, so however deep the
// tables nest nothing recurses; with raw access only (no metamethod runs); charged to
// the budget like other C work; and the restore never fails for lack of memory.
#include "CLuaSupport.h"
#include <limits.h>
#include <string.h>

/* Whether the values at a and b are the same for a copy: raw-equal, and of one number
   subtype with the same bits (1 and 1.0, 0.0 and -0.0 are raw-equal but print and
   behave differently, so a copy holding the other would restore something else). A NaN
   is the same as itself here: its copy restores it bit for bit. Inlined: it runs for
   every field of every table compared. */
static inline __attribute__((always_inline)) int clua_same_value(lua_State *L, int a, int b) {
    if (lua_type(L, a) != LUA_TNUMBER) return lua_rawequal(L, a, b);
    int integer = lua_isinteger(L, a);
    if (integer != lua_isinteger(L, b)) return 0;
    if (integer) return lua_tointeger(L, a) == lua_tointeger(L, b);
    if (lua_type(L, b) != LUA_TNUMBER) return 0;
    lua_Number x = lua_tonumber(L, a), y = lua_tonumber(L, b);
    return memcmp(&x, &y, sizeof x) == 0;
}

/* The tables a snapshot has seen, by address: an open-addressed set in a userdata (the
   collector frees it, also when a budget or memory error ends the walk). Asking a Lua
   table keyed by tables, and marking it, was a third of a copy's cost. The
   tables are all reachable from the root while the walk runs, so no address is reused. */
typedef struct clua_seen {
    size_t capacity;                        /* a power of two */
    size_t count;
    const void *slots[];
} clua_seen;

static clua_seen *clua_new_seen(lua_State *L, size_t capacity) {
    clua_seen *seen = lua_newuserdatauv(L, sizeof(clua_seen) + capacity * sizeof(const void *), 0);
    seen->capacity = capacity;
    seen->count = 0;
    memset(seen->slots, 0, capacity * sizeof(const void *));
    return seen;
}

static size_t clua_seen_slot(const clua_seen *seen, const void *p) {
    size_t mask = seen->capacity - 1;
    size_t i = (size_t)(((uintptr_t)p >> 4) * (uintptr_t)0x9E3779B97F4A7C15ull) & mask;
    while (seen->slots[i] != NULL && seen->slots[i] != p) i = (i + 1) & mask;
    return i;
}

/* Adds `p` to the set at stack index `at` (grown, and replaced there, when half full);
   returns whether it was new. */
static int clua_see(lua_State *L, int at, const void *p) {
    clua_seen *seen = lua_touserdata(L, at);
    size_t i = clua_seen_slot(seen, p);
    if (seen->slots[i] == p) return 0;
    if ((seen->count + 1) * 2 > seen->capacity) {
        if (seen->capacity > ((size_t)1 << 40)) luaL_error(L, "snapshot: too many tables");
        clua_seen *grown = clua_new_seen(L, seen->capacity * 2);
        for (size_t j = 0; j < seen->capacity; j++) {
            if (seen->slots[j] == NULL) continue;
            grown->slots[clua_seen_slot(grown, seen->slots[j])] = seen->slots[j];
        }
        grown->count = seen->count;
        lua_replace(L, at);
        seen = grown;
        i = clua_seen_slot(seen, p);
    }
    seen->slots[i] = p;
    seen->count++;
    return 1;
}

/* Queues the value at `slot` on the work stack `work` if it is a table not seen before. */
static void clua_queue_table(lua_State *L, int slot, int seen, int work, lua_Integer *pending) {
    if (lua_type(L, slot) != LUA_TTABLE || !clua_see(L, seen, lua_topointer(L, slot))) return;
    lua_pushvalue(L, slot);
    lua_rawseti(L, work, ++*pending);
}

/* Whether the table at `copy` holds exactly the `entries` fields of the table at
   `original` (same raw keys, the same values). Only reads. */
static int clua_holds_same(lua_State *L, int original, int copy, lua_Integer entries) {
    int top = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, copy)) {             /* top+1: key, top+2: value */
        if (--entries < 0) { lua_settop(L, top); return 0; }
        lua_pushvalue(L, top + 1);
        lua_rawget(L, original);            /* top+3: the original's value */
        int same = clua_same_value(L, top + 2, top + 3);
        lua_settop(L, top + 1);
        if (!same) { lua_settop(L, top); return 0; }
    }
    return entries == 0;
}

/* Whether the table at `original` holds exactly what the table at `copy` holds. */
static int clua_same_fields(lua_State *L, int original, int copy) {
    lua_Integer entries = 0;
    lua_pushnil(L);
    while (lua_next(L, original)) { entries++; lua_pop(L, 1); }
    return clua_holds_same(L, original, copy, entries);
}

static int clua_size_hint(lua_State *L, int index) {
    lua_Integer n = lua_tointeger(L, index);
    return n > 0 && n <= (1 << 20) ? (int)n : 0;
}

/// snapshot(root [, copies, metatables, tables, metatabled]) -> copies, metatables,
/// tables, metatabled: copies[t] is a raw copy of every table t reachable from root
/// through keys, values and metatables; metatables[t] is t's metatable; tables and
/// metatabled count them. Given the result of an earlier snapshot, a table that still
/// holds what its earlier copy holds shares that copy instead of getting a new one
/// (copies are never written: restore and unchanged only read them), and the new maps
/// are sized for as many tables: after an input most of `g` is as it was (the
/// copy after every input made every table anew, and collecting them was most of its
/// cost).
static int clua_snapshot(lua_State *L) {
    enum { ROOT = 1, EARLIER, COPIES, METATABLES, WORK, SEEN, TABLE, KEY, VALUE };
    luaL_checktype(L, ROOT, LUA_TTABLE);
    int reusing = lua_type(L, EARLIER) == LUA_TTABLE;
    int tables_hint = reusing ? clua_size_hint(L, 4) : 0;
    int metatabled_hint = reusing ? clua_size_hint(L, 5) : 0;
    lua_settop(L, EARLIER);
    lua_createtable(L, 0, tables_hint);     /* COPIES */
    lua_createtable(L, 0, metatabled_hint); /* METATABLES */
    lua_newtable(L);                        /* WORK: the tables still to copy */
    size_t capacity = 64;
    while (capacity < (size_t)tables_hint * 2) capacity *= 2;
    clua_new_seen(L, capacity);             /* SEEN */
    lua_Integer pending = 0, tables = 0, metatabled = 0;
    clua_queue_table(L, ROOT, SEEN, WORK, &pending);
    int64_t uncharged = 0;
    while (pending > 0) {
        lua_rawgeti(L, WORK, pending);      /* TABLE */
        lua_pushnil(L);
        lua_rawseti(L, WORK, pending--);
        tables++;
        if (lua_getmetatable(L, TABLE)) {
            /* The metatable's contents are state too: copied like any reachable table. */
            clua_queue_table(L, lua_gettop(L), SEEN, WORK, &pending);
            lua_pushvalue(L, TABLE);
            lua_insert(L, -2);
            lua_rawset(L, METATABLES);
            metatabled++;
        }
        /* Its entries counted, and the tables among them queued, in one walk. */
        lua_Integer entries = 0;
        lua_pushnil(L);
        while (lua_next(L, TABLE)) {        /* KEY, VALUE */
            entries++;
            clua_queue_table(L, KEY, SEEN, WORK, &pending);
            clua_queue_table(L, VALUE, SEEN, WORK, &pending);
            lua_pop(L, 1);
        }
        uncharged += entries;
        /* KEY: an earlier copy, kept if it still holds the same. */
        int reused = 0;
        if (reusing) {
            lua_pushvalue(L, TABLE);
            reused = lua_rawget(L, EARLIER) == LUA_TTABLE && clua_holds_same(L, TABLE, KEY, entries);
        }
        if (!reused) {
            lua_settop(L, TABLE);
            /* Its copy, sized for its entries at once: filled from empty, a table is
               rehashed every time it doubles. */
            lua_Unsigned border = lua_rawlen(L, TABLE);
            lua_Integer listed = border <= (lua_Unsigned)entries ? (lua_Integer)border : 0;
            lua_Integer keyed = entries - listed;
            lua_createtable(L, listed > INT_MAX ? INT_MAX : (int)listed, keyed > INT_MAX ? INT_MAX : (int)keyed); /* KEY */
            lua_pushnil(L);
            while (lua_next(L, TABLE)) {    /* VALUE, VALUE + 1 */
                lua_pushvalue(L, VALUE);
                lua_insert(L, -2);
                lua_rawset(L, KEY);
            }
        }
        lua_settop(L, KEY);
        lua_rawset(L, COPIES);              /* copies[TABLE] = KEY */
        if (++uncharged >= 4096) { clua_charge_or_raise(L, uncharged); uncharged = 0; }
    }
    clua_charge_or_raise(L, uncharged + 1);
    lua_pushvalue(L, COPIES);
    lua_pushvalue(L, METATABLES);
    lua_pushinteger(L, tables);
    lua_pushinteger(L, metatabled);
    return 4;
}

/// restore(copies, metatables) -> boolean: puts every copied table back as it was, and
/// says whether all already were. A table is compared with its copy first and rewritten
/// only if it differs: a look or a failed input that changed one field (a look that
/// caught `g.now` up with the clock) rewrote every table twice (177 k
/// instructions a Snap game, after most of its looks).
static int clua_restore(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    clua_context *c = clua_ctx(L);
    int saved = c->enforce_memory;
    c->enforce_memory = 0;  /* a rollback is never refused half-way */
    int untouched = 1;
    lua_settop(L, 2);
    lua_pushnil(L);
    while (lua_next(L, 1)) {                /* 3: original, 4: copy */
        if (lua_type(L, 4) == LUA_TTABLE) {
            if (!clua_same_fields(L, 3, 4)) {
                untouched = 0;
                lua_pushnil(L);             /* clearing fields during traversal is allowed */
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
            if (same) lua_pop(L, 1); else { untouched = 0; lua_setmetatable(L, 3); }
        }
        lua_settop(L, 3);
    }
    c->enforce_memory = saved;
    lua_pushboolean(L, untouched);
    return 1;
}

/// unchanged(copies, metatables) -> boolean: whether every copied table still holds
/// exactly its copy's fields (raw keys, the same values) and its metatable. Only reads:
/// the same compare `restore` makes before it rewrites a table, for a host that only
/// wants to know (the game's looks call `restore`, which answers the same question).
static int clua_unchanged(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    lua_pushnil(L);
    while (lua_next(L, 1)) {                /* 3: original, 4: copy */
        if (lua_type(L, 4) != LUA_TTABLE) { lua_pop(L, 1); continue; }
        if (!clua_same_fields(L, 3, 4)) { lua_pushboolean(L, 0); return 1; }
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
