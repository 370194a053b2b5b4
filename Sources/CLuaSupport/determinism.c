// Why this file: a game must be a function of its seed and inputs in every process
// and on every machine. Lua's `next` visits keys in hash order - for strings a hash
// Debian seeds per process, for tables and functions their address - and tostring
// prints addresses. The sandbox's pairs, next, tostring and string.format instead
// order keys by value (numbers, then strings bytewise, then booleans) and objects by
// creation serial, and print objects by serial. They raise and sort, so they are C.
#include "CLuaSupport.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLUA_NAMES_KEY "clua.function_names"
#define CLUA_NEXT_CACHE_KEY "clua.next_cache"

typedef struct clua_key {
    int rank;          /* 0 number, 1 string, 2 boolean, 3 object with a serial, 4 named C function, 5 other */
    lua_Number number;
    lua_Integer integer;
    int is_integer;
    uint64_t serial;
    const char *text;
    size_t length;
    int position;      /* index in the snapshot, to keep unordered keys stable */
} clua_key;

static int clua_compare_keys(const void *a, const void *b) {
    const clua_key *x = (const clua_key *)a, *y = (const clua_key *)b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    switch (x->rank) {
    case 0:
        if (x->is_integer && y->is_integer)
            return x->integer < y->integer ? -1 : (x->integer > y->integer ? 1 : 0);
        if (!x->is_integer && !y->is_integer) {
            if (x->number != y->number) return x->number < y->number ? -1 : 1;
        } else {
            /* An integer and a float, compared exactly (as doubles, math.maxinteger and
               2^63 would tie and their order would depend on the table's hash order). */
            int flip = x->is_integer ? 1 : -1;
            lua_Integer i = x->is_integer ? x->integer : y->integer;
            lua_Number f = x->is_integer ? y->number : x->number;
            int r; /* how i compares with f */
            if (f >= 9223372036854775808.0) r = -1;
            else if (f < -9223372036854775808.0) r = 1;
            else {
                lua_Number whole = floor(f);
                lua_Integer w = (lua_Integer)whole;
                if (i != w) r = i < w ? -1 : 1;
                else r = f > whole ? -1 : 0;
            }
            if (r != 0) return r * flip;
            return x->is_integer ? -1 : 1;
        }
        break;
    case 1:
    case 4: {
        size_t m = x->length < y->length ? x->length : y->length;
        int r = memcmp(x->text, y->text, m);
        if (r != 0) return r;
        if (x->length != y->length) return x->length < y->length ? -1 : 1;
        break;
    }
    case 2:
        if (x->integer != y->integer) return x->integer < y->integer ? -1 : 1;
        break;
    case 3:
        if (x->serial != y->serial) return x->serial < y->serial ? -1 : 1;
        break;
    }
    return x->position < y->position ? -1 : (x->position > y->position ? 1 : 0);
}

/// Pushes the name a C function was registered under, or nothing (returns 0).
static int clua_push_function_name(lua_State *L, int index) {
    index = lua_absindex(L, index);
    if (lua_getfield(L, LUA_REGISTRYINDEX, CLUA_NAMES_KEY) != LUA_TTABLE) { lua_pop(L, 1); return 0; }
    lua_pushvalue(L, index);
    if (lua_rawget(L, -2) != LUA_TSTRING) { lua_pop(L, 2); return 0; }
    lua_remove(L, -2);
    return 1;
}

