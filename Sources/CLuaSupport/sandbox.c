// Why this file: the library functions a rule script gets are Lua's own, some of them
// wrapped so a script cannot escape the sandbox, stall the host inside C (where the
// count hook never fires), or outlive a spent budget. The wrappers raise argument and
// budget errors, which only C may do, and need C function pointers.
#include "CLuaSupport.h"
#include <math.h>
#include <string.h>

void clua_install_hook(lua_State *L, int every);
void clua_push_coroutine_function(lua_State *L, const char *which);
int clua_math_randomseed(lua_State *L);
int clua_pairs(lua_State *L);
int clua_next(lua_State *L);
int clua_tostring_sandboxed(lua_State *L);
int clua_format(lua_State *L);

/* ---------------------------------------------------------------------------------
** Guards
** ------------------------------------------------------------------------------- */

// Watched tables: a fast simulation's roll tables (Simulation/dicehost-simulation.lua) carry
// metatables the driver registers here (clua_watch_metatable): a weak-keyed registry
// table maps each such metatable to {touched, shows}. Writes that bypass __newindex
// (rawset) mark the table in `touched` (touched[t] = true, and touched[1] = true: some
// table is); getmetatable answers `shows` (what play would); setmetatable refuses. Only
// the host registers: a script cannot make a table look watched.
static const char clua_watch_registry = 'w';

/* Pushes the {touched, shows} entry of the value at `index` if its metatable is watched. */
static int clua_push_watch(lua_State *L, int index) {
    if (lua_type(L, index) != LUA_TTABLE || !lua_getmetatable(L, index)) return 0;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_watch_registry) != LUA_TTABLE) {
        lua_pop(L, 2);
        return 0;
    }
    lua_insert(L, -2);                      /* registry, metatable */
    if (lua_rawget(L, -2) != LUA_TTABLE) {
        lua_pop(L, 2);
        return 0;
    }
    lua_remove(L, -2);
    return 1;
}

void clua_watch_metatable(lua_State *L, int metatable, int touched, int shows) {
    metatable = lua_absindex(L, metatable);
    touched = lua_absindex(L, touched);
    shows = lua_absindex(L, shows);
    luaL_checkstack(L, 4, "watch");
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_watch_registry) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 4);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &clua_watch_registry);
    }
    lua_pushvalue(L, metatable);
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, touched);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, shows);
    lua_rawseti(L, -2, 2);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

int clua_plain_rawset(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

// rawset marks a watched table before it writes, so the simulation sees every field a
// script adds to a roll, however it adds it.
static int clua_rawset(lua_State *L) {
    if (clua_push_backing(L, 1)) {
        if (!clua_takes_loading_writes(L, 1)) return clua_refuse_frozen_write(L, 1, 2);
        lua_replace(L, 1);
        clua_plain_rawset(L);
        lua_settop(L, 1);  /* rawset returns the table it was given */
        return 1;
    }
    if (clua_push_watch(L, 1) && lua_rawgeti(L, -1, 1) == LUA_TTABLE) {   /* touched[t], touched[1] */
        lua_pushvalue(L, 1);
        lua_pushboolean(L, 1);
        lua_rawset(L, -3);
        lua_pushboolean(L, 1);
        lua_rawseti(L, -2, 1);
    }
    return clua_plain_rawset(L);
}

// rawget and rawlen of a frozen table (readonly.c) read its backing table.
static int clua_rawget(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    lua_settop(L, 2);
    /* A look's stand-in gives what it reaches read-only too (look.c). */
    if (clua_push_look_target(L, 1)) {
        lua_pop(L, 1);
        clua_push_look_field(L, 1, 2);
        return 1;
    }
    clua_see_through(L, 1);
    lua_rawget(L, 1);
    return 1;
}

static int clua_rawlen(lua_State *L) {
    int t = lua_type(L, 1);
    luaL_argexpected(L, t == LUA_TTABLE || t == LUA_TSTRING, 1, "table or string");
    clua_see_through(L, 1);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, 1));
    return 1;
}

