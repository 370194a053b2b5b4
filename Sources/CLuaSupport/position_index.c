// Why this file: an analysis numbers every position it finds by its key (position_codec.c
// writes the key). Kept in the game's Lua state, as a table from key to number and one
// from number to key, a million positions were a million strings and two million table
// slots in the heap the collector walks: every full collection walked them all, and under
// the script's memory cap (positions held outside it, garbage not) a full collection came
// every few MiB of garbage, so exploration slowed as it grew (Pig to 100: 3,100 positions
// a second at the end, a third of the rate with the positions outside the heap).
// Here the keys are bytes in one buffer outside Lua's heap, numbered in an open-addressing
// table of their own: the collector never sees them, and neither does the script's cap.
// The memory is the process's (an analysis's --max-memory reads the resident size).
#include "CLuaSupport.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INDEX_METATABLE "dicehost.position_index"
/// Numbers are 32-bit in the slots; far past any --max-states an analysis accepts.
#define INDEX_MAX_COUNT 0xFFFFFFF0u

typedef struct position_index {
    char *bytes;          /* every key back to back, in number order */
    size_t used, capacity;
    uint64_t *start;      /* start[n]: where key n begins (start[count + 1] = used) */
    uint32_t *hash;       /* hash[n]: key n's hash, for probing and growing */
    size_t count, numbers_capacity;
    uint32_t *slots;      /* 0: empty, else a number; a power of two of them */
    size_t slot_mask;
} position_index;

/// 64-bit multiply-xorshift over 8-byte words (the same on every machine: numbering,
/// not hashing, decides the answers, but a fixed function keeps runs alike).
static uint32_t index_hash(const char *s, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    uint64_t tail = 0;
    if (i < n) memcpy(&tail, s + i, n - i);
    h = (h ^ tail) * 0x94D049BB133111EBull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return (uint32_t)h;
}

static position_index *index_check(lua_State *L) {
    return (position_index *)luaL_checkudata(L, lua_upvalueindex(1), INDEX_METATABLE);
}

static void index_out_of_memory(lua_State *L) {
    luaL_error(L, "not enough memory for the positions found (the host's position index)");
}

static int index_grow_slots(position_index *ix) {
    size_t capacity = ix->slot_mask ? (ix->slot_mask + 1) * 2 : 1024;
    uint32_t *slots = calloc(capacity, sizeof(uint32_t));
    if (slots == NULL) return 0;
    size_t mask = capacity - 1;
    for (size_t n = 1; n <= ix->count; n++) {
        size_t i = ix->hash[n] & mask;
        while (slots[i] != 0) i = (i + 1) & mask;
        slots[i] = (uint32_t)n;
    }
    free(ix->slots);
    ix->slots = slots;
    ix->slot_mask = mask;
    return 1;
}

/// Room for one more number (start and hash) and `length` more bytes.
static int index_reserve(position_index *ix, size_t length) {
    /* The new key n = count + 1 writes hash[n] and start[n + 1] = start[count + 2]. */
    if (ix->count + 3 > ix->numbers_capacity) {
        size_t capacity = ix->numbers_capacity ? ix->numbers_capacity * 2 : 1024;
        uint64_t *start = realloc(ix->start, capacity * sizeof(uint64_t));
        if (start == NULL) return 0;
        ix->start = start;
        uint32_t *hash = realloc(ix->hash, capacity * sizeof(uint32_t));
        if (hash == NULL) return 0;
        ix->hash = hash;
        ix->numbers_capacity = capacity;
    }
    if (length > SIZE_MAX / 2 - ix->used) return 0;
    if (ix->used + length > ix->capacity) {
        size_t capacity = ix->capacity ? ix->capacity : 65536;
        while (capacity < ix->used + length) capacity *= 2;
        char *bytes = realloc(ix->bytes, capacity);
        if (bytes == NULL) return 0;
        ix->bytes = bytes;
        ix->capacity = capacity;
    }
    if ((ix->count + 1) * 4 >= (ix->slot_mask + 1) * 3 || ix->slot_mask == 0) return index_grow_slots(ix);
    return 1;
}

