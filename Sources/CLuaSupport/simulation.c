// Why this file: a simulation plays whole games inside one Lua call (the driver in
// FastSimulationDriver.swift), and the little it needs per game and per roll is C: seeding
// the game's generator as the host seeds it, holding each game against the input budget
// (its charges, and its time as an upper bound on its instructions), drawing dice from
// the game's generator into a fresh values table, and emptying the tables a worker
// reuses from game to game. Argument errors raise, which only C may do.
#include "CLuaSupport.h"

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

/// begin_game(study_seed, index) -> started: seeds the generator for game `index`, gives
/// the game a fresh budget, shows a watchdog progress, and returns the thread's CPU
/// clock for end_game.
static int clua_sim_begin_game(lua_State *L) {
    clua_context *c = clua_ctx(L);
    uint64_t seed = (uint64_t)luaL_checkinteger(L, 1);
    lua_Integer index = luaL_checkinteger(L, 2);
    clua_random_seed(c, clua_game_seed(seed, index));
    if (c->budget_armed && !c->budget_tripped) c->budget_remaining = c->budget_total;
    __atomic_fetch_add(&c->progress, 1, __ATOMIC_RELAXED);
    c->step_started_ns = clua_now_ns();
    lua_pushinteger(L, clua_thread_cpu_ns());
    return 1;
}

/// end_game(started, charged) -> whether the game certainly kept every input within the
/// budget. `charged` is what the driver's own host calls cost (they do not reach C). A
/// game's charges and, without the count hook, its CPU time at the fastest rate any machine runs
/// (CLUA_FASTEST_INSTRUCTIONS_PER_NS) bound what any one of its inputs spent; with the
/// slack for the host's own wrappers (CLUA_STEP_SLACK) that bound must fit one input's
/// budget. A game for which it does not is played again move by move under the budget.
static int clua_sim_end_game(lua_State *L) {
    clua_context *c = clua_ctx(L);
    lua_Integer started = luaL_checkinteger(L, 1);
    lua_Integer charged = luaL_checkinteger(L, 2);
    int64_t cpu = clua_thread_cpu_ns();
    uint64_t now = clua_now_ns();
    int ok = !c->budget_tripped && !c->interrupt_requested && charged >= 0 && started >= 0 && cpu >= started;
    if (ok && c->budget_armed) {
        int64_t used = c->budget_total - c->budget_remaining;
        /* Time only bounds instructions no hook counted; both terms stay far below 2^62. */
        int64_t spent = cpu - started;
        int64_t elapsed = c->budget_hooked ? 0 : spent * CLUA_FASTEST_INSTRUCTIONS_PER_NS;
        if (spent > ((int64_t)1 << 50) || charged > ((int64_t)1 << 60) || used < 0) ok = 0;
        else ok = elapsed + used + (int64_t)charged + CLUA_STEP_SLACK <= c->budget_total;
    }
    __atomic_fetch_add(&c->progress, 1, __ATOMIC_RELAXED);
    c->step_started_ns = now;
    lua_pushboolean(L, ok);
    return 1;
}

/* The fields of a roll table, in the order the prelude's make_roll writes them. */
static const char *const clua_roll_fields[] = {"values", "value", "total", "flag", "ok", "doubles", "previous"};
enum { ROLL_FIELDS = 7, ROLL_OK_STRING = ROLL_FIELDS + 1 };

static void clua_empty(lua_State *L, int table) {
    lua_pushnil(L);
    while (lua_next(L, table)) {            /* clearing fields during traversal is allowed */
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, table);
    }
}