// getmetatable of a watched table answers what play would (Roll for a roll, nothing for
// its values).
static int clua_getmetatable(lua_State *L) {
    luaL_checkany(L, 1);
    lua_settop(L, 1);
    if (clua_push_watch(L, 1)) {
        lua_rawgeti(L, -1, 2);
        return 1;
    }
    if (clua_push_original_metatable(L, 1)) return 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 1, 1);
    return 1;
}

// Finalizers would run at unpredictable GC times and outside any budget, so a
// metatable with __gc is refused. A watched table keeps its metatable (the simulation
// then leaves the game to the host, where the same call succeeds).
static int clua_setmetatable(lua_State *L) {
    if (clua_push_watch(L, 1))
        return luaL_error(L, "dicehost-simulation: a roll's metatable changes move by move");
    if (clua_push_look_target(L, 1))
        return luaL_error(L, "a look (view, table, choices or status hook) cannot change the metatable of a table of the game");
    if (clua_push_backing(L, 1))
        return luaL_error(L, "cannot change the metatable of %s: it is read-only once the script has loaded",
                          "a rule, global or library table");
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_argerror(L, 2, "__gc metamethods are not allowed in rule scripts");
        lua_pop(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

// warn as the standalone lua has it by default (warnings off): the arguments are
// checked, nothing is shown ("@on" is not honoured: a game has no stderr).
static int clua_warn(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checkstring(L, 1);
    for (int i = 2; i <= n; i++) luaL_checkstring(L, i);
    return 0;
}

// collectgarbage("collect") and friends would let scripts steer GC.
static int clua_collectgarbage(lua_State *L) {
    /* An option Lua does not know gets Lua's own error first. */
    static const char *const options[] = {"stop", "restart", "collect", "count", "step", "setpause",
        "setstepmul", "isrunning", "generational", "incremental", NULL};
    const char *opt = options[luaL_checkoption(L, 1, "collect", options)];
    if (strcmp(opt, "count") != 0)
        return luaL_argerror(L, 1, "only \"count\" is allowed in rule scripts");
    lua_pushnumber(L, (lua_Number)lua_gc(L, LUA_GCCOUNT, 0) + (lua_Number)lua_gc(L, LUA_GCCOUNTB, 0) / 1024.0);
    return 1;
}

/* Where the piece a reader function returned is kept while the parser reads it. */
#define CLUA_LOAD_PIECE_SLOT 5

/// Calls load's reader function for the next piece and charges what the parser will do
/// with it (a reader may hand out the same long string for ever; only its own few
/// instructions would be counted). Runs inside lua_load's protected parser.
static const char *clua_charged_reader(lua_State *L, void *ud, size_t *size) {
    (void)ud;
    luaL_checkstack(L, 2, "too many nested functions");
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        *size = 0;
        return NULL;
    }
    if (!lua_isstring(L, -1)) luaL_error(L, "reader function must return a string");
    lua_replace(L, CLUA_LOAD_PIECE_SLOT);
    const char *piece = lua_tolstring(L, CLUA_LOAD_PIECE_SLOT, size);
    clua_charge_or_raise(L, 1 + (int64_t)(*size / CLUA_BYTES_PER_UNIT) * 4);
    return piece;
}

// Forwards to the real load with mode "t" (binary chunks bypass the verifier) and the
// sandbox as default environment (the real default is the unsandboxed _G). Compiling
// is C work on the chunk's bytes, so it is charged: a string up front, a reader
// function's pieces as they come (then the chunk is compiled here, as the real load
// would, since the real one calls the reader uncharged).
static int clua_load(lua_State *L) {
    int has_env = lua_gettop(L) >= 4;
    /* Only text is ever compiled: a mode without 't' refuses it as Lua does. */
    const char *mode = luaL_optstring(L, 3, "bt");
    if (strchr(mode, 't') == NULL) {
        lua_pushnil(L);
        lua_pushfstring(L, "attempt to load a text chunk (mode is '%s')", mode);
        return 2;
    }
    if (lua_type(L, 1) == LUA_TFUNCTION) {
        const char *name = luaL_optstring(L, 2, "=(load)");
        lua_settop(L, CLUA_LOAD_PIECE_SLOT);
        int status = lua_load(L, clua_charged_reader, NULL, name, "t");
        if (status != LUA_OK) {
            lua_pushnil(L);
            lua_insert(L, -2);
            return 2;
        }
        if (has_env) lua_pushvalue(L, 4); else lua_pushvalue(L, lua_upvalueindex(2));
        if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
        return 1;
    }
    size_t length = 0;
    if (lua_type(L, 1) == LUA_TSTRING) lua_tolstring(L, 1, &length);
    clua_charge_or_raise(L, 1 + (int64_t)(length / CLUA_BYTES_PER_UNIT) * 4);
    lua_settop(L, 4);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushliteral(L, "t");
    if (has_env) lua_pushvalue(L, 4); else lua_pushvalue(L, lua_upvalueindex(2));
    lua_call(L, 4, LUA_MULTRET);
    return lua_gettop(L) - 4;
}

// A message handler runs while Lua unwinds, and after an error raised by the count
// hook it runs with hooks off: a handler that loops would never be stopped. Once the
// budget is spent (or Ctrl-C asked), the script's handler is not run at all and the
// error goes on as it is.
static int clua_guarded_handler(lua_State *L) {
    if (clua_budget_spent(clua_ctx(L))) {
        lua_settop(L, 1);
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* The sandbox refuses a thread's stack past CLUA_MAX_STACK_SLOTS in the allocator (see
   CLuaSupport.h), which Lua raises as a memory error, and Lua runs no message handler for
   a memory error. Plain Lua raises "stack overflow" as an ordinary error, runs the handler
   and gives its result, or "error in error handling" when the handler fails too (Lua
   5.4.4's testes/cstack.lua and locals.lua). So when the call failed of a stack refusal
   made during it, the handler runs here, on the unwound stack, with Lua's message; the
   stack it runs on is as capped as any. */
static int clua_xpcall_finish(lua_State *L, int status, lua_KContext refusals_before) {
    if (status == LUA_OK || status == LUA_YIELD) return lua_gettop(L) - 2;
    clua_context *c = clua_ctx(L);
    if (status == LUA_ERRMEM && c->last_refusal_stack && c->stack_refusals != (uint64_t)refusals_before) {
        lua_pushvalue(L, 2);
        lua_pushliteral(L, "stack overflow");
        if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
            lua_pop(L, 1);
            lua_pushliteral(L, "error in error handling");
        }
    }
    lua_pushboolean(L, 0);
    lua_pushvalue(L, -2);
    return 2;
}

/* As Lua's xpcall (lbaselib.c), with the guarded handler and the stack overflow above. */
static int clua_xpcall(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, clua_guarded_handler, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);
    lua_KContext refusals = (lua_KContext)clua_ctx(L)->stack_refusals;
    /* lua_pcallk keeps a coroutine that yields inside xpcall able to resume. */
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, refusals, clua_xpcall_finish);
    return clua_xpcall_finish(L, status, refusals);
}

