// The C side of DiceHost's Lua embedding: the system Lua 5.4 headers plus the few
// helpers Swift cannot write itself. Every helper is prefixed `clua_` and carries a
// one-line comment saying why it is C. Only the Swift module `Lua` imports this.
#ifndef CLUA_SHIM_H
#define CLUA_SHIM_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------------------------
** Per-state context. One per lua_State, reached through lua_getextraspace so that C
** callbacks (allocator, hook, trampoline) need no globals. Coroutines copy the main
** thread's extra space, so they see the same context.
** ------------------------------------------------------------------------------- */

/// Result codes a Swift host function returns to the trampoline (>= 0: result count).
#define CLUA_RAISE (-1)          /* raise the value on top of the stack as it is */
#define CLUA_RAISE_WHERE (-2)    /* raise the string on top, prefixed "file:line: " */
#define CLUA_RAISE_ARG (-1000)   /* raise "bad argument #n to 'f' (msg)", n = CLUA_RAISE_ARG - code */

/// Instructions between two count-hook calls while a budget is armed.
#define CLUA_HOOK_STEP 1000

/// Work (roughly, matcher steps) a string pattern call may need in the worst case.
#define CLUA_PATTERN_WORK 1.0e8

typedef int (*clua_dispatch_fn)(lua_State *L, void *function);

typedef struct clua_context {
    /* memory: bytes in use, the cap, the high-water mark */
    size_t memory_used;
    size_t memory_limit;
    size_t memory_peak;
    int enforce_memory;      /* refuse growth past the cap (only while Lua code runs) */
    int memory_refused;      /* the allocator refused since the last call from the host */
    /* instruction budget for the current call from the host */
    int64_t budget_total;
    int64_t budget_remaining;
    int budget_armed;
    int budget_tripped;
    volatile sig_atomic_t interrupt_requested; /* set from a signal handler */
    int interrupted;
    /* where Lua was when the allocator refused: memory errors carry no traceback */
    lua_State *main_thread;
    int last_line;
    char last_source[256];
    /* the function that runs a host function, given the pointer in its upvalue */
    clua_dispatch_fn dispatch;
    /* the game's random generator: xoshiro256** */
    uint64_t random_state[4];
    /* watched calls (no budget): steps made, whether one runs, whether it was stopped,
       when the current step began, the time that proves a step stayed in budget, and
       whether one took longer */
    uint64_t progress;
    int watched;
    volatile sig_atomic_t stalled;
    uint64_t step_started_ns;
    uint64_t step_limit_ns;
    int slow_step;
} clua_context;

// Why C: lua_getextraspace is a macro.
static inline clua_context *clua_ctx(lua_State *L) {
    return *(clua_context **)lua_getextraspace(L);
}

/* ---------------------------------------------------------------------------------
** Capped allocator
** ------------------------------------------------------------------------------- */

/// Records the innermost Lua frame of the main thread. Called only on the refusal
/// path, where nothing has been freed or moved, so the call chain is intact.
static void clua_note_location(clua_context *c) {
    lua_State *L = c->main_thread;
    lua_Debug ar;
    if (L == NULL) return;
    for (int level = 0; level < 32 && lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0 && ar.source[0] == '@') {
            c->last_line = ar.currentline;
            strncpy(c->last_source, ar.source + 1, sizeof(c->last_source) - 1);
            return;
        }
    }
}

// Why C: lua_Alloc is called by Lua with no Swift context; it must be a C function.
static void *clua_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    clua_context *c = (clua_context *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        c->memory_used -= old;
        return NULL;
    }
    if (nsize > old && c->enforce_memory && c->memory_used - old + nsize > c->memory_limit) {
        if (!c->memory_refused) clua_note_location(c);
        c->memory_refused = 1;
        return NULL; /* Lua runs an emergency collection, then raises "not enough memory" */
    }
    void *p = realloc(ptr, nsize);
    if (p == NULL) return NULL;
    c->memory_used = c->memory_used - old + nsize;
    if (c->memory_used > c->memory_peak) c->memory_peak = c->memory_used;
    return p;
}

