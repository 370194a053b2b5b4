// Why this file: a simulation plays whole games inside one Lua call (the driver in
// DiceHost/Simulation/dicehost-simulation.lua), and the little it needs per game and per roll is C: seeding
// the game's generator as the host seeds it, holding each game against the input budget
// (its charges, and its time as an upper bound on its instructions), the plain
// setmetatable the sandbox no longer offers (its setmetatable refuses watched roll
// tables; the plain rawset and the die, math.random, come from sandbox.c and random.c),
// emptying the tables a worker reuses from game to game,
// and counting a block's log of games. Argument errors raise, which only C may do.
#include "CLuaSupport.h"
#include <ctype.h>

/// The seed of game `index` of a study seeded `seed` (splitmix64 of both): the same
/// function as Simulation.gameSeed in Swift.
static uint64_t clua_game_seed(uint64_t seed, int64_t index) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL * ((uint64_t)index + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The calling thread's CPU time: a thread runs no instruction while it waits for a CPU,
   so this bounds what it ran even on a machine shared with other work (wall time would
   count the waits, and games a busy neighbour delayed would be played again for nothing). */
static int64_t clua_thread_cpu_ns(void) {
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return -1;
    return (int64_t)t.tv_sec * 1000000000 + (int64_t)t.tv_nsec;
}

/* The budget check of a game that started at `started` (the thread's CPU clock) and
   whose host calls the driver charged `charged`. A game's charges and, without the count
   hook, its CPU time at the fastest rate any machine runs (CLUA_FASTEST_INSTRUCTIONS_PER_NS)
   bound what any one of its inputs spent; with the slack for the host's own wrappers
   (CLUA_STEP_SLACK) that bound must fit one input's budget. */
static int clua_sim_within_budget(clua_context *c, lua_Integer started, lua_Integer charged, int64_t cpu) {
    int ok = !c->budget_tripped && !c->interrupt_requested && charged >= 0 && started >= 0 && cpu >= started;
    if (ok && c->budget_armed) {
        int64_t used = c->budget_total - c->budget_remaining;
        /* Time only bounds instructions no hook counted; both terms stay far below 2^62. */
        int64_t spent = cpu - started;
        int64_t elapsed = c->budget_hooked ? 0 : spent * CLUA_FASTEST_INSTRUCTIONS_PER_NS;
        if (spent > ((int64_t)1 << 50) || charged > ((int64_t)1 << 60) || used < 0) ok = 0;
        else ok = elapsed + used + (int64_t)charged + CLUA_STEP_SLACK <= c->budget_total;
    }
    return ok;
}

/// next_game(started, charged, study_seed, index) -> ok, started: ends the game that
/// started at `started` (-1: none) - ok says whether it certainly kept every input within
/// the budget; a game for which it does not is played again move by move under the
/// budget - and begins game `index`: seeds the generator for it, gives it a fresh budget,
/// shows a watchdog progress, and returns the thread's CPU clock. One call between two
/// games, so one clock read.
static int clua_sim_next_game(lua_State *L) {
    clua_context *c = clua_ctx(L);
    lua_Integer started = luaL_checkinteger(L, 1);
    lua_Integer charged = luaL_checkinteger(L, 2);
    uint64_t seed = (uint64_t)luaL_checkinteger(L, 3);
    lua_Integer index = luaL_checkinteger(L, 4);
    int64_t cpu = clua_thread_cpu_ns();
    int ok = started == -1 || clua_sim_within_budget(c, started, charged, cpu);
    clua_random_seed(c, clua_game_seed(seed, index));
    if (c->budget_armed && !c->budget_tripped) c->budget_remaining = c->budget_total;
    __atomic_fetch_add(&c->progress, 1, __ATOMIC_RELAXED);
    c->step_started_ns = clua_now_ns();
    lua_pushboolean(L, ok);
    lua_pushinteger(L, cpu);   /* the next game starts now: a bound from here is safe */
    return 2;
}

/// setmetatable(t, mt): the plain one (the sandbox's refuses watched tables).
static int clua_sim_setmetatable(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    int kind = lua_type(L, 2);
    luaL_argexpected(L, kind == LUA_TNIL || kind == LUA_TTABLE, 2, "nil or table");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 0;
}

/// watch(metatable, touched, shows): registers a metatable of the driver's as watched
/// (see sandbox.c: rawset marks, getmetatable shows `shows`, setmetatable refuses).
static int clua_sim_watch(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 3);
    clua_watch_metatable(L, 1, 2, 3);
    return 0;
}