/* ---------------------------------------------------------------------------------
** Charged library functions: their work happens in C, where no instruction is
** counted, so each call is charged up front by the size of what it will touch.
** ------------------------------------------------------------------------------- */

enum clua_cost {
    CLUA_COST_BYTES_1,     /* bytes of argument 1 (upper, lower, reverse, byte, tonumber, utf8) */
    CLUA_COST_REP,         /* string.rep: the result's bytes and the repetitions */
    CLUA_COST_ARGUMENTS,   /* one unit per argument (string.char, utf8.char) */
    CLUA_COST_SORT,        /* n log n of #t */
    CLUA_COST_UNPACK,      /* j - i + 1 of table.unpack(t, i, j) */
    CLUA_COST_MOVE,        /* e - f + 1 of table.move(a1, f, e, t) */
    CLUA_COST_PACK,        /* string.packsize: the format and the data */
    CLUA_COST_PACK_RESULT, /* string.pack: as CLUA_COST_PACK, and the bytes 'cN' pads */
    CLUA_COST_BYTE_RANGE,  /* bytes of argument 1; at most CLUA_MAX_RESULTS results (byte, codepoint) */
    CLUA_COST_UNPACK_DATA, /* as CLUA_COST_PACK; at most CLUA_MAX_RESULTS results (string.unpack) */
    CLUA_COST_INSERT,      /* table.insert: the elements it shifts (none to append) */
    CLUA_COST_REMOVE,      /* table.remove: the elements it shifts (none from the end) */
    CLUA_COST_CONCAT,      /* table.concat: the elements from i to j it can reach, floats as text */
    CLUA_COST_FMOD,        /* math.fmod of floats: the exponents between dividend and divisor */
    CLUA_COST_OPERANDS,    /* math functions, string arithmetic: the strings read as numbers */
};