/// Pushes an array of the keys of the table at `t` in the sandbox's order; the work
/// (n log n) is charged to the budget.
static void clua_push_sorted_keys(lua_State *L, int t) {
    t = lua_absindex(L, t);
    int count = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) { lua_pop(L, 1); count++; }
    clua_charge_or_raise(L, 1 + (count > 1 ? (int64_t)(count * log2((double)count)) : count));
    lua_createtable(L, count, 0);                    /* keys, in next order */
    int keys_index = lua_gettop(L);
    clua_key *keys = (clua_key *)lua_newuserdatauv(L, sizeof(clua_key) * (size_t)(count ? count : 1), 0);
    int n = 0, ordered = 1;
    lua_pushnil(L);
    while (lua_next(L, t) && n < count) {
        lua_pop(L, 1);
        clua_key *k = &keys[n];
        memset(k, 0, sizeof(*k));
        k->position = n;
        switch (lua_type(L, -1)) {
        case LUA_TNUMBER:
            k->rank = 0;
            k->is_integer = lua_isinteger(L, -1);
            if (k->is_integer) k->integer = lua_tointeger(L, -1); else k->number = lua_tonumber(L, -1);
            if (!k->is_integer || k->integer != n + 1) ordered = 0;
            break;
        case LUA_TSTRING: k->rank = 1; k->text = lua_tolstring(L, -1, &k->length); ordered = 0; break;
        case LUA_TBOOLEAN: k->rank = 2; k->integer = lua_toboolean(L, -1); ordered = 0; break;
        default:
            ordered = 0;
            /* A named builtin (the sandbox's wrapped library functions are closures, so
               objects, but order by name as the functions they wrap would). */
            int named = lua_iscfunction(L, -1) && clua_push_function_name(L, -1);
            if (named) lua_pop(L, 1);
            k->serial = named ? 0 : clua_serial(L, -1);
            if (k->serial != 0) { k->rank = 3; break; }
            if (clua_push_function_name(L, -1)) {
                /* The name stays anchored in the names table while we sort. */
                k->rank = 4;
                k->text = lua_tolstring(L, -1, &k->length);
                lua_pop(L, 1);
            } else {
                k->rank = 5;
            }
            break;
        }
        lua_pushvalue(L, -1);
        lua_rawseti(L, keys_index, ++n); /* anchors string keys for the sort below */
    }
    if (!ordered) {
        qsort(keys, (size_t)n, sizeof(clua_key), clua_compare_keys);
        lua_createtable(L, n, 0);
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, keys_index, keys[i].position + 1);
            lua_rawseti(L, -2, i + 1);
        }
        lua_replace(L, keys_index);
    }
    lua_settop(L, keys_index);
}

// The iterator raises nothing but runs on every step of every pairs loop.
static int clua_sorted_next(lua_State *L) {
    /* upvalues: 1 the table, 2 the ordered keys, 3 the next position */
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(3));
    for (;;) {
        if (lua_rawgeti(L, lua_upvalueindex(2), i) == LUA_TNIL) return 0;
        i++;
        lua_pushvalue(L, -1);
        if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) { /* skip keys removed since */
            lua_pushinteger(L, i);
            lua_replace(L, lua_upvalueindex(3));
            return 2;
        }
        lua_pop(L, 2);
    }
}

static int clua_pairs_k(lua_State *L, int status, lua_KContext ctx) {
    (void)L; (void)status; (void)ctx;
    return 3;
}

int clua_pairs(lua_State *L) {
    if (luaL_getmetafield(L, 1, "__pairs") != LUA_TNIL) {
        lua_pushvalue(L, 1);
        lua_callk(L, 1, 3, 0, clua_pairs_k);  /* a __pairs may yield, as in Lua */
        return 3;
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    clua_see_through(L, 1);
    lua_pushvalue(L, 1);
    clua_push_sorted_keys(L, 1);
    lua_pushinteger(L, 1);
    lua_pushcclosure(L, clua_sorted_next, 3);
    lua_pushvalue(L, 1);  /* as Lua's: iterator, table, nil (the iterator reads its upvalues) */
    lua_pushnil(L);
    return 3;
}

/// Builds the cache entry {sorted keys, key -> position} of the table at 1 and leaves
/// it on top (also stored in the weak cache at index `cache`).
static void clua_build_next_entry(lua_State *L, int cache) {
    lua_createtable(L, 2, 0);
    int entry = lua_gettop(L);
    clua_push_sorted_keys(L, 1);
    int keys = lua_gettop(L);
    lua_Integer n = (lua_Integer)lua_rawlen(L, keys);
    lua_createtable(L, 0, (int)(n < 1 << 20 ? n : 1 << 20));
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, keys, i);
        lua_pushinteger(L, i);
        lua_rawset(L, -3);
    }
    lua_rawseti(L, entry, 2);
    lua_rawseti(L, entry, 1);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, entry);
    lua_rawset(L, cache);
}