// Why C: the panic handler runs only on errors outside any protected call, which the
// host never makes; it exists so such a bug aborts with a message, not silently.
static int clua_panic(lua_State *L) {
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "dicehost: unprotected Lua error: %s\n", msg ? msg : "(not a string)");
    return 0;
}

// Why C: creating a state needs the allocator's function pointer.
static inline lua_State *clua_newstate(size_t memory_limit) {
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
static inline void clua_close(lua_State *L) {
    clua_context *c = clua_ctx(L);
    lua_close(L);
    free(c);
}

/* ---------------------------------------------------------------------------------
** Instruction budget and interrupts
** ------------------------------------------------------------------------------- */

// Why C: a hook that raises must longjmp, which is only safe from C.
static void clua_hook(lua_State *L, lua_Debug *ar) {
    clua_context *c = clua_ctx(L);
    if (c->interrupt_requested) {
        c->interrupted = 1;
        lua_sethook(L, clua_hook, LUA_MASKCOUNT, 1);
        luaL_error(L, "interrupted");
        return;
    }
    if (!c->budget_armed) return;
    if (!c->budget_tripped) {
        c->budget_remaining -= CLUA_HOOK_STEP;
        if (c->budget_remaining > 0) return;
        c->budget_tripped = 1;
        if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0 && ar->source[0] == '@'
            && strncmp(ar->source, "@dicehost-", 10) != 0) {
            c->last_line = ar->currentline;
            strncpy(c->last_source, ar->source + 1, sizeof(c->last_source) - 1);
        }
    }
    /* Keep firing on every instruction so a script's own pcall cannot swallow it. */
    lua_sethook(L, clua_hook, LUA_MASKCOUNT, 1);
    luaL_error(L, "instruction budget exceeded (%I instructions)", (lua_Integer)c->budget_total);
}

// Why C: lua_sethook takes the hook's function pointer.
static inline void clua_arm_budget(lua_State *L, int64_t budget) {
    clua_context *c = clua_ctx(L);
    c->budget_total = budget;
    c->budget_remaining = budget;
    c->budget_tripped = 0;
    c->budget_armed = 1;
    c->interrupted = 0;
    lua_sethook(L, clua_hook, LUA_MASKCOUNT, budget < CLUA_HOOK_STEP ? (int)(budget > 0 ? budget : 1) : CLUA_HOOK_STEP);
}

// Why C: as above; coroutines keep their own hook but it returns at once when disarmed.
static inline void clua_disarm_budget(lua_State *L) {
    clua_context *c = clua_ctx(L);
    c->budget_armed = 0;
    c->interrupt_requested = 0;
    lua_sethook(L, NULL, 0, 0);
}

// Why C: puts the hook back after a nested call disarmed it (the hook's address).
static inline void clua_resume_budget(lua_State *L) {
    clua_context *c = clua_ctx(L);
    if (c->budget_armed) lua_sethook(L, clua_hook, LUA_MASKCOUNT, c->budget_tripped ? 1 : CLUA_HOOK_STEP);
}

/* ---------------------------------------------------------------------------------
** Watched calls: a hot loop runs with no budget, so no count hook slows every VM
** instruction; it reports progress once per step, and a watchdog thread stops a step
** that makes none by signalling the thread, whose handler installs the hook (Lua's own
** interpreter stops Ctrl-C the same way: lua_sethook is safe in a signal handler).
** ------------------------------------------------------------------------------- */

#define CLUA_WATCHDOG_SIGNAL SIGUSR2
/* Declared here: glibc's header shows it only under _GNU_SOURCE. */
extern int pthread_sigqueue(pthread_t thread, int sig, const union sigval value);

// Why C: a signal handler; the context rides in the signal's value.
static void clua_watchdog_signal(int sig, siginfo_t *info, void *unused) {
    (void)sig; (void)unused;
    clua_context *c = (clua_context *)info->si_value.sival_ptr;
    if (c == NULL || !__atomic_load_n(&c->watched, __ATOMIC_SEQ_CST)) return;
    c->stalled = 1;
    c->interrupt_requested = 1;
    lua_sethook(c->main_thread, clua_hook, LUA_MASKCOUNT, 1);
}