/// The bytes a library function reads of an argument: a string's length; a float, which
/// the function writes as text first, counts as CLUA_FLOAT_TEXT_UNITS' worth of bytes.
static double clua_bytes(lua_State *L, int index) {
    size_t n = 0;
    if (lua_type(L, index) == LUA_TSTRING) lua_tolstring(L, index, &n);
    else if (lua_type(L, index) == LUA_TNUMBER && !lua_isinteger(L, index)) return CLUA_FLOAT_TEXT_UNITS * CLUA_BYTES_PER_UNIT;
    return (double)n;
}

static double clua_integer_or(lua_State *L, int index, double fallback) {
    int ok = 0;
    lua_Integer v = lua_tointegerx(L, index, &ok);
    return ok ? (double)v : fallback;
}

static double clua_raw_length(lua_State *L, int index) {
    return lua_type(L, index) == LUA_TTABLE ? (double)lua_rawlen(L, index) : 0.0;
}

/// How many values s:byte(i, j) or utf8.codepoint(s, i, j) returns at most.
static double clua_range_results(lua_State *L) {
    double n = clua_bytes(L, 1);
    double i = clua_integer_or(L, 2, 1);
    double j = clua_integer_or(L, 3, i);
    if (i < 0) i = i < -n ? 1 : n + i + 1;
    if (j < 0) j = n + j + 1;
    if (i < 1) i = 1;
    if (j > n) j = n;
    return j >= i ? j - i + 1 : 0;
}

static int clua_too_many_results(lua_State *L) {
    return luaL_error(L, "too many results (a library call returns at most %d values)", CLUA_MAX_RESULTS);
}

/// Whether the argument converts to an integer as the library's luaL_checkinteger
/// would take it (integers, integral floats, numeric strings).
static int clua_as_integer(lua_State *L, int index, lua_Integer *value) {
    int ok = 0;
    *value = lua_tointegerx(L, index, &ok);
    return ok;
}

