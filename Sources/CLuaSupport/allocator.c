// Why this file: Lua allocates through one lua_Alloc, which Lua calls with no Swift
// context, so it is C. It caps a state's memory (only while Lua code runs: host code
// is never refused mid-way), charges what scripts allocate to the input's budget,
// refuses the runaway stack growth of endless recursion and `__call` chains, and
// stamps every block with a creation serial so objects used as table keys can be
// ordered the same way in every process.
#include "CLuaSupport.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each block carries its serial in front of what Lua sees (8 bytes keep Lua's 8-byte
   alignment on the platforms we build for). */
#define CLUA_HEADER ((size_t)sizeof(uint64_t))

/// Records the innermost script frame of the main thread. Called on refusal and
/// trip paths, where nothing has been freed or moved, so the call chain is intact.
void clua_note_location(clua_context *c, lua_State *L) {
    lua_Debug ar;
    if (L == NULL) L = c->main_thread;
    if (L == NULL) return;
    for (int level = 0; level < 32 && lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0 && ar.source[0] == '@'
            && strncmp(ar.source, "@dicehost-", 10) != 0) {
            c->last_line = ar.currentline;
            strncpy(c->last_source, ar.source + 1, sizeof(c->last_source) - 1);
            c->last_source[sizeof(c->last_source) - 1] = '\0';
            return;
        }
    }
}

/// Whether a new block is a thread's stack doubling past CLUA_MAX_STACK_SLOTS. Lua 5.4.4
/// allocates a grown stack as a new vector of (40 * 2^k + EXTRA_STACK) 16-byte slots.
static int clua_is_runaway_stack(size_t tag, size_t nsize) {
    if (tag != 0 || nsize % 16 != 0) return 0;
    size_t slots = nsize / 16;
    if (slots < 5) return 0;
    slots -= 5;
    if (slots <= CLUA_MAX_STACK_SLOTS || slots % 40 != 0) return 0;
    slots /= 40;
    return (slots & (slots - 1)) == 0;
}

void clua_trip(clua_context *c, lua_State *L);

// Why C: lua_Alloc is called by Lua with no Swift context; it must be a C function.
static void *clua_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    clua_context *c = (clua_context *)ud;
    char *block = ptr ? (char *)ptr - CLUA_HEADER : NULL;
    size_t old = ptr ? osize + CLUA_HEADER : 0;
    if (nsize == 0) {
        free(block);
        c->memory_used -= old;
        return NULL;
    }
    size_t total = nsize + CLUA_HEADER;
    if (total > old && c->enforce_memory) {
        if (ptr == NULL && clua_is_runaway_stack(osize, nsize)) {
            if (!c->memory_refused) clua_note_location(c, NULL);
            c->memory_refused = 1;
            c->stack_refused = 1;
            return NULL;
        }
        if (c->memory_used - old + total > c->memory_limit) {
            if (!c->memory_refused) clua_note_location(c, NULL);
            c->memory_refused = 1;
            return NULL; /* Lua runs an emergency collection, then raises "not enough memory" */
        }
        if (c->budget_armed && !c->budget_tripped) {
            c->budget_remaining -= (int64_t)((total - old) / CLUA_BYTES_PER_UNIT);
            /* Cannot raise here: the hook raises at the next instruction. */
            if (c->budget_remaining <= 0) clua_trip(c, NULL);
        }
    }
    void *p = realloc(block, total);
    if (p == NULL) return NULL;
    if (ptr == NULL) *(uint64_t *)p = ++c->next_serial;
    c->memory_used = c->memory_used - old + total;
    if (c->memory_used > c->memory_peak) c->memory_peak = c->memory_used;
    return (char *)p + CLUA_HEADER;
}

static uint64_t clua_block_serial(const void *object) {
    return object ? *(const uint64_t *)((const char *)object - CLUA_HEADER) : 0;
}

uint64_t clua_serial(lua_State *L, int index) {
    switch (lua_type(L, index)) {
    case LUA_TTABLE:
        return clua_block_serial(lua_topointer(L, index));
    case LUA_TFUNCTION:
        if (lua_iscfunction(L, index)) {
            /* A light C function (no upvalues) is not an object: no serial. */
            if (lua_getupvalue(L, index, 1) == NULL) return 0;
            lua_pop(L, 1);
        }
        return clua_block_serial(lua_topointer(L, index));
    case LUA_TTHREAD: {
        /* A thread is allocated with LUA_EXTRASPACE bytes in front of its lua_State. */
        const char *thread = (const char *)lua_tothread(L, index);
        return thread ? clua_block_serial(thread - LUA_EXTRASPACE) : 0;
    }
    default:
        return 0;
    }
}

// Why C: the panic handler runs only on errors outside any protected call, which the
// host never makes; it exists so such a bug aborts with a message, not silently.
static int clua_panic(lua_State *L) {
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "dicehost: unprotected Lua error: %s\n", msg ? msg : "(not a string)");
    return 0;
}

lua_State *clua_newstate(size_t memory_limit) {
    /* Whole cache lines of its own: the contexts of two workers never share one. */
    size_t size = (sizeof(clua_context) + 63) / 64 * 64;
    clua_context *c = (clua_context *)aligned_alloc(64, size);
    if (c == NULL) return NULL;
    memset(c, 0, size);
    c->memory_limit = memory_limit;
    lua_State *L = lua_newstate(clua_alloc, c);
    if (L == NULL) { free(c); return NULL; }
    *(clua_context **)lua_getextraspace(L) = c;
    c->main_thread = L;
    lua_atpanic(L, clua_panic);
    return L;
}

// Why C: the context outlives lua_close's last free(), so it is released after it.
void clua_close(lua_State *L) {
    clua_context *c = clua_ctx(L);
    lua_close(L);
    free(c);
}
