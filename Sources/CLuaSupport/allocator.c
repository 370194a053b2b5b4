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

/* A block that needs one carries a header in front of what Lua sees: an object's serial,
   or a thread stack's mark (see below). 8 bytes keep Lua's 8-byte alignment (Lua 5.4
   needs no more: LUAI_MAXALIGN holds no long double). The other blocks (strings, table
   parts, function prototypes and code, upvalues: most of a state) have none, which saves
   malloc 8 bytes of their size, often a 16-byte step of its chunks (an idle
   room's memory). Which blocks have one is told by the address alone, so a free (which
   Lua calls with the size but not the type) needs no lookup: every block is 16-byte
   aligned (glibc's malloc gives that; a block from a malloc that does not is moved, see
   clua_alloc), a block with a header is handed to Lua 8 bytes into its 16, one without
   at the start. */
#define CLUA_HEADER ((size_t)sizeof(uint64_t))
#define CLUA_MALLOC_ALIGNMENT ((uintptr_t)16)
/* malloc and realloc return blocks aligned for any type (C11 7.22.3): max_align_t's. */
_Static_assert(_Alignof(max_align_t) >= CLUA_MALLOC_ALIGNMENT, "headers are told apart by malloc's 16-byte alignment");

static int clua_has_header(const void *object) {
    return ((uintptr_t)object & (CLUA_MALLOC_ALIGNMENT - 1)) == CLUA_HEADER;
}

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

/* ---------------------------------------------------------------------------------
** Thread stacks. Lua 5.4.4 never reallocates a stack in place: it allocates a new
** vector (a fresh untagged block of (slots + 5) * 16 bytes), copies, and frees the old
** one at once. A thread's first stack is the first block after the thread itself. So a
** block is a stack if it is a new thread's first block, or a fresh untagged block whose
** very next event is the free of a stack. Stacks carry CLUA_STACK_MARK in their header.
** ------------------------------------------------------------------------------- */

#define CLUA_STACK_MARK ((uint64_t)1 << 63)
#define CLUA_EXTRA_STACK 5
#define CLUA_STACK_SLOT 16
#define CLUA_MIN_STACK_BYTES ((40 + CLUA_EXTRA_STACK) * CLUA_STACK_SLOT)

static uint64_t *clua_header(void *object) { return (uint64_t *)((char *)object - CLUA_HEADER); }

static size_t clua_stack_slots(size_t bytes) { return bytes / CLUA_STACK_SLOT - CLUA_EXTRA_STACK; }

/// Stacks past half the cap are remembered by size: only they can double past it.
static void clua_note_stack(clua_context *c, void *block, size_t bytes) {
    *clua_header(block) |= CLUA_STACK_MARK;
    size_t slots = clua_stack_slots(bytes);
    if (slots <= CLUA_MAX_STACK_SLOTS / 2) return;
    if (c->big_stack_count == c->big_stack_capacity) {
        size_t capacity = c->big_stack_capacity ? c->big_stack_capacity * 2 : 8;
        size_t *grown = realloc(c->big_stacks, capacity * sizeof *grown);
        if (grown == NULL) return; /* then this stack is not checked: Lua's own limit holds */
        c->big_stacks = grown;
        c->big_stack_capacity = capacity;
    }
    c->big_stacks[c->big_stack_count++] = slots;
}

static void clua_forget_stack(clua_context *c, size_t bytes) {
    size_t slots = clua_stack_slots(bytes);
    if (slots <= CLUA_MAX_STACK_SLOTS / 2) return;
    for (size_t i = 0; i < c->big_stack_count; i++) {
        if (c->big_stacks[i] == slots) {
            c->big_stacks[i] = c->big_stacks[--c->big_stack_count];
            return;
        }
    }
}

/// Whether a fresh untagged block of `bytes` would be a live stack doubling past the cap.
/// (A stack also grows to exactly what a call needs; library calls are capped at
/// CLUA_MAX_RESULTS values, so that growth stays near the cap.)
static int clua_is_runaway_stack(clua_context *c, size_t bytes) {
    if (bytes % CLUA_STACK_SLOT != 0 || bytes < CLUA_MIN_STACK_BYTES) return 0;
    size_t slots = clua_stack_slots(bytes);
    if (slots <= CLUA_MAX_STACK_SLOTS) return 0;
    for (size_t i = 0; i < c->big_stack_count; i++)
        if (c->big_stacks[i] * 2 == slots) return 1;
    return 0;
}

/// Follows the allocation events that tell stacks apart (see above).
static void clua_track_stacks(clua_context *c, char *block, size_t osize, size_t nsize, int fresh) {
    void *pending = c->pending_stack;
    int expect = c->expect_thread_stack;
    c->pending_stack = NULL;
    c->expect_thread_stack = 0;
    if (nsize == 0) {
        if ((*(uint64_t *)block & CLUA_STACK_MARK) == 0) return;
        clua_forget_stack(c, osize);
        if (pending != NULL) clua_note_stack(c, pending, c->pending_bytes);
        return;
    }
    if (!fresh) return;
    void *object = block + CLUA_HEADER;
    if (osize == LUA_TTHREAD) { c->expect_thread_stack = 1; return; }
    if (osize != 0 || nsize % CLUA_STACK_SLOT != 0 || nsize < CLUA_MIN_STACK_BYTES) return;
    if (expect) { clua_note_stack(c, object, nsize); return; }
    c->pending_stack = object;
    c->pending_bytes = nsize;
}

void clua_trip(clua_context *c, lua_State *L);