/* Empties the table at `table` (every key, and its metatable), keeping its room. */
static void clua_empty(lua_State *L, int table) {
    lua_pushnil(L);
    while (lua_next(L, table)) {            /* clearing fields during traversal is allowed */
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, table);
    }
    lua_pushnil(L);
    lua_setmetatable(L, table);
}

/// reset(t): empties a table the driver reuses (every key, and its metatable), keeping
/// the room it has. Raw access: no metamethod runs.
static int clua_sim_reset(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    clua_empty(L, 1);
    return 0;
}

/* ---------------------------------------------------------------------------------
** LED commands and text while a simulation plays: nothing is shown, so a call only
** charges the budget what the host charges and checks its arguments as far as the
** host would refuse them (more strictly is safe: a refused call sends the game to the
** host, which plays it move by move). In C because a script makes them in every roll.
** Options are read raw, as the host reads them, with keys kept as upvalues (a
** lua_getfield would intern its key each time).
** Upvalues: 1 the limits (clua_sim_led_limits), 2 the named colours (a set), 3.. the
** option keys.
** ------------------------------------------------------------------------------- */

typedef struct { lua_Integer host_call, led_ms, blink_count, led_priority; } clua_sim_led_limits;
enum { KEY_ON = 3, KEY_CYCLE, KEY_COUNT, KEY_PRIORITY, KEY_MS, LED_UPVALUES = KEY_MS };
static const char *const clua_sim_led_keys[] = {"on", "cycle", "count", "priority", "ms"};

__attribute__((noreturn)) static void clua_sim_fallback(lua_State *L) {
    lua_pushliteral(L, "dicehost-simulation: this game is played move by move");
    lua_error(L);
    __builtin_unreachable();
}

static const clua_sim_led_limits *clua_sim_charge(lua_State *L) {
    const clua_sim_led_limits *limits = lua_touserdata(L, lua_upvalueindex(1));
    clua_charge_or_raise(L, limits->host_call);
    return limits;
}

/* A whole number in low..high at `index` (an integer, or a float with an integer value). */
static lua_Integer clua_sim_whole(lua_State *L, int index, lua_Integer low, lua_Integer high) {
    int isnum = 0;
    lua_Integer v = lua_tointegerx(L, index, &isnum);
    if (!isnum || v < low || v > high || lua_type(L, index) != LUA_TNUMBER) clua_sim_fallback(L);
    return v;
}

static lua_Integer clua_sim_face(lua_State *L, int index) {
    return (lua_Integer)1 << (clua_sim_whole(L, index, 1, 6) - 1);
}

static void clua_sim_colour(lua_State *L, int index) {
    if (lua_type(L, index) != LUA_TSTRING) clua_sim_fallback(L);
    lua_pushvalue(L, index);
    int named = lua_rawget(L, lua_upvalueindex(2)) != LUA_TNIL;
    lua_pop(L, 1);
    if (named) return;
    size_t length = 0;
    const char *text = lua_tolstring(L, index, &length);
    if (length != 7 || text[0] != '#') clua_sim_fallback(L);
    for (int i = 1; i < 7; i++) if (!isxdigit((unsigned char)text[i])) clua_sim_fallback(L);
}

/* An option of an LED command's table, read raw (left on the stack: the caller's
   return drops it). */
static void clua_sim_option(lua_State *L, int options, int key, lua_Integer low, lua_Integer high) {
    lua_pushvalue(L, lua_upvalueindex(key));
    if (lua_rawget(L, options) != LUA_TNIL) clua_sim_whole(L, -1, low, high);
}

