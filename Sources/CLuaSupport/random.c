// Why this file: math.random is called in hot loops from Lua, so it is a C function
// reading the game's own generator (xoshiro256**, seeded through splitmix64) from the
// state's context; argument errors raise, which only C may do.
#include "CLuaSupport.h"

static inline uint64_t clua_rotl(uint64_t x, int n) { return (x << n) | (x >> (64 - n)); }

uint64_t clua_random_next(clua_context *c) {
    uint64_t *s = c->random_state;
    uint64_t result = clua_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = clua_rotl(s[3], 45);
    return result;
}

void clua_random_seed(clua_context *c, uint64_t seed) {
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        c->random_state[i] = z ^ (z >> 31);
    }
}

/// A uniform integer in [0, limit] without modulo bias (rejection on a bit mask).
uint64_t clua_random_below_or_equal(clua_context *c, uint64_t limit) {
    uint64_t r = clua_random_next(c);
    if ((limit & (limit + 1)) == 0) return r & limit; /* limit + 1 is a power of two */
    uint64_t mask = limit;
    mask |= mask >> 1; mask |= mask >> 2; mask |= mask >> 4;
    mask |= mask >> 8; mask |= mask >> 16; mask |= mask >> 32;
    while ((r &= mask) > limit) r = clua_random_next(c);
    return r;
}

int clua_math_random(lua_State *L) {
    clua_context *c = clua_ctx(L);
    lua_Integer low, up;
    switch (lua_gettop(L)) {
    case 0:
        lua_pushnumber(L, (lua_Number)(clua_random_next(c) >> 11) * 0x1.0p-53);
        return 1;
    case 1:
        low = 1;
        up = luaL_checkinteger(L, 1);
        if (up == 0) { lua_pushinteger(L, (lua_Integer)clua_random_next(c)); return 1; }
        break;
    case 2:
        low = luaL_checkinteger(L, 1);
        up = luaL_checkinteger(L, 2);
        break;
    default:
        return luaL_error(L, "wrong number of arguments");
    }
    luaL_argcheck(L, low <= up, lua_gettop(L), "interval is empty");
    uint64_t r = clua_random_below_or_equal(c, (uint64_t)up - (uint64_t)low);
    lua_pushinteger(L, (lua_Integer)(r + (uint64_t)low));
    return 1;
}

// With no argument it reseeds from the stream itself, so a game stays a function of
// its seed. As in Lua 5.4.4 it answers the two numbers that seed it again:
// randomseed(x, y) with what randomseed() returned repeats the numbers that followed.
int clua_math_randomseed(lua_State *L) {
    clua_context *c = clua_ctx(L);
    uint64_t seed;
    if (lua_isnoneornil(L, 1)) {
        seed = clua_random_next(c);
    } else {
        seed = (uint64_t)luaL_checkinteger(L, 1) ^ ((uint64_t)luaL_optinteger(L, 2, 0) * 0x9E3779B97F4A7C15u);
    }
    clua_random_seed(c, seed);
    lua_pushinteger(L, (lua_Integer)seed);
    lua_pushinteger(L, 0);
    return 2;
}