/// roll(r, values, count, sides, modifier, previous, Roll) -> r: a roll of `count` dice of
/// `sides` faces from the game's generator (one die after another, as the host draws
/// them) written into the reused roll table r and its values table, both emptied first
/// (whatever a hook added to them is gone), as the prelude's make_roll makes a fresh one:
/// values, value, total (with the modifier), flag "ok", ok, doubles, previous, and the
/// Roll metatable. The field names are the closure's upvalues (no string lookups).
static int clua_sim_roll(lua_State *L) {
    clua_context *c = clua_ctx(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer count = luaL_checkinteger(L, 3);
    lua_Integer sides = luaL_checkinteger(L, 4);
    lua_Integer modifier = luaL_checkinteger(L, 5);
    luaL_checktype(L, 7, LUA_TTABLE);
    luaL_argcheck(L, count >= 1 && count <= 1000, 3, "count must be 1..1000");
    luaL_argcheck(L, sides >= 1 && sides <= ((lua_Integer)1 << 40), 4, "sides must be 1..2^40");
    lua_settop(L, 7);
    if (lua_getmetatable(L, 1)) {
        if (!lua_rawequal(L, -1, 7)) luaL_error(L, "a roll table's metatable was changed");
        lua_pop(L, 1);
    }
    /* Emptied only when a hook added a field (the usual roll holds only its own). */
    int extra = 0;
    lua_pushnil(L);
    while (!extra && lua_next(L, 1)) {
        lua_pop(L, 1);
        int own = 0;
        for (int i = 1; i <= ROLL_FIELDS && !own; i++) own = lua_rawequal(L, -1, lua_upvalueindex(i));
        extra = !own;
    }
    lua_settop(L, 7);
    if (extra) clua_empty(L, 1);
    /* previous is written below only when there is one: an old one must not stay. */
    lua_pushvalue(L, lua_upvalueindex(7)); lua_pushnil(L); lua_rawset(L, 1);
    /* The values table keeps only the dice 1..count written below. */
    extra = 0;
    lua_pushnil(L);
    while (!extra && lua_next(L, 2)) {
        lua_pop(L, 1);
        int isnum = 0;
        lua_Integer key = lua_tointegerx(L, -1, &isnum);
        extra = !(isnum && lua_type(L, -1) == LUA_TNUMBER && key >= 1 && key <= count);
    }
    lua_settop(L, 7);
    if (extra) clua_empty(L, 2);
    lua_Integer total = modifier, first = 0;
    int doubles = count > 1;
    for (lua_Integer i = 1; i <= count; i++) {
        lua_Integer v = (lua_Integer)clua_random_below_or_equal(c, (uint64_t)(sides - 1)) + 1;
        lua_pushinteger(L, v);
        lua_rawseti(L, 2, i);
        total += v;
        if (i == 1) first = v;
        else if (v != first) doubles = 0;
    }
    lua_pushvalue(L, lua_upvalueindex(1)); lua_pushvalue(L, 2); lua_rawset(L, 1);
    lua_pushvalue(L, lua_upvalueindex(2)); lua_pushinteger(L, first); lua_rawset(L, 1);
    lua_pushvalue(L, lua_upvalueindex(3)); lua_pushinteger(L, total); lua_rawset(L, 1);
    lua_pushvalue(L, lua_upvalueindex(4)); lua_pushvalue(L, lua_upvalueindex(ROLL_OK_STRING)); lua_rawset(L, 1);
    lua_pushvalue(L, lua_upvalueindex(5)); lua_pushboolean(L, 1); lua_rawset(L, 1);
    lua_pushvalue(L, lua_upvalueindex(6)); lua_pushboolean(L, doubles); lua_rawset(L, 1);
    if (!lua_isnil(L, 6)) { lua_pushvalue(L, lua_upvalueindex(7)); lua_pushvalue(L, 6); lua_rawset(L, 1); }
    lua_pushvalue(L, 7);
    lua_setmetatable(L, 1);
    lua_settop(L, 1);
    return 1;
}

/// reset(t): empties a table the driver reuses (every key, and its metatable), keeping
/// the room it has. Raw access: no metamethod runs.
static int clua_sim_reset(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    clua_empty(L, 1);
    lua_pushnil(L);
    lua_setmetatable(L, 1);
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

/// tally(result, outcome, rolls, turns, names, values, count, index): counts game `index`
/// into `result` - outcome: a seat that won, 0 a draw, -1 unfinished, -2 a rule error
/// (counted by the host) - and sets result.next past it. All or nothing: whatever may
/// allocate (new histogram keys, new metrics, stack) happens before the first count
/// changes, and no hook (a watchdog's stop) runs inside C, so a game is never half
/// counted. The metric sums add in record order, as the host's tally does.
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
    luaL_checkstack(L, 16, "tally");
    lua_getfield(L, 1, "wins");       /* 9 */
    lua_getfield(L, 1, "rolls");      /* 10 */
    lua_getfield(L, 1, "turns");      /* 11 */
    lua_getfield(L, 1, "metrics");    /* 12 */
    for (int i = 9; i <= 12; i++) luaL_checktype(L, i, LUA_TTABLE);
    int finished = outcome >= 0;
    if (outcome > 0) {
        lua_rawgeti(L, 9, outcome);
        int seat = lua_isinteger(L, -1);
        lua_pop(L, 1);
        luaL_argcheck(L, seat, 2, "no such seat");
    }
    /* Room first. */
    if (finished) {
        if (lua_rawgeti(L, 10, rolls) == LUA_TNIL) { lua_pushinteger(L, 0); lua_rawseti(L, 10, rolls); }
        if (lua_rawgeti(L, 11, turns) == LUA_TNIL) { lua_pushinteger(L, 0); lua_rawseti(L, 11, turns); }
        lua_settop(L, 12);
        for (lua_Integer i = 1; i <= count; i++) {
            if (lua_rawgeti(L, 6, i) != LUA_TNUMBER) luaL_error(L, "tally: record %I is not a number", i);
            if (lua_rawgeti(L, 5, i) != LUA_TSTRING) luaL_error(L, "tally: record %I has no name", i);
            lua_pushvalue(L, -1);
            if (lua_rawget(L, 12) == LUA_TNIL) {
                lua_pop(L, 1);
                lua_createtable(L, TALLY_FIELDS, 0);
                for (int f = 1; f <= TALLY_FIELDS; f++) {
                    if (f == TALLY_COUNT || f == TALLY_GAMES) lua_pushinteger(L, 0);
                    else if (f == TALLY_SEEN) lua_pushinteger(L, -1);
                    else lua_pushnumber(L, 0.0);
                    lua_rawseti(L, -2, f);
                }
                lua_rawset(L, 12);
            }
            lua_settop(L, 12);
        }
    }
    /* Then the counts: raw sets of keys that exist, which never allocate. */
    if (outcome == -1) clua_raw_add(L, 1, "unfinished", 1);
    else if (outcome == 0) clua_raw_add(L, 1, "draws", 1);
    else if (outcome > 0) { lua_pushinteger(L, clua_raw_integer(L, 9, outcome) + 1); lua_rawseti(L, 9, outcome); }
    if (finished) {
        lua_pushinteger(L, clua_raw_integer(L, 10, rolls) + 1); lua_rawseti(L, 10, rolls);
        lua_pushinteger(L, clua_raw_integer(L, 11, turns) + 1); lua_rawseti(L, 11, turns);
        for (lua_Integer i = 1; i <= count; i++) {
            lua_rawgeti(L, 6, i);
            double x = (double)lua_tonumberx(L, -1, NULL);
            lua_rawgeti(L, 5, i);
            lua_rawget(L, 12);                  /* 14: the tally */
            lua_Integer seen = clua_raw_integer(L, 14, TALLY_COUNT);
            lua_pushinteger(L, seen + 1); lua_rawseti(L, 14, TALLY_COUNT);
            lua_rawgeti(L, 14, TALLY_SUM);
            lua_pushnumber(L, lua_tonumberx(L, -1, NULL) + x); lua_rawseti(L, 14, TALLY_SUM);
            lua_pop(L, 1);
            lua_rawgeti(L, 14, TALLY_SQUARES);
            lua_pushnumber(L, lua_tonumberx(L, -1, NULL) + x * x); lua_rawseti(L, 14, TALLY_SQUARES);
            lua_pop(L, 1);
            lua_rawgeti(L, 14, TALLY_MIN);
            double low = lua_tonumberx(L, -1, NULL);
            lua_rawgeti(L, 14, TALLY_MAX);
            double high = lua_tonumberx(L, -1, NULL);
            lua_pop(L, 2);
            /* As Swift's min(low, x) and max(high, x): an equal x keeps low and replaces high. */
            if (seen == 0 || x < low) { lua_pushnumber(L, x); lua_rawseti(L, 14, TALLY_MIN); }
            if (seen == 0 || x >= high) { lua_pushnumber(L, x); lua_rawseti(L, 14, TALLY_MAX); }
            if (clua_raw_integer(L, 14, TALLY_SEEN) != index) {
                lua_pushinteger(L, index); lua_rawseti(L, 14, TALLY_SEEN);
                lua_pushinteger(L, clua_raw_integer(L, 14, TALLY_GAMES) + 1); lua_rawseti(L, 14, TALLY_GAMES);
            }
            lua_settop(L, 12);
        }
    }
    lua_pushstring(L, "next");
    lua_pushinteger(L, index + 1);
    lua_rawset(L, 1);
    return 0;
}

void clua_push_simulation_functions(lua_State *L) {
    lua_createtable(L, 0, 5);
    lua_pushcfunction(L, clua_sim_tally);
    lua_setfield(L, -2, "tally");
    lua_pushcfunction(L, clua_sim_begin_game);
    lua_setfield(L, -2, "begin_game");
    lua_pushcfunction(L, clua_sim_end_game);
    lua_setfield(L, -2, "end_game");
    for (int i = 0; i < ROLL_FIELDS; i++) lua_pushstring(L, clua_roll_fields[i]);
    lua_pushliteral(L, "ok");
    lua_pushcclosure(L, clua_sim_roll, ROLL_OK_STRING);
    lua_setfield(L, -2, "roll");
    lua_pushcfunction(L, clua_sim_reset);
    lua_setfield(L, -2, "reset");
}

void clua_use_generational_gc(lua_State *L) {
    lua_gc(L, LUA_GCGEN, 0, 0);
}