static int clua_sim_led_face(lua_State *L) {
    clua_sim_charge(L);
    lua_pushinteger(L, clua_sim_face(L, 1));
    return 1;
}

static int clua_sim_led_faces(lua_State *L) {
    clua_sim_charge(L);
    int k = lua_gettop(L);
    if (k == 0) clua_sim_fallback(L);
    lua_Integer mask = 0;
    for (int i = 1; i <= k; i++) mask |= clua_sim_face(L, i);
    lua_pushinteger(L, mask);
    return 1;
}

/* The charge and the (mask, colour) every lighting command starts with. */
static const clua_sim_led_limits *clua_sim_lighting(lua_State *L) {
    const clua_sim_led_limits *limits = clua_sim_charge(L);
    clua_sim_whole(L, 1, 0, 63);
    clua_sim_colour(L, 2);
    return limits;
}

static int clua_sim_led_set(lua_State *L) {
    clua_sim_lighting(L);
    return 0;
}

static int clua_sim_led_off(lua_State *L) {
    clua_sim_charge(L);
    if (!lua_isnoneornil(L, 1)) clua_sim_whole(L, 1, 0, 63);
    return 0;
}

static int clua_sim_led_blink(lua_State *L) {
    const clua_sim_led_limits *limits = clua_sim_lighting(L);
    int kind = lua_type(L, 3);
    if (kind == LUA_TNONE || kind == LUA_TNIL) return 0;
    if (kind != LUA_TTABLE) clua_sim_fallback(L);
    clua_sim_option(L, 3, KEY_ON, 0, limits->led_ms);
    clua_sim_option(L, 3, KEY_CYCLE, 0, limits->led_ms);
    clua_sim_option(L, 3, KEY_COUNT, 1, limits->blink_count);
    clua_sim_option(L, 3, KEY_PRIORITY, 0, limits->led_priority);
    return 0;
}

static int clua_sim_led_fade(lua_State *L) {
    const clua_sim_led_limits *limits = clua_sim_lighting(L);
    int kind = lua_type(L, 3);
    if (kind == LUA_TTABLE) clua_sim_option(L, 3, KEY_MS, 0, limits->led_ms);
    else if (kind != LUA_TNONE && kind != LUA_TNIL) clua_sim_whole(L, 3, 0, limits->led_ms);
    return 0;
}

/* g:say(...): text nobody reads in a simulation; charged as the host charges it. */
static int clua_sim_say(lua_State *L) {
    clua_sim_charge(L);
    return 0;
}

/// led_functions(colours, host_call, led_ms, blink_count, led_priority) -> the LED
/// functions (face, faces, set, off, blink, fade) and `say`, for a simulation.
static int clua_sim_led_functions(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    clua_sim_led_limits limits = {luaL_checkinteger(L, 2), luaL_checkinteger(L, 3), luaL_checkinteger(L, 4),
                                  luaL_checkinteger(L, 5)};
    static const luaL_Reg functions[] = {
        {"face", clua_sim_led_face}, {"faces", clua_sim_led_faces}, {"set", clua_sim_led_set},
        {"off", clua_sim_led_off}, {"blink", clua_sim_led_blink}, {"fade", clua_sim_led_fade},
        {"say", clua_sim_say}, {NULL, NULL},
    };
    lua_createtable(L, 0, 7);
    *(clua_sim_led_limits *)lua_newuserdatauv(L, sizeof limits, 0) = limits;
    lua_pushvalue(L, 1);
    for (int i = 0; i < LED_UPVALUES - 2; i++) lua_pushstring(L, clua_sim_led_keys[i]);
    luaL_setfuncs(L, functions, LED_UPVALUES);
    return 1;
}