// Why C: sigaction with SA_SIGINFO.
static inline void clua_watchdog_install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = clua_watchdog_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(CLUA_WATCHDOG_SIGNAL, &action, NULL);
}

// Why C: sigset macros. Run on a watched thread: thread pools (libdispatch's) block
// signals on their threads, and a blocked signal would stay pending forever.
static inline void clua_watchdog_unblock(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, CLUA_WATCHDOG_SIGNAL);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

// Why C: pthread_sigqueue's union argument. Called by the watchdog thread.
static inline int clua_watchdog_stop(pthread_t thread, clua_context *c) {
    union sigval value;
    value.sival_ptr = c;
    return pthread_sigqueue(thread, CLUA_WATCHDOG_SIGNAL, value);
}

// Why C: struct timespec arithmetic, on the hot path (the vDSO clock, tens of ns).
static inline uint64_t clua_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/// Ends the current step of a watched call and begins the next: a step that took
/// longer than the limit is noted (it may have run past the instruction budget).
static inline void clua_step(clua_context *c) {
    __atomic_fetch_add(&c->progress, 1, __ATOMIC_RELAXED);
    if (!__atomic_load_n(&c->watched, __ATOMIC_RELAXED)) return;
    uint64_t now = clua_now_ns();
    if (now - c->step_started_ns > c->step_limit_ns) c->slow_step = 1;
    c->step_started_ns = now;
}

// Why C: atomics shared with the watchdog thread.
static inline void clua_watch_begin(clua_context *c, uint64_t step_limit_ns) {
    c->stalled = 0;
    c->interrupt_requested = 0;
    c->slow_step = 0;
    c->step_limit_ns = step_limit_ns;
    c->step_started_ns = clua_now_ns();
    __atomic_store_n(&c->watched, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&c->progress, 1, __ATOMIC_RELAXED);
}

/// Ends a watched call; returns whether the watchdog stopped (or was stopping) it or
/// a step took longer than the limit.
static inline int clua_watch_end(lua_State *L) {
    clua_context *c = clua_ctx(L);
    clua_step(c);
    __atomic_store_n(&c->watched, 0, __ATOMIC_SEQ_CST);
    int stalled = c->stalled;
    if (stalled) {
        lua_sethook(L, NULL, 0, 0);
        c->interrupt_requested = 0;
        c->stalled = 0;
    }
    return stalled || c->slow_step;
}

// Why C: atomic reads for the watchdog thread.
static inline uint64_t clua_progress_read(clua_context *c) { return __atomic_load_n(&c->progress, __ATOMIC_RELAXED); }
static inline int clua_watched_now(clua_context *c) { return __atomic_load_n(&c->watched, __ATOMIC_SEQ_CST); }

/* ---------------------------------------------------------------------------------
** Protected calls with a traceback, and the host-function trampoline
** ------------------------------------------------------------------------------- */

#define CLUA_TRACEBACK_KEY "clua.traceback"

// Why C: a message handler runs while Lua unwinds; it stores the traceback in the
// registry and leaves the error object untouched (no __tostring: it may be hostile).
static int clua_msghandler(lua_State *L) {
    clua_context *c = clua_ctx(L);
    int saved = c->enforce_memory;
    c->enforce_memory = 0;
    luaL_traceback(L, L, NULL, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, CLUA_TRACEBACK_KEY);
    c->enforce_memory = saved;
    lua_settop(L, 1);
    return 1;
}

// Why C: the message handler's function pointer, and lua_pcall is a macro.
static inline int clua_pcall(lua_State *L, int nargs, int nresults) {
    clua_context *c = clua_ctx(L);
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, clua_msghandler);
    lua_insert(L, base);
    int saved = c->enforce_memory;
    c->enforce_memory = 1;
    int status = lua_pcall(L, nargs, nresults, base);
    c->enforce_memory = saved;
    lua_remove(L, base);
    return status;
}

/// Pushes "file:line: " of the innermost script frame above the running function,
/// skipping the host's own Lua wrappers (chunk names "dicehost-…"), or "" if none.
static void clua_where_script(lua_State *L) {
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0) continue;
        if (strncmp(ar.source, "@dicehost-", 10) == 0) continue;
        lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
        return;
    }
    lua_pushliteral(L, "");
}