// `next` in the sandbox: the same order as pairs. A traversal (next(t) then next(t, k)
// ...) sorts the keys once, when it starts, and keeps them in a weak cache; Lua's own
// rule (no new keys during a traversal) is what makes the cached order valid.
int clua_next(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    clua_see_through(L, 1);
    if (lua_getfield(L, LUA_REGISTRYINDEX, CLUA_NEXT_CACHE_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, CLUA_NEXT_CACHE_KEY);
    }
    int cache = 3;
    lua_Integer position = 0;
    if (!lua_isnil(L, 2)) {
        int fresh = 0;
        lua_pushvalue(L, 1);
        if (lua_rawget(L, cache) != LUA_TTABLE) { lua_pop(L, 1); clua_build_next_entry(L, cache); fresh = 1; }
        lua_rawgeti(L, -1, 2);
        lua_pushvalue(L, 2);
        if (lua_rawget(L, -2) != LUA_TNUMBER && !fresh) {
            /* A key the cached order does not know: the table changed; sort again. */
            lua_settop(L, cache);
            clua_build_next_entry(L, cache);
            lua_rawgeti(L, -1, 2);
            lua_pushvalue(L, 2);
            lua_rawget(L, -2);
        }
        if (!lua_isinteger(L, -1)) return luaL_error(L, "invalid key to 'next'");
        position = lua_tointeger(L, -1);
        lua_settop(L, cache);
        lua_pushvalue(L, 1);
        lua_rawget(L, cache);
    } else {
        clua_build_next_entry(L, cache);
    }
    lua_rawgeti(L, -1, 1);
    int keys = lua_gettop(L);
    for (lua_Integer i = position + 1;; i++) {
        if (lua_rawgeti(L, keys, i) == LUA_TNIL) { lua_pushnil(L); return 1; }
        lua_pushvalue(L, -1);
        if (lua_rawget(L, 1) != LUA_TNIL) return 2; /* skips keys cleared during the traversal */
        lua_pop(L, 2);
    }
}

/// Pushes "table: 0x000000000000002a": the object's type (or __name) and its serial,
/// which orders objects by creation, as a string too.
static void clua_push_identity(lua_State *L, int index) {
    index = lua_absindex(L, index);
    int top = lua_gettop(L);
    const char *kind = luaL_typename(L, index);
    /* The __name, if any, stays on the stack (anchored) until the result is built. */
    if (luaL_getmetafield(L, index, "__name") == LUA_TSTRING) kind = lua_tostring(L, -1);
    /* A named builtin prints its name, a wrapped library function (a closure) too. */
    int named = lua_iscfunction(L, index) && clua_push_function_name(L, index);
    if (named) lua_pop(L, 1);
    uint64_t serial = named ? 0 : clua_serial(L, index);
    if (serial != 0) {
        char text[32];
        snprintf(text, sizeof text, "0x%016llx", (unsigned long long)serial);
        lua_pushfstring(L, "%s: %s", kind, text);
    } else if (lua_type(L, index) == LUA_TFUNCTION && clua_push_function_name(L, index)) {
        lua_pushfstring(L, "%s: builtin: %s", kind, lua_tostring(L, -1));
    } else {
        lua_pushfstring(L, "%s: builtin", kind);
    }
    lua_copy(L, -1, top + 1);
    lua_settop(L, top + 1);
}

/// Whether tostring of the value at `index` would print an address.
static int clua_prints_address(lua_State *L, int index) {
    switch (lua_type(L, index)) {
    case LUA_TTABLE: case LUA_TFUNCTION: case LUA_TTHREAD: case LUA_TUSERDATA: case LUA_TLIGHTUSERDATA:
        break;
    default:
        return 0;
    }
    if (luaL_getmetafield(L, index, "__tostring") != LUA_TNIL) { lua_pop(L, 1); return 0; }
    return 1;
}

int clua_tostring_sandboxed(lua_State *L) {
    luaL_checkany(L, 1);
    lua_settop(L, 1);
    if (clua_prints_address(L, 1)) {
        clua_push_identity(L, 1);
        return 1;
    }
    /* Writing a float as text is C work no instruction counts. */
    if (lua_type(L, 1) == LUA_TNUMBER && !lua_isinteger(L, 1)) clua_charge_or_raise(L, CLUA_FLOAT_TEXT_UNITS);
    /* What the real tostring does, without a call frame (numbers in hot loops). */
    luaL_tolstring(L, 1, NULL);
    return 1;
}

/// What writing a float with a directive costs: the conversion, the width and precision
/// it pads to, and for %f the digits before the point (1e300 has 301).
static double clua_float_directive_units(lua_State *L, int arg, char conversion, double width, double precision) {
    double units = CLUA_FLOAT_TEXT_UNITS + width + precision;
    if ((conversion == 'f' || conversion == 'F') && lua_type(L, arg) == LUA_TNUMBER) {
        double x = fabs((double)lua_tonumber(L, arg));
        if (isfinite(x) && x >= 10) units += floor(log10(x));
    }
    return units;
}