/// new_game(g, state, params, template, players, seats, names, G): a fresh game in a
/// worker's reused tables, as the host's new_game makes one: each table emptied (its
/// metatable too), seat i's player {name = names[i], seat = i, eliminated = false} in
/// players[i], params a copy of the template, g = {players, state, params, now = 0,
/// current = seats[1]} with metatable G. Raw writes: no metamethod runs.
static int clua_sim_new_game(lua_State *L) {
    for (int i = 1; i <= 8; i++) luaL_checktype(L, i, LUA_TTABLE);
    lua_settop(L, 8);
    luaL_checkstack(L, 8, "new_game");
    enum { G = 1, STATE, PARAMS, TEMPLATE, PLAYERS, SEATS, NAMES, META };
    int tables[] = {PLAYERS, PARAMS, STATE, G};
    for (int i = 0; i < 4; i++) clua_empty(L, tables[i]);
    lua_Integer n = (lua_Integer)lua_rawlen(L, SEATS);
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, SEATS, i) != LUA_TTABLE) luaL_error(L, "new_game: seat %I has no table", i);
        int p = lua_gettop(L);
        clua_empty(L, p);
        lua_pushliteral(L, "name"); lua_rawgeti(L, NAMES, i); lua_rawset(L, p);
        lua_pushliteral(L, "seat"); lua_pushinteger(L, i); lua_rawset(L, p);
        lua_pushliteral(L, "eliminated"); lua_pushboolean(L, 0); lua_rawset(L, p);
        lua_rawseti(L, PLAYERS, i);             /* pops p */
    }
    lua_pushnil(L);
    while (lua_next(L, TEMPLATE)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, PARAMS);
    }
    lua_pushliteral(L, "players"); lua_pushvalue(L, PLAYERS); lua_rawset(L, G);
    lua_pushliteral(L, "state"); lua_pushvalue(L, STATE); lua_rawset(L, G);
    lua_pushliteral(L, "params"); lua_pushvalue(L, PARAMS); lua_rawset(L, G);
    lua_pushliteral(L, "now"); lua_pushinteger(L, 0); lua_rawset(L, G);
    lua_pushliteral(L, "current"); lua_rawgeti(L, SEATS, 1); lua_rawset(L, G);
    lua_pushvalue(L, META);
    lua_setmetatable(L, G);
    return 0;
}

/* A metric's tally, an array: count, games, sum, sum of squares, minimum, maximum, and
   the index of the last game that recorded it. */
enum { TALLY_COUNT = 1, TALLY_GAMES, TALLY_SUM, TALLY_SQUARES, TALLY_MIN, TALLY_MAX, TALLY_SEEN, TALLY_FIELDS = TALLY_SEEN };

static lua_Integer clua_raw_integer(lua_State *L, int table, lua_Integer key) {
    lua_rawgeti(L, table, key);
    lua_Integer v = lua_tointegerx(L, -1, NULL);
    lua_pop(L, 1);
    return v;
}

static void clua_raw_add(lua_State *L, int table, const char *key, lua_Integer amount) {
    lua_pushstring(L, key);
    lua_pushvalue(L, -1);
    lua_rawget(L, table);
    lua_Integer v = lua_tointegerx(L, -1, NULL);
    lua_pop(L, 1);
    lua_pushinteger(L, v + amount);
    lua_rawset(L, table);
}

/* Where a result's tables are on the stack while games are counted into it. */
typedef struct { int result, wins, rolls, turns, metrics; } clua_counts;

/* Pushes result.wins, .rolls, .turns and .metrics (checked tables) above `result`. */
static clua_counts clua_open_counts(lua_State *L, int result) {
    luaL_checkstack(L, 16, "tally");
    clua_counts k = {result, 0, 0, 0, 0};
    lua_getfield(L, result, "wins");    k.wins = lua_gettop(L);
    lua_getfield(L, result, "rolls");   k.rolls = lua_gettop(L);
    lua_getfield(L, result, "turns");   k.turns = lua_gettop(L);
    lua_getfield(L, result, "metrics"); k.metrics = lua_gettop(L);
    for (int i = k.wins; i <= k.metrics; i++) luaL_checktype(L, i, LUA_TTABLE);
    return k;
}

/* Counts game `index` into the counts - outcome: a seat that won, 0 a draw, -1
   unfinished, -2 a rule error (counted by the host) - with its records names[i],
   values[i] for i in first..last. All or nothing: whatever may allocate (new histogram
   keys, new metrics, stack) happens before the first count changes, and no hook (a
   watchdog's stop) runs inside C, so a game is never half counted. The metric sums add
   in record order, as the host's tally does. */