// Why C: raising a Lua error longjmps; it must happen here, after the Swift host
// function has returned, never inside a Swift frame.
static int clua_trampoline(lua_State *L) {
    clua_context *c = clua_ctx(L);
    void *function = lua_touserdata(L, lua_upvalueindex(1));
    int saved = c->enforce_memory;
    c->enforce_memory = 0; /* host code is never refused memory mid-way; checked below */
    int r = c->dispatch(L, function);
    c->enforce_memory = saved;
    if (r >= 0) {
        if (saved && c->memory_used > c->memory_limit) {
            /* An allocation under the cap lets Lua collect first and raise a true
               memory error if the host pushed the state past its cap. */
            lua_newuserdatauv(L, 64, 0);
            lua_pop(L, 1);
        }
        return r;
    }
    if (r == CLUA_RAISE) return lua_error(L);
    if (r == CLUA_RAISE_WHERE) {
        clua_where_script(L);
        lua_insert(L, -2);
        lua_concat(L, 2);
        return lua_error(L);
    }
    /* As luaL_argerror, but located at the script's line, not a host wrapper's. */
    int arg = (int)(CLUA_RAISE_ARG - r);
    lua_Debug ar;
    const char *name = "?";
    if (lua_getstack(L, 0, &ar)) {
        lua_getinfo(L, "n", &ar);
        if (ar.namewhat != NULL && strcmp(ar.namewhat, "method") == 0) arg--;
        if (ar.name != NULL) name = ar.name;
    }
    clua_where_script(L);
    if (arg == 0) lua_pushfstring(L, "calling '%s' on bad self (%s)", name, lua_tostring(L, -2));
    else lua_pushfstring(L, "bad argument #%d to '%s' (%s)", arg, name, lua_tostring(L, -2));
    lua_concat(L, 2);
    return lua_error(L);
}

// Why C: takes the trampoline's address; upvalue 1 points at the host function.
static inline void clua_push_host_function(lua_State *L, void *function) {
    lua_pushlightuserdata(L, function);
    lua_pushcclosure(L, clua_trampoline, 1);
}

/* ---------------------------------------------------------------------------------
** The host's random generator (xoshiro256**, seeded through splitmix64)
** ------------------------------------------------------------------------------- */

static inline uint64_t clua_rotl(uint64_t x, int n) { return (x << n) | (x >> (64 - n)); }

// Why C: math.random is called in hot loops from Lua; a C function avoids the bridge.
static inline uint64_t clua_random_next(clua_context *c) {
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

static inline void clua_random_seed(clua_context *c, uint64_t seed) {
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        c->random_state[i] = z ^ (z >> 31);
    }
}

/// A uniform integer in [0, limit] without modulo bias (rejection on a bit mask).
static inline uint64_t clua_random_below_or_equal(clua_context *c, uint64_t limit) {
    uint64_t r = clua_random_next(c);
    if ((limit & (limit + 1)) == 0) return r & limit; /* limit + 1 is a power of two */
    uint64_t mask = limit;
    mask |= mask >> 1; mask |= mask >> 2; mask |= mask >> 4;
    mask |= mask >> 8; mask |= mask >> 16; mask |= mask >> 32;
    while ((r &= mask) > limit) r = clua_random_next(c);
    return r;
}