static int clua_charged(lua_State *L) {
    double units = 1;
    lua_Integer pos;
    /* Any later argument given as a string is read as a number (strtod: work by its
       length) or as text; a float later argument is written as text. */
    for (int i = 2; i <= lua_gettop(L); i++) {
        int type = lua_type(L, i);
        if (type == LUA_TSTRING || (type == LUA_TNUMBER && !lua_isinteger(L, i))) units += clua_bytes(L, i) / CLUA_BYTES_PER_UNIT;
    }
    switch ((int)lua_tointeger(L, lua_upvalueindex(2))) {
    case CLUA_COST_BYTES_1:
        units += clua_bytes(L, 1) / CLUA_BYTES_PER_UNIT;
        break;
    case CLUA_COST_REP: {
        /* Sizes first: a result Lua refuses ("resulting string too large", past
           INT_MAX bytes) or one past the memory cap is no work, and the error it
           raises is Lua's own, catchable one. */
        double n = clua_integer_or(L, 2, 0), piece = clua_bytes(L, 1) + clua_bytes(L, 3);
        if (n > 0 && piece * n <= 2147483647.0 && piece * n <= (double)clua_ctx(L)->memory_limit)
            units += n + n * piece / CLUA_BYTES_PER_UNIT;
        else if (n > 0 && piece == 0)
            units += n;
        break;
    }
    case CLUA_COST_INSERT:
        /* table.insert(t, v) appends; table.insert(t, pos, v) shifts #t - pos + 1. */
        if (lua_gettop(L) == 3 && lua_type(L, 1) == LUA_TTABLE && clua_as_integer(L, 2, &pos)) {
            lua_Integer n = luaL_len(L, 1);
            if (pos >= 1 && n < LUA_MAXINTEGER && pos <= n + 1) units += (double)(n - pos + 1);
        }
        break;
    case CLUA_COST_REMOVE:
        /* table.remove(t) takes the last; table.remove(t, pos) shifts #t - pos. */
        if (lua_gettop(L) >= 2 && lua_type(L, 1) == LUA_TTABLE && clua_as_integer(L, 2, &pos)) {
            lua_Integer n = luaL_len(L, 1);
            if (pos >= 1 && pos <= n) units += (double)(n - pos + 1);
        }
        break;
    case CLUA_COST_CONCAT:
        /* It stops at the first element that is not a string or number
           (requested_sizes.c): i and j alone say nothing of the work. */
        if (lua_type(L, 1) == LUA_TTABLE) {
            lua_Integer i = 1, j = 0;
            if (!lua_isnoneornil(L, 3) && !clua_as_integer(L, 3, &i)) break;
            if (lua_isnoneornil(L, 4)) j = luaL_len(L, 1);
            else if (!clua_as_integer(L, 4, &j)) break;
            units += clua_concat_units(L, i, j);
        }
        break;
    case CLUA_COST_OPERANDS:
        /* Strings read as numbers (strtod works through every digit): argument 1 here,
           the others above. Numbers themselves cost nothing more. */
        if (lua_type(L, 1) == LUA_TSTRING) units += clua_bytes(L, 1) / CLUA_BYTES_PER_UNIT;
        break;
    case CLUA_COST_FMOD:
        if (lua_type(L, 1) == LUA_TSTRING) units += clua_bytes(L, 1) / CLUA_BYTES_PER_UNIT;
        /* fmod of floats reduces bit by bit: fmod(1e300, 3.3) takes a thousand steps. */
        if (lua_type(L, 1) == LUA_TNUMBER && lua_type(L, 2) == LUA_TNUMBER && !(lua_isinteger(L, 1) && lua_isinteger(L, 2))) {
            double a = fabs((double)lua_tonumber(L, 1)), b = fabs((double)lua_tonumber(L, 2));
            if (isfinite(a) && isfinite(b) && a > 0 && b > 0 && a > b) units += (double)(ilogb(a) - ilogb(b)) / 16;
        }
        break;
    case CLUA_COST_ARGUMENTS:
        units += lua_gettop(L);
        break;
    case CLUA_COST_SORT: {
        double n = clua_raw_length(L, 1);
        if (n > 1) units += n * log2(n);
        break;
    }
    case CLUA_COST_UNPACK: {
        double i = clua_integer_or(L, 2, 1), j = clua_integer_or(L, 3, clua_raw_length(L, 1));
        if (j >= i) units += j - i + 1;
        if (j >= i && j - i + 1 > CLUA_MAX_RESULTS) return clua_too_many_results(L);
        break;
    }
    case CLUA_COST_BYTE_RANGE:
        units += clua_bytes(L, 1) / CLUA_BYTES_PER_UNIT;
        if (clua_range_results(L) > CLUA_MAX_RESULTS) return clua_too_many_results(L);
        break;
    case CLUA_COST_UNPACK_DATA:
        /* Each result needs at least one character of the format. */
        if (clua_bytes(L, 1) > CLUA_MAX_RESULTS) return clua_too_many_results(L);
        units += lua_gettop(L) + clua_bytes(L, 1) / CLUA_BYTES_PER_UNIT; /* the data: above */
        break;
    case CLUA_COST_MOVE: {
        /* Lua's own checks first ("too many elements to move", "destination wrap
           around"): a move it refuses does no work. */
        lua_Integer f, e, t;
        if (clua_as_integer(L, 2, &f) && clua_as_integer(L, 3, &e) && clua_as_integer(L, 4, &t)) {
            if (e >= f && (f > 0 || e < LUA_MAXINTEGER + f)) {
                lua_Integer n = e - f + 1;
                if (t <= LUA_MAXINTEGER - n + 1) units += (double)n;
            }
        }
        break;
    }
    case CLUA_COST_PACK:
        units += lua_gettop(L) + clua_bytes(L, 1) / CLUA_BYTES_PER_UNIT; /* the values: above */
        break;
    case CLUA_COST_PACK_RESULT: {
        /* 'cN' pads byte by byte towards N: a result past the memory cap is Lua's
           memory error before any of that work (requested_sizes.c). */
        double padding = clua_pack_padding(L);
        if (padding > (double)clua_ctx(L)->memory_limit) clua_refuse_past_memory_cap(L, padding);
        units += lua_gettop(L) + clua_bytes(L, 1) / CLUA_BYTES_PER_UNIT + padding / 4;
        break;
    }
    }
    clua_charge_or_raise(L, units > 9.0e18 ? (int64_t)9.0e18 : (int64_t)units);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

static const struct { const char *name; int cost; } clua_charged_functions[] = {
    {"string.upper", CLUA_COST_BYTES_1}, {"string.lower", CLUA_COST_BYTES_1},
    {"string.reverse", CLUA_COST_BYTES_1}, {"string.byte", CLUA_COST_BYTE_RANGE},
    {"string.sub", CLUA_COST_BYTES_1}, {"string.len", CLUA_COST_BYTES_1},
    {"string.rep", CLUA_COST_REP}, {"string.char", CLUA_COST_ARGUMENTS},
    {"string.pack", CLUA_COST_PACK_RESULT}, {"string.unpack", CLUA_COST_UNPACK_DATA}, {"string.packsize", CLUA_COST_PACK},
    {"utf8.char", CLUA_COST_ARGUMENTS}, {"utf8.len", CLUA_COST_BYTES_1},
    {"utf8.codepoint", CLUA_COST_BYTE_RANGE}, {"utf8.offset", CLUA_COST_BYTES_1},
    {"utf8.codes", CLUA_COST_BYTES_1},
    {"table.insert", CLUA_COST_INSERT}, {"table.remove", CLUA_COST_REMOVE},
    {"table.concat", CLUA_COST_CONCAT}, {"table.sort", CLUA_COST_SORT},
    {"table.unpack", CLUA_COST_UNPACK}, {"table.move", CLUA_COST_MOVE},
    {"tonumber", CLUA_COST_BYTES_1}, {"math.fmod", CLUA_COST_FMOD},
    {"math.abs", CLUA_COST_OPERANDS}, {"math.ceil", CLUA_COST_OPERANDS}, {"math.floor", CLUA_COST_OPERANDS},
    {"math.sqrt", CLUA_COST_OPERANDS}, {"math.exp", CLUA_COST_OPERANDS}, {"math.log", CLUA_COST_OPERANDS},
    {"math.sin", CLUA_COST_OPERANDS}, {"math.cos", CLUA_COST_OPERANDS}, {"math.tan", CLUA_COST_OPERANDS},
    {"math.asin", CLUA_COST_OPERANDS}, {"math.acos", CLUA_COST_OPERANDS}, {"math.atan", CLUA_COST_OPERANDS},
    {"math.modf", CLUA_COST_OPERANDS}, {"math.tointeger", CLUA_COST_OPERANDS}, {"math.ult", CLUA_COST_OPERANDS},
    {"math.max", CLUA_COST_OPERANDS}, {"math.min", CLUA_COST_OPERANDS},
    /* The string metatable's arithmetic (Lua 5.4 coerces "10" + 1 there). */
    {"string-arithmetic.__add", CLUA_COST_OPERANDS}, {"string-arithmetic.__sub", CLUA_COST_OPERANDS},
    {"string-arithmetic.__mul", CLUA_COST_OPERANDS}, {"string-arithmetic.__div", CLUA_COST_OPERANDS},
    {"string-arithmetic.__mod", CLUA_COST_OPERANDS}, {"string-arithmetic.__pow", CLUA_COST_OPERANDS},
    {"string-arithmetic.__idiv", CLUA_COST_OPERANDS}, {"string-arithmetic.__unm", CLUA_COST_OPERANDS},
    {NULL, 0},
};

/* ---------------------------------------------------------------------------------
** Installing (each needs a C function's address)
** ------------------------------------------------------------------------------- */

void clua_wrap_top(lua_State *L, const char *which) {
    for (int i = 0; clua_charged_functions[i].name != NULL; i++) {
        if (strcmp(which, clua_charged_functions[i].name) == 0) {
            lua_pushinteger(L, clua_charged_functions[i].cost);
            lua_pushcclosure(L, clua_charged, 2);
            return;
        }
    }
    if (strcmp(which, "setmetatable") == 0) lua_pushcclosure(L, clua_setmetatable, 1);
    else if (strcmp(which, "getmetatable") == 0) lua_pushcclosure(L, clua_getmetatable, 1);
    else if (strcmp(which, "rawset") == 0) lua_pushcclosure(L, clua_rawset, 1);
    else if (strcmp(which, "rawget") == 0) lua_pushcclosure(L, clua_rawget, 1);
    else if (strcmp(which, "rawlen") == 0) lua_pushcclosure(L, clua_rawlen, 1);
    else if (strcmp(which, "xpcall") == 0) { lua_pop(L, 1); lua_pushcfunction(L, clua_xpcall); }
    else if (strncmp(which, "coroutine.", 10) == 0) {
        /* The sandbox's own (coroutine.c): they replace the originals. */
        lua_pop(L, 1);
        clua_push_coroutine_function(L, which + 10);
    }
    else if (strcmp(which, "string.format") == 0) lua_pushcclosure(L, clua_format, 1);
    else if (strcmp(which, "tostring") == 0) lua_pushcclosure(L, clua_tostring_sandboxed, 1);
    else if (strncmp(which, "string.", 7) == 0) clua_push_pattern_function(L, which + 7);
}

/// Whether clua_wrap_top knows `which` (so the sandbox can wrap every library function
/// it has a guard for, from one list).
int clua_has_wrapper(const char *which) {
    for (int i = 0; clua_charged_functions[i].name != NULL; i++)
        if (strcmp(which, clua_charged_functions[i].name) == 0) return 1;
    static const char *others[] = {"setmetatable", "getmetatable", "rawset", "rawget", "rawlen", "xpcall", "coroutine.create", "coroutine.wrap",
                                   "coroutine.resume", "coroutine.close",
                                   "string.format", "tostring", "string.find", "string.match",
                                   "string.gmatch", "string.gsub", NULL};
    for (int i = 0; others[i] != NULL; i++) if (strcmp(which, others[i]) == 0) return 1;
    return 0;
}

void clua_push_sandboxed_load(lua_State *L) {
    lua_pushcclosure(L, clua_load, 2);
}

void clua_push_sandbox_function(lua_State *L, const char *which) {
    if (strcmp(which, "pairs") == 0) lua_pushcfunction(L, clua_pairs);
    else if (strcmp(which, "next") == 0) lua_pushcfunction(L, clua_next);
    else if (strcmp(which, "collectgarbage") == 0) lua_pushcfunction(L, clua_collectgarbage);
    else if (strcmp(which, "warn") == 0) lua_pushcfunction(L, clua_warn);
    else if (strcmp(which, "math.random") == 0) lua_pushcfunction(L, clua_math_random);
    else if (strcmp(which, "math.randomseed") == 0) lua_pushcfunction(L, clua_math_randomseed);
    else lua_pushnil(L);
}

void clua_open_safe_libraries(lua_State *L) {
    luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
    luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
    luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
    luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 1);
    lua_pop(L, 6);
}