static void clua_count_game(lua_State *L, clua_counts k, lua_Integer outcome, lua_Integer rolls, lua_Integer turns,
                            int names, int values, lua_Integer first, lua_Integer last, lua_Integer index) {
    int top = lua_gettop(L);
    int finished = outcome >= 0;
    if (outcome > 0) {
        lua_rawgeti(L, k.wins, outcome);
        int seat = lua_isinteger(L, -1);
        lua_pop(L, 1);
        if (!seat) luaL_error(L, "tally: no seat %I", outcome);
    }
    /* Room first. */
    if (finished) {
        if (lua_rawgeti(L, k.rolls, rolls) == LUA_TNIL) { lua_pushinteger(L, 0); lua_rawseti(L, k.rolls, rolls); }
        if (lua_rawgeti(L, k.turns, turns) == LUA_TNIL) { lua_pushinteger(L, 0); lua_rawseti(L, k.turns, turns); }
        lua_settop(L, top);
        for (lua_Integer i = first; i <= last; i++) {
            if (lua_rawgeti(L, values, i) != LUA_TNUMBER) luaL_error(L, "tally: record %I is not a number", i);
            if (lua_rawgeti(L, names, i) != LUA_TSTRING) luaL_error(L, "tally: record %I has no name", i);
            lua_pushvalue(L, -1);
            if (lua_rawget(L, k.metrics) == LUA_TNIL) {
                lua_pop(L, 1);
                lua_createtable(L, TALLY_FIELDS, 0);
                for (int f = 1; f <= TALLY_FIELDS; f++) {
                    if (f == TALLY_COUNT || f == TALLY_GAMES) lua_pushinteger(L, 0);
                    else if (f == TALLY_SEEN) lua_pushinteger(L, -1);
                    else lua_pushnumber(L, 0.0);
                    lua_rawseti(L, -2, f);
                }
                lua_rawset(L, k.metrics);
            }
            lua_settop(L, top);
        }
    }
    /* Then the counts: raw sets of keys that exist, which never allocate. */
    if (outcome == -1) clua_raw_add(L, k.result, "unfinished", 1);
    else if (outcome == 0) clua_raw_add(L, k.result, "draws", 1);
    else if (outcome > 0) { lua_pushinteger(L, clua_raw_integer(L, k.wins, outcome) + 1); lua_rawseti(L, k.wins, outcome); }
    if (finished) {
        lua_pushinteger(L, clua_raw_integer(L, k.rolls, rolls) + 1); lua_rawseti(L, k.rolls, rolls);
        lua_pushinteger(L, clua_raw_integer(L, k.turns, turns) + 1); lua_rawseti(L, k.turns, turns);
        for (lua_Integer i = first; i <= last; i++) {
            lua_rawgeti(L, values, i);
            double x = (double)lua_tonumberx(L, -1, NULL);
            lua_rawgeti(L, names, i);
            lua_rawget(L, k.metrics);           /* the tally */
            int tally = lua_gettop(L);
            lua_Integer seen = clua_raw_integer(L, tally, TALLY_COUNT);
            lua_pushinteger(L, seen + 1); lua_rawseti(L, tally, TALLY_COUNT);
            lua_rawgeti(L, tally, TALLY_SUM);
            lua_pushnumber(L, lua_tonumberx(L, -1, NULL) + x); lua_rawseti(L, tally, TALLY_SUM);
            lua_pop(L, 1);
            lua_rawgeti(L, tally, TALLY_SQUARES);
            lua_pushnumber(L, lua_tonumberx(L, -1, NULL) + x * x); lua_rawseti(L, tally, TALLY_SQUARES);
            lua_pop(L, 1);
            lua_rawgeti(L, tally, TALLY_MIN);
            double low = lua_tonumberx(L, -1, NULL);
            lua_rawgeti(L, tally, TALLY_MAX);
            double high = lua_tonumberx(L, -1, NULL);
            lua_pop(L, 2);
            /* As Swift's min(low, x) and max(high, x): an equal x keeps low and replaces high. */
            if (seen == 0 || x < low) { lua_pushnumber(L, x); lua_rawseti(L, tally, TALLY_MIN); }
            if (seen == 0 || x >= high) { lua_pushnumber(L, x); lua_rawseti(L, tally, TALLY_MAX); }
            if (clua_raw_integer(L, tally, TALLY_SEEN) != index) {
                lua_pushinteger(L, index); lua_rawseti(L, tally, TALLY_SEEN);
                lua_pushinteger(L, clua_raw_integer(L, tally, TALLY_GAMES) + 1); lua_rawseti(L, tally, TALLY_GAMES);
            }
            lua_settop(L, top);
        }
    }
    lua_pushinteger(L, index + 1);
    lua_setfield(L, k.result, "next");   /* the key exists: no allocation */
}