/// Whether a new block is an object scripts can use as a key or print (a table, a
/// closure, a coroutine, a userdata; `tag` is its type with variant bits): only those
/// take a creation serial, so strings and internal vectors do not shift identities.
static int clua_stamps_serial(size_t tag) {
    switch (tag & 0x0f) {
    case LUA_TTABLE: case LUA_TFUNCTION: case LUA_TTHREAD: case LUA_TUSERDATA: return 1;
    default: return 0;
    }
}

/// Whether a new block gets a header: objects that take a serial, and blocks that may be
/// a thread's stack (fresh, untyped, a whole number of stack slots, at least a new
/// thread's first stack: clua_track_stacks may mark those).
static int clua_needs_header(size_t tag, size_t nsize) {
    if (clua_stamps_serial(tag)) return 1;
    return tag == 0 && nsize % CLUA_STACK_SLOT == 0 && nsize >= CLUA_MIN_STACK_BYTES;
}

// Why C: lua_Alloc is called by Lua with no Swift context; it must be a C function.
static void *clua_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    clua_context *c = (clua_context *)ud;
    /* A block keeps what it was made with: a header, or none (realloc keeps malloc's
       16-byte alignment, so the address still tells). */
    size_t header = ptr ? (clua_has_header(ptr) ? CLUA_HEADER : 0) : (clua_needs_header(osize, nsize) ? CLUA_HEADER : 0);
    char *block = ptr ? (char *)ptr - header : NULL;
    size_t old = ptr ? osize + header : 0;
    if (nsize == 0) {
        if (block == NULL) {
            /* free(NULL): no event */
        } else if (header != 0) {
            clua_track_stacks(c, block, osize, 0, 0);
        } else {
            /* Not a stack (see clua_track_stacks: any event ends a pending one). */
            c->pending_stack = NULL;
            c->expect_thread_stack = 0;
        }
        free(block);
        c->memory_used -= old;
        return NULL;
    }
    size_t total = nsize + header;
    if (total > old && c->enforce_memory) {
        if (ptr == NULL && osize == 0 && clua_is_runaway_stack(c, nsize)) {
            if (!c->memory_refused) clua_note_location(c, NULL);
            c->memory_refused = 1;
            c->stack_refused = 1;
            c->stack_refusals++;
            c->last_refusal_stack = 1;
            c->pending_stack = NULL;
            return NULL;
        }
        if (c->memory_used - old + total > c->memory_limit) {
            if (!c->memory_refused) clua_note_location(c, NULL);
            c->memory_refused = 1;
            c->last_refusal_stack = 0;
            c->pending_stack = NULL;
            /* Lua now collects the whole heap before it raises "not enough memory":
               that work is charged, so refusals in a loop cannot run unbounded. */
            if (c->budget_armed && !c->budget_tripped) {
                c->budget_remaining -= (int64_t)(c->memory_used / CLUA_BYTES_PER_UNIT);
                if (c->budget_remaining <= 0) clua_trip(c, NULL);
            }
            return NULL;
        }
        if (c->budget_armed && !c->budget_tripped) {
            c->budget_remaining -= (int64_t)((total - old) / CLUA_BYTES_PER_UNIT);
            /* Cannot raise here: the hook raises at the next instruction. */
            if (c->budget_remaining <= 0) clua_trip(c, NULL);
        }
    }
    void *p = realloc(block, total);
    if (p == NULL) return NULL;
    if (((uintptr_t)p & (CLUA_MALLOC_ALIGNMENT - 1)) != 0) {
        /* A malloc that gives small blocks less than 16-byte alignment (jemalloc's and
           tcmalloc's 8-byte size classes, when preloaded): the address must tell a header
           from none, so the block moves to a 16-byte aligned one. glibc's never comes here. */
        size_t rounded = (total + CLUA_MALLOC_ALIGNMENT - 1) & ~(CLUA_MALLOC_ALIGNMENT - 1);
        void *aligned = aligned_alloc(CLUA_MALLOC_ALIGNMENT, rounded);
        if (aligned == NULL) {
            /* realloc already let go of the old block: nothing to hand back to Lua. */
            fputs("dicehost: out of memory moving a Lua block to 16-byte alignment\n", stderr);
            abort();
        }
        memcpy(aligned, p, total);
        free(p);
        p = aligned;
    }
    if (ptr == NULL && header != 0) *(uint64_t *)p = clua_stamps_serial(osize) ? ++c->next_serial : 0;
    c->memory_used = c->memory_used - old + total;
    if (c->memory_used > c->memory_peak) c->memory_peak = c->memory_used;
    if (header != 0) {
        clua_track_stacks(c, (char *)p, osize, nsize, ptr == NULL);
    } else {
        /* A block without a header is never a stack: what follows a pending one is not
           the free of a stack, and a new thread's first block has a header. */
        c->pending_stack = NULL;
        c->expect_thread_stack = 0;
    }
    return (char *)p + header;
}

static uint64_t clua_block_serial(const void *object) {
    return object ? *(const uint64_t *)((const char *)object - CLUA_HEADER) & ~CLUA_STACK_MARK : 0;
}

void clua_share_serial(lua_State *L, int from, int to) {
    const void *source = lua_topointer(L, from), *target = lua_topointer(L, to);
    if (source == NULL || target == NULL || !clua_has_header(source) || !clua_has_header(target)) return;
    uint64_t *header = (uint64_t *)((char *)target - CLUA_HEADER);
    *header = (*header & CLUA_STACK_MARK) | clua_block_serial(source);
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
    clua_coverage_free(c);
    free(c->big_stacks);
    free(c);
}