// Why C: a library function that raises argument errors (luaL_argcheck longjmps).
static int clua_math_random(lua_State *L) {
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

// Why C: as math.random. With no argument it reseeds from the stream itself, so a
// game stays a function of its seed.
static int clua_math_randomseed(lua_State *L) {
    clua_context *c = clua_ctx(L);
    uint64_t seed = lua_isnoneornil(L, 1) ? clua_random_next(c)
                                           : (uint64_t)luaL_checkinteger(L, 1);
    clua_random_seed(c, seed);
    return 0;
}

/* ---------------------------------------------------------------------------------
** Sandbox guards: library functions wrapped so scripts cannot escape or stall
** ------------------------------------------------------------------------------- */

// Why C: raises argument errors. Finalizers would run at unpredictable GC times and
// outside any budget, so a metatable with __gc is refused.
static int clua_setmetatable(lua_State *L) {
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

// Why C: raises; collectgarbage("collect") and friends would let scripts steer GC.
static int clua_collectgarbage(lua_State *L) {
    const char *opt = luaL_optstring(L, 1, "collect");
    if (strcmp(opt, "count") != 0)
        return luaL_argerror(L, 1, "only \"count\" is allowed in rule scripts");
    lua_pushnumber(L, (lua_Number)lua_gc(L, LUA_GCCOUNT, 0) + (lua_Number)lua_gc(L, LUA_GCCOUNTB, 0) / 1024.0);
    return 1;
}

// Why C: forwards to the real load with mode "t" (binary chunks bypass the verifier)
// and the sandbox as default environment (the real default is the unsandboxed _G).
static int clua_load(lua_State *L) {
    int has_env = lua_gettop(L) >= 4;
    lua_settop(L, 4);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushliteral(L, "t");
    if (has_env) lua_pushvalue(L, 4); else lua_pushvalue(L, lua_upvalueindex(2));
    lua_call(L, 4, LUA_MULTRET);
    return lua_gettop(L) - 4;
}

// Why C: a coroutine made while no budget was armed has no hook; it gets one here
// (the hook returns at once while no budget is armed).
static int clua_coroutine_create(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    lua_State *co = lua_tothread(L, -1);
    if (co) lua_sethook(co, clua_hook, LUA_MASKCOUNT, CLUA_HOOK_STEP);
    return 1;
}

// Why C: as above; the standard wrap keeps its coroutine as upvalue 1 of the closure.
static int clua_coroutine_wrap(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    if (lua_getupvalue(L, -1, 1) != NULL) {
        lua_State *co = lua_tothread(L, -1);
        if (co) lua_sethook(co, clua_hook, LUA_MASKCOUNT, CLUA_HOOK_STEP);
        lua_pop(L, 1);
    }
    return 1;
}

/// Worst-case matcher work for a pattern over a subject of n bytes: each start
/// position times (n+1) per backtracking quantifier that is not the pattern's last item.
static inline double clua_pattern_work(size_t n, const char *p, size_t pl, int plain) {
    if (plain) return (double)n;
    size_t i = 0;
    int anchored = 0, quantifiers = 0, trailing = 0;
    if (pl > 0 && p[0] == '^') { anchored = 1; i = 1; }
    while (i < pl) {
        trailing = 0;
        char ch = p[i];
        if (ch == '(' || ch == ')') { i++; continue; }
        if (ch == '$' && i + 1 == pl) { i++; continue; }
        if (ch == '%') {
            if (i + 1 < pl && p[i + 1] == 'b') { i += 4; continue; }
            if (i + 1 < pl && p[i + 1] == 'f') {
                i += 2;
                if (i < pl && p[i] == '[') {
                    i++;
                    if (i < pl && p[i] == '^') i++;
                    if (i < pl) i++;
                    while (i < pl && p[i] != ']') i += (p[i] == '%') ? 2 : 1;
                    i++;
                }
                continue;
            }
            i += 2;
        } else if (ch == '[') {
            i++;
            if (i < pl && p[i] == '^') i++;
            if (i < pl) i++; /* a ']' first is literal */
            while (i < pl && p[i] != ']') i += (p[i] == '%') ? 2 : 1;
            i++;
        } else {
            i++;
        }
        if (i < pl && (p[i] == '*' || p[i] == '+' || p[i] == '-')) {
            quantifiers++;
            trailing = 1;
            i++;
        } else if (i < pl && p[i] == '?') {
            i++;
        }
    }
    if (trailing) quantifiers--;
    double work = anchored ? 1.0 : (double)(n + 1);
    for (int q = 0; q < quantifiers && work <= CLUA_PATTERN_WORK; q++) work *= (double)(n + 1);
    return work;
}

// Why C: string.find and kin run inside C where the count hook never fires; a
// pattern whose worst case would stall the host is refused before it starts.
static int clua_guarded_pattern(lua_State *L) {
    size_t n = 0, pl = 0;
    const char *s = lua_tolstring(L, 1, &n);
    const char *p = lua_tolstring(L, 2, &pl);
    if (s != NULL && p != NULL) {
        int plain = lua_toboolean(L, lua_upvalueindex(2)) && lua_toboolean(L, 4);
        double work = clua_pattern_work(n, p, pl, plain);
        if (work > CLUA_PATTERN_WORK)
            return luaL_error(L, "pattern too complex for a subject of %I bytes "
                              "(its worst case needs about %f steps; the limit is %f)",
                              (lua_Integer)n, work, CLUA_PATTERN_WORK);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

// Why C: the closure needs the guard's function pointer; `plain` marks string.find,
// whose 4th argument turns patterns off.
static inline void clua_push_guarded_pattern(lua_State *L, int plain_argument) {
    lua_pushboolean(L, plain_argument);
    lua_pushcclosure(L, clua_guarded_pattern, 2);
}

/* ---------------------------------------------------------------------------------
** Deterministic pairs
** Debian's Lua seeds its string hash per process, so `next` visits string keys in a
** different order on every run. pairs() instead visits keys in a fixed order:
** integers and floats ascending, then strings bytewise, then booleans (false first),
** then any other key in `next` order.
** ------------------------------------------------------------------------------- */

typedef struct clua_key {
    int rank;          /* 0 number, 1 string, 2 boolean, 3 other */
    lua_Number number;
    lua_Integer integer;
    int is_integer;
    const char *text;
    size_t length;
    int position;      /* index in the snapshot, to keep "other" keys stable */
} clua_key;

static int clua_compare_keys(const void *a, const void *b) {
    const clua_key *x = (const clua_key *)a, *y = (const clua_key *)b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    switch (x->rank) {
    case 0:
        if (x->is_integer && y->is_integer)
            return x->integer < y->integer ? -1 : (x->integer > y->integer ? 1 : 0);
        {
            lua_Number u = x->is_integer ? (lua_Number)x->integer : x->number;
            lua_Number v = y->is_integer ? (lua_Number)y->integer : y->number;
            if (u != v) return u < v ? -1 : 1;
        }
        break;
    case 1: {
        size_t m = x->length < y->length ? x->length : y->length;
        int r = memcmp(x->text, y->text, m);
        if (r != 0) return r;
        if (x->length != y->length) return x->length < y->length ? -1 : 1;
        break;
    }
    case 2:
        if (x->integer != y->integer) return x->integer < y->integer ? -1 : 1;
        break;
    }
    return x->position < y->position ? -1 : (x->position > y->position ? 1 : 0);
}

// Why C: the iterator raises nothing but runs on every step of every pairs loop.
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

// Why C: raises argument errors and calls __pairs.
static int clua_pairs(lua_State *L) {
    if (luaL_getmetafield(L, 1, "__pairs") != LUA_TNIL) {
        lua_pushvalue(L, 1);
        lua_call(L, 1, 3);
        return 3;
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    int count = 0;
    lua_pushnil(L);
    while (lua_next(L, 1)) { lua_pop(L, 1); count++; }
    lua_createtable(L, count, 0);                    /* 2: keys, in next order */
    clua_key *keys = (clua_key *)lua_newuserdatauv(L, sizeof(clua_key) * (size_t)(count ? count : 1), 0); /* 3 */
    int n = 0, ordered = 1;
    lua_pushnil(L);
    while (lua_next(L, 1)) {
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
        default: k->rank = 3; ordered = 0; break;
        }
        lua_pushvalue(L, -1);
        lua_rawseti(L, 2, ++n); /* anchors string keys for the sort below */
    }
    if (!ordered) {
        qsort(keys, (size_t)n, sizeof(clua_key), clua_compare_keys);
        lua_createtable(L, n, 0);                    /* 4: keys, sorted */
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, 2, keys[i].position + 1);
            lua_rawseti(L, 4, i + 1);
        }
        lua_replace(L, 2);
    }
    lua_settop(L, 2);
    lua_pushvalue(L, 1);
    lua_insert(L, 2);                                /* table, table, keys */
    lua_pushinteger(L, 1);
    lua_pushcclosure(L, clua_sorted_next, 3);
    lua_pushnil(L);
    lua_pushnil(L);
    return 3;
}

/* ---------------------------------------------------------------------------------
** Installing the guards (each needs a C function's address)
** ------------------------------------------------------------------------------- */

// Why C: pushes closures over the C guards above; the original is on top of the stack.
static inline void clua_wrap_top(lua_State *L, const char *which) {
    if (strcmp(which, "setmetatable") == 0) lua_pushcclosure(L, clua_setmetatable, 1);
    else if (strcmp(which, "coroutine.create") == 0) lua_pushcclosure(L, clua_coroutine_create, 1);
    else if (strcmp(which, "coroutine.wrap") == 0) lua_pushcclosure(L, clua_coroutine_wrap, 1);
    else if (strcmp(which, "string.find") == 0) clua_push_guarded_pattern(L, 1);
    else if (strcmp(which, "string.pattern") == 0) clua_push_guarded_pattern(L, 0);
}

// Why C: pushes a closure of the real load (below the top) and the sandbox (on top).
static inline void clua_push_sandboxed_load(lua_State *L) {
    lua_pushcclosure(L, clua_load, 2);
}

// Why C: function pointers of the sandbox's own library functions.
static inline void clua_push_sandbox_function(lua_State *L, const char *which) {
    if (strcmp(which, "pairs") == 0) lua_pushcfunction(L, clua_pairs);
    else if (strcmp(which, "collectgarbage") == 0) lua_pushcfunction(L, clua_collectgarbage);
    else if (strcmp(which, "math.random") == 0) lua_pushcfunction(L, clua_math_random);
    else if (strcmp(which, "math.randomseed") == 0) lua_pushcfunction(L, clua_math_randomseed);
    else lua_pushnil(L);
}

// Why C: luaL_requiref takes the opener's function pointer; these are the only
// standard libraries a sandbox starts from.
static inline void clua_open_safe_libraries(lua_State *L) {
    luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
    luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
    luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
    luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 1);
    lua_pop(L, 6);
}

/* ---------------------------------------------------------------------------------
** Macros, as functions Swift can call
** ------------------------------------------------------------------------------- */

// Why C: these are macros in lua.h.
static inline void clua_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline void clua_newtable(lua_State *L) { lua_newtable(L); }
static inline int clua_upvalueindex(int i) { return lua_upvalueindex(i); }
static inline int clua_registryindex(void) { return LUA_REGISTRYINDEX; }
static inline const char *clua_tostring(lua_State *L, int i, size_t *len) { return lua_tolstring(L, i, len); }
static inline int clua_isinteger(lua_State *L, int i) { return lua_isinteger(L, i); }
static inline lua_Integer clua_tointeger(lua_State *L, int i) { return lua_tointegerx(L, i, NULL); }
static inline lua_Number clua_tonumber(lua_State *L, int i) { return lua_tonumberx(L, i, NULL); }
static inline const char *clua_typename(lua_State *L, int i) { return luaL_typename(L, i); }
static inline void clua_pushliteral_empty(lua_State *L) { lua_pushliteral(L, ""); }
// Why C: lua_gc is variadic.
static inline void clua_collect(lua_State *L) { lua_gc(L, LUA_GCCOLLECT); }
static inline void clua_remove(lua_State *L, int i) { lua_remove(L, i); }
static inline void clua_insert(lua_State *L, int i) { lua_insert(L, i); }
static inline void clua_replace(lua_State *L, int i) { lua_replace(L, i); }
static inline int clua_ref(lua_State *L) { return luaL_ref(L, LUA_REGISTRYINDEX); }
static inline void clua_unref(lua_State *L, int ref) { luaL_unref(L, LUA_REGISTRYINDEX, ref); }
static inline int clua_getref(lua_State *L, int ref) { return lua_rawgeti(L, LUA_REGISTRYINDEX, ref); }
static inline int clua_getglobaltable(lua_State *L) { return lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS); }
static inline int clua_load_text(lua_State *L, const char *buf, size_t len, const char *name) {
    clua_context *c = clua_ctx(L);
    int saved = c->enforce_memory;
    c->enforce_memory = 1; /* lua_load is protected, so the cap can apply to parsing too */
    int status = luaL_loadbufferx(L, buf, len, name, "t");
    c->enforce_memory = saved;
    return status;
}

#endif