/// number(key) -> the key's number, and whether it is new (numbered count + 1 then).
static int index_number(lua_State *L) {
    position_index *ix = index_check(L);
    size_t length;
    const char *key = luaL_checklstring(L, 1, &length);
    uint32_t h = index_hash(key, length);
    if (ix->slot_mask != 0) {
        for (size_t i = h & ix->slot_mask; ix->slots[i] != 0; i = (i + 1) & ix->slot_mask) {
            uint32_t n = ix->slots[i];
            if (ix->hash[n] == h && ix->start[n + 1] - ix->start[n] == length
                && memcmp(ix->bytes + ix->start[n], key, length) == 0) {
                lua_pushinteger(L, (lua_Integer)n);
                lua_pushboolean(L, 0);
                return 2;
            }
        }
    }
    if (ix->count >= INDEX_MAX_COUNT) return luaL_error(L, "more than %u positions: the host's position index is full", INDEX_MAX_COUNT);
    if (!index_reserve(ix, length)) index_out_of_memory(L);
    size_t n = ix->count + 1;
    if (ix->count == 0) ix->start[1] = 0;
    memcpy(ix->bytes + ix->used, key, length);
    ix->used += length;
    ix->start[n + 1] = ix->used;
    ix->hash[n] = h;
    size_t i = h & ix->slot_mask;
    while (ix->slots[i] != 0) i = (i + 1) & ix->slot_mask;
    ix->slots[i] = (uint32_t)n;
    ix->count = n;
    lua_pushinteger(L, (lua_Integer)n);
    lua_pushboolean(L, 1);
    return 2;
}

static const char *index_key(lua_State *L, position_index *ix, size_t *length) {
    lua_Integer n = luaL_checkinteger(L, 1);
    if (n < 1 || (lua_Unsigned)n > ix->count) luaL_error(L, "no position numbered %I (%d numbered)", n, (int)ix->count);
    *length = (size_t)(ix->start[n + 1] - ix->start[n]);
    return ix->bytes + ix->start[n];
}

/// key(n) -> the key numbered n, as a string.
static int index_key_of(lua_State *L) {
    position_index *ix = index_check(L);
    size_t length;
    const char *key = index_key(L, ix, &length);
    lua_pushlstring(L, key, length);
    return 1;
}

/// decode(n, g, players, const_list): the position numbered n back into g and the
/// players (clua_decode_position), its key read where the index keeps it.
static int index_decode(lua_State *L) {
    position_index *ix = index_check(L);
    size_t length;
    const char *key = index_key(L, ix, &length);
    /* Decoding numbers nothing, so the bytes stay where they are meanwhile. */
    return clua_decode_position(L, key, length);
}

/// count() -> how many positions are numbered; bytes() -> the bytes the index holds.
static int index_count(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)index_check(L)->count);
    return 1;
}

static int index_bytes(lua_State *L) {
    position_index *ix = index_check(L);
    size_t bytes = ix->capacity + ix->numbers_capacity * (sizeof(uint64_t) + sizeof(uint32_t))
                 + (ix->slot_mask ? (ix->slot_mask + 1) * sizeof(uint32_t) : 0);
    lua_pushinteger(L, (lua_Integer)bytes);
    return 1;
}

static int index_free(lua_State *L) {
    position_index *ix = (position_index *)luaL_checkudata(L, 1, INDEX_METATABLE);
    free(ix->bytes);
    free(ix->start);
    free(ix->hash);
    free(ix->slots);
    memset(ix, 0, sizeof *ix);
    return 0;
}

/// new_position_index() -> {number, key, decode, count, bytes}, closures over one index.
/// Called from Lua (it allocates, so it runs protected), never from Swift directly.
static int index_new(lua_State *L) {
    lua_createtable(L, 0, 5);
    position_index *ix = (position_index *)lua_newuserdatauv(L, sizeof(position_index), 0);
    memset(ix, 0, sizeof *ix);
    if (luaL_newmetatable(L, INDEX_METATABLE)) {
        lua_pushcfunction(L, index_free);
        lua_setfield(L, -2, "__gc");
        lua_pushliteral(L, "the host's position index");
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
    static const struct { const char *name; lua_CFunction f; } functions[] = {
        {"number", index_number}, {"key", index_key_of}, {"decode", index_decode},
        {"count", index_count}, {"bytes", index_bytes},
    };
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
        lua_pushvalue(L, -1);
        lua_pushcclosure(L, functions[i].f, 1);
        lua_setfield(L, -3, functions[i].name);
    }
    lua_pop(L, 1);
    return 1;
}

void clua_push_position_index_factory(lua_State *L) {
    lua_pushcfunction(L, index_new);
}