// string.format: `%s` of an object prints its identity, not its address; `%p` (an
// address) is refused; the format, its string arguments and its float conversions
// are charged.
int clua_format(lua_State *L) {
    size_t length = 0;
    const char *format = luaL_checklstring(L, 1, &length);
    double units = 1 + (double)length / CLUA_BYTES_PER_UNIT;
    int arg = 1;
    for (size_t i = 0; i < length; i++) {
        if (format[i] != '%') continue;
        i++;
        if (i < length && format[i] == '%') continue;
        /* Flags, then width and precision (Lua allows two digits each). */
        size_t flags = i;
        while (i < length && strchr("-+ #0", format[i]) != NULL) i++;
        int only_minus = 1;  /* the one flag Lua's %p takes */
        for (size_t f = flags; f < i; f++) if (format[f] != '-') only_minus = 0;
        int has_precision = 0;
        double width = 0, precision = 0;
        while (i < length && format[i] >= '0' && format[i] <= '9') width = width * 10 + (format[i++] - '0');
        if (i < length && format[i] == '.') {
            has_precision = 1;
            i++;
            while (i < length && format[i] >= '0' && format[i] <= '9') precision = precision * 10 + (format[i++] - '0');
        }
        if (i >= length) break;
        /* Lua takes two digits of each ("invalid conversion" past them): a longer
           one is refused, not worked. */
        if (width > 99) width = 0;
        if (precision > 99) precision = 0;
        arg++;
        units += 1 + width;
        /* (a %p Lua itself refuses, `%3.1p`, gets Lua's own "invalid conversion") */
        if (format[i] == 'p' && only_minus && !has_precision)
            return luaL_argerror(L, arg, "'%p' would show an address, which differs between runs");
        int text = format[i] == 's' || format[i] == 'q';
        if (strchr("aAeEfFgG", format[i]) != NULL) units += clua_float_directive_units(L, arg, format[i], width, precision);
        else if (text && lua_type(L, arg) == LUA_TNUMBER && !lua_isinteger(L, arg)) units += CLUA_FLOAT_TEXT_UNITS;
        /* A string argument is copied (%s, %q) or read as a number by strtod (%d of "1e5"). */
        if (lua_type(L, arg) == LUA_TSTRING) units += (double)lua_rawlen(L, arg) / CLUA_BYTES_PER_UNIT;
        /* %s of a table or function prints its identity (%q of one has no literal form: Lua refuses it). */
        if (format[i] == 's' && clua_prints_address(L, arg)) {
            clua_push_identity(L, arg);
            lua_replace(L, arg);
        }
    }
    clua_charge_or_raise(L, (int64_t)units);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/// Names the function on top of the stack (a library function the sandbox wrapped is a
/// new closure: it prints and orders by the library's name, as the original would).
void clua_name_top(lua_State *L, const char *name) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, CLUA_NAMES_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, CLUA_NAMES_KEY);
    }
    lua_pushvalue(L, -2);
    lua_pushstring(L, name);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

void clua_name_functions(lua_State *L, int table) {
    table = lua_absindex(L, table);
    if (lua_getfield(L, LUA_REGISTRYINDEX, CLUA_NAMES_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, CLUA_NAMES_KEY);
    }
    int names = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, table)) {
        if (lua_type(L, -2) == LUA_TSTRING) {
            if (lua_iscfunction(L, -1)) {
                lua_pushvalue(L, -1);
                lua_pushvalue(L, -3);
                lua_rawset(L, names);
            } else if (lua_type(L, -1) == LUA_TTABLE) {
                /* One level down: library tables, named "library.function". */
                const char *library = lua_tostring(L, -2);
                int lib = lua_gettop(L);
                lua_pushnil(L);
                while (lua_next(L, lib)) {
                    if (lua_type(L, -2) == LUA_TSTRING && lua_iscfunction(L, -1)) {
                        lua_pushvalue(L, -1);
                        lua_pushfstring(L, "%s.%s", library, lua_tostring(L, -3));
                        lua_rawset(L, names);
                    }
                    lua_pop(L, 1);
                }
            }
        }
        lua_pop(L, 1);
    }
    /* Iterators the libraries hand out are light C functions too. */
    if (lua_getfield(L, table, "ipairs") == LUA_TFUNCTION) {
        lua_newtable(L);
        lua_call(L, 1, 1);
        lua_pushliteral(L, "ipairs iterator");
        lua_rawset(L, names);
    } else lua_pop(L, 1);
    if (lua_getfield(L, table, "utf8") == LUA_TTABLE) {
        for (int lax = 0; lax <= 1; lax++) {
            if (lua_getfield(L, -1, "codes") != LUA_TFUNCTION) { lua_pop(L, 1); break; }
            lua_pushliteral(L, "");
            lua_pushboolean(L, lax);
            lua_call(L, 2, 1);
            if (lax) lua_pushliteral(L, "utf8.codes iterator (lax)");
            else lua_pushliteral(L, "utf8.codes iterator");
            lua_rawset(L, names);
        }
    }
    lua_pop(L, 2);
}