/// tally(result, outcome, rolls, turns, names, values, count, index): counts game `index`
/// (played by the host) into `result` with its records 1..count, and sets result.next
/// past it.
static int clua_sim_tally(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer outcome = luaL_checkinteger(L, 2);
    lua_Integer rolls = luaL_checkinteger(L, 3);
    lua_Integer turns = luaL_checkinteger(L, 4);
    luaL_checktype(L, 5, LUA_TTABLE);
    luaL_checktype(L, 6, LUA_TTABLE);
    lua_Integer count = luaL_checkinteger(L, 7);
    lua_Integer index = luaL_checkinteger(L, 8);
    lua_settop(L, 8);
    clua_counts k = clua_open_counts(L, 1);
    clua_count_game(L, k, outcome, rolls, turns, 5, 6, 1, count, index);
    return 0;
}

/// tally_log(result, log, first): counts the games the driver logged (FastSimulationDriver:
/// log.done games from game `first` on) into `result`, and sets result.next past them.
/// Each game is counted whole; a log that does not read as the driver writes it raises
/// before the game it fails on is counted.
static int clua_sim_tally_log(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer first = luaL_checkinteger(L, 3);
    lua_settop(L, 3);
    luaL_checkstack(L, 24, "tally_log");
    static const char *const parts[] = {"outcome", "rolls", "turns", "records", "names", "values"};
    for (int i = 0; i < 6; i++) {
        lua_getfield(L, 2, parts[i]);                  /* 4..9 */
        luaL_checktype(L, -1, LUA_TTABLE);
    }
    lua_getfield(L, 2, "done");
    int isnum = 0;
    lua_Integer done = lua_tointegerx(L, -1, &isnum);
    lua_pop(L, 1);
    if (!isnum || done < 0 || done > (1 << 24)) return luaL_error(L, "tally_log: log.done is not a count");
    clua_counts k = clua_open_counts(L, 1);
    lua_Integer recorded = 0;
    for (lua_Integer j = 1; j <= done; j++) {
        lua_Integer outcome = clua_raw_integer(L, 4, j);
        lua_Integer rolls = clua_raw_integer(L, 5, j);
        lua_Integer turns = clua_raw_integer(L, 6, j);
        lua_Integer through = clua_raw_integer(L, 7, j);
        if (through < recorded) return luaL_error(L, "tally_log: game %I's records go back", j);
        clua_count_game(L, k, outcome, rolls, turns, 8, 9, recorded + 1, through, first + j - 1);
        recorded = through;
    }
    return 0;
}

void clua_push_simulation_functions(lua_State *L) {
    static const luaL_Reg functions[] = {
        {"next_game", clua_sim_next_game}, {"random", clua_math_random}, {"rawset", clua_plain_rawset},
        {"setmetatable", clua_sim_setmetatable}, {"reset", clua_sim_reset}, {"tally", clua_sim_tally},
        {"tally_log", clua_sim_tally_log}, {"led_functions", clua_sim_led_functions},
        {"new_game", clua_sim_new_game}, {"watch", clua_sim_watch}, {NULL, NULL},
    };
    luaL_newlib(L, functions);
}

void clua_use_generational_gc(lua_State *L) {
    lua_gc(L, LUA_GCGEN, 0, 0);
}
