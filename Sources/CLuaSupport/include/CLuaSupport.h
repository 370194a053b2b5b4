// DiceHost's C helpers around the system Lua 5.4: what Swift cannot do itself (call
// Lua's function-like macros, raise Lua errors, be a lua_Alloc or a hook or a signal
// handler, run in C where a longjmp is safe). One .c file per concern, each opening
// with why it exists; everything is prefixed `clua_`. Only the Swift module `Lua`
// imports this.
#ifndef CLUA_SUPPORT_H
#define CLUA_SUPPORT_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* ---------------------------------------------------------------------------------
** Limits and costs
** ------------------------------------------------------------------------------- */

/// Result codes a Swift host function returns to the trampoline (>= 0: result count).
#define CLUA_RAISE (-1)          /* raise the value on top of the stack as it is */
#define CLUA_RAISE_WHERE (-2)    /* raise the string on top, prefixed "file:line: " */
#define CLUA_RAISE_BUDGET (-3)   /* the call's charge used up the budget: raise that */
#define CLUA_RAISE_ARG (-1000)   /* raise "bad argument #n to 'f' (msg)", n = CLUA_RAISE_ARG - code */

/// Instructions between two count-hook calls while a budget is armed.
#define CLUA_HOOK_STEP 1000
/// Bytes allocated, copied or scanned by C code that cost as much as one instruction.
#define CLUA_BYTES_PER_UNIT 16
/* Units charged for writing one float as text (tostring, %g, %f, table.concat): the
   conversion takes about as long as 30-50 VM instructions. */
#define CLUA_FLOAT_TEXT_UNITS 32
/// The most stack slots a Lua thread may grow to by doubling. A `__call` chain grows
/// the stack one slot per link while shifting every slot (quadratic, in C, where no
/// hook fires), so it must end long before Lua's own limit of a million slots.
#define CLUA_MAX_STACK_SLOTS 20480
/// The most values one library call may return (table.unpack, string.byte,
/// utf8.codepoint, string.unpack): each grows the stack to fit them without doubling,
/// so this, with CLUA_MAX_STACK_SLOTS, bounds every thread's stack. Small enough that
/// a vararg function can take that many values and pass them on (three copies) well
/// inside the stack cap.
#define CLUA_MAX_RESULTS 4000

typedef int (*clua_dispatch_fn)(lua_State *L, void *function);

/// Per-state context. One per lua_State, reached through lua_getextraspace so that C
/// callbacks (allocator, hook, trampoline) need no globals. Coroutines copy the main
/// thread's extra space, so they see the same context.
typedef struct clua_context {
    /* memory: bytes in use, the cap, the high-water mark */
    size_t memory_used;
    size_t memory_limit;
    size_t memory_peak;
    int enforce_memory;      /* refuse growth past the cap (only while Lua code runs) */
    int memory_refused;      /* the allocator refused since the last call from the host */
    int stack_refused;       /* ... and it was a thread's stack past CLUA_MAX_STACK_SLOTS */
    /* stack refusals ever made, and whether the latest refusal was one: xpcall tells a
       stack overflow from a memory error by them (sandbox.c) */
    uint64_t stack_refusals;
    int last_refusal_stack;
    /* thread stacks, told apart from other blocks by how Lua 5.4.4 makes them (see
       allocator.c): the block that may be a stack's new vector, whether the next block
       is a new thread's first stack, and the sizes of live stacks that could double
       past the cap */
    void *pending_stack;
    size_t pending_bytes;
    int expect_thread_stack;
    size_t *big_stacks;
    size_t big_stack_count, big_stack_capacity;
    /* creation serials: every allocation is stamped, so keys that are objects can be
       ordered the same way in every process (addresses differ between runs) */
    uint64_t next_serial;
    /* the budget of the current input: instructions plus charged C work */
    int64_t budget_total;
    int64_t budget_remaining;
    int budget_armed;
    int budget_hooked;       /* whether the count hook counts instructions (not when watched) */
    int budget_tripped;      /* sticky until the host disarms the budget */
    volatile sig_atomic_t interrupt_requested; /* set from a signal handler */
    int interrupted;
    /* where Lua was when the budget tripped or the allocator refused */
    lua_State *main_thread;
    int last_line;
    char last_source[256];
    /* the function that runs a host function, given the pointer in its upvalue */
    clua_dispatch_fn dispatch;
    /* the game's random generator: xoshiro256** */
    uint64_t random_state[4];
    /* watched calls (no count hook): steps made, whether one runs, whether it was
       stopped, when the current step began, and whether a step ran long enough to
       have passed its budget */
    uint64_t progress;
    int watched;
    volatile sig_atomic_t stalled;
    uint64_t step_started_ns;
    int slow_step;
    /* a script is loading: frozen tables take writes (readonly.c) */
    int loading;
    /* lines run per rule script while coverage is on (coverage.c), else NULL: then the
       hook has no line mask and costs nothing more */
    struct clua_coverage *coverage;
} clua_context;

// Why C: lua_getextraspace is a macro.
static inline clua_context *clua_ctx(lua_State *L) {
    return *(clua_context **)lua_getextraspace(L);
}

/* allocator.c: the capped, serial-stamping allocator and state lifetime */
lua_State *clua_newstate(size_t memory_limit);
void clua_close(lua_State *L);
/// The creation serial of a table, closure or coroutine (0 for anything else).
uint64_t clua_serial(lua_State *L, int index);
/// Gives the table at `to` the creation serial of the one at `from` (a look's stand-in).
void clua_share_serial(lua_State *L, int from, int to);

/* budget.c: the count hook, charged work, interrupts */
void clua_arm_budget(lua_State *L, int64_t budget, int hooked);
void clua_disarm_budget(lua_State *L);
/// Charges `units` to the armed budget; returns 1 if the budget is (now) tripped.
int clua_charge(lua_State *L, int64_t units);
/// As clua_charge, then raises the budget error if tripped. Only from C functions.
void clua_charge_or_raise(lua_State *L, int64_t units);
/// Raises "instruction budget exceeded" (or "interrupted") as the hook would.
int clua_raise_budget(lua_State *L);
/// Whether the current input may not run more Lua: budget tripped or interrupted.
int clua_budget_spent(clua_context *c);
/// Saves and clears the budget so host work (rollback) runs unhooked; restores it.
typedef struct clua_budget_state {
    int64_t total, remaining;
    int armed, hooked, tripped, interrupted;
} clua_budget_state;
clua_budget_state clua_suspend_budget(lua_State *L);
void clua_resume_budget(lua_State *L, clua_budget_state saved);
/// Starts a step of a driver loop: a fresh budget unless tripped; progress for a watchdog.
void clua_begin_step(lua_State *L);

/// Sets the hook of L again as the budget and coverage now want it (budget.c).
void clua_refresh_hook(lua_State *L);

/* coverage.c: lines of rule scripts run, counted by the budget's hook on line events */
/// Lines past this are not counted (no script is that long; bounds the table).
#define CLUA_COVERAGE_MAX_LINE 1000000
/// Turns line counting on for L's main thread and the coroutines made after; 0 if out of memory.
int clua_coverage_start(lua_State *L);
void clua_coverage_free(clua_context *c);
/// Counts the lines of the chunk named `source` (without '@'), a file; 0 if coverage is off.
int clua_coverage_allow(lua_State *L, const char *source);
void clua_coverage_record(clua_context *c, lua_State *L, lua_Debug *ar);
int clua_coverage_file_count(clua_context *c);
const char *clua_coverage_file_source(clua_context *c, int file);
/// One more than the highest line recorded so far in `file` (0 for none).
int clua_coverage_file_lines(clua_context *c, int file);
uint64_t clua_coverage_hits(clua_context *c, int file, int line);
unsigned char *clua_dump_top(lua_State *L, size_t *size);

/* watchdog.c: watched calls, stopped by a signal when they stall */
#define CLUA_WATCHDOG_SIGNAL SIGUSR2
void clua_watchdog_install(void);
void clua_watchdog_unblock(void);
int clua_watchdog_stop(pthread_t thread, clua_context *c);
void clua_watch_begin(lua_State *L, int64_t budget);
/// Ends a watched call; returns whether it was stopped or a step was too slow.
int clua_watch_end(lua_State *L);
/// Budget a watched call's last step leaves for host work that completes the step,
/// counting its elapsed time as instructions at the fastest rate any machine runs.
int64_t clua_watch_allowance(lua_State *L);
static inline uint64_t clua_progress_read(clua_context *c) { return __atomic_load_n(&c->progress, __ATOMIC_RELAXED); }
static inline int clua_watched_now(clua_context *c) { return __atomic_load_n(&c->watched, __ATOMIC_SEQ_CST); }

/* protected_call.c: protected calls with a traceback; raising for host functions */
#define CLUA_TRACEBACK_KEY "clua.traceback"
int clua_pcall(lua_State *L, int nargs, int nresults);
void clua_push_host_function(lua_State *L, void *function);
int clua_load_text(lua_State *L, const char *buf, size_t len, const char *name);

/* host_chunk.c: the host's own chunks, compiled once per process, loaded without debug info */
/// Dumps the Lua function on top of the stack without debug info into a malloc'd
/// buffer (NULL on failure); release it with clua_free_dump.
unsigned char *clua_dump_stripped(lua_State *L, size_t *length);
/// Compiles `text` in a scratch state and returns its stripped dump (free with
/// clua_free_dump), or NULL with the reason in `message`.
unsigned char *clua_compile_stripped(const char *text, size_t text_length, const char *name,
                                     size_t *length, char *message, size_t message_size);
void clua_free_dump(unsigned char *bytes);
/// Loads a chunk that clua_dump_stripped made in this process (binary mode only).
int clua_load_host_binary(lua_State *L, const unsigned char *bytes, size_t length, const char *name);

/* sandbox.c: the library a rule script sees */
void clua_open_safe_libraries(lua_State *L);
/// Replaces the original function on top of the stack with its guarded version.
void clua_wrap_top(lua_State *L, const char *which);
/// Names the function on top of the stack for printing and key order ("math.floor").
void clua_name_top(lua_State *L, const char *name);
/// Pushes a sandbox function that has no original to wrap (or nil).
void clua_push_sandbox_function(lua_State *L, const char *which);
/// Pushes load over the real load (below the top) and the sandbox (on top).
void clua_push_sandboxed_load(lua_State *L);
/// rawset(t, k, v) -> t, as Lua's own: the sandbox's rawset is this after it marks a
/// watched table; a simulation's driver writes its own watched tables with this.
int clua_plain_rawset(lua_State *L);
/// math.random as the sandbox has it: draws from the game's generator (random.c).
int clua_math_random(lua_State *L);
/// Registers a metatable (at index `metatable`) as watched: the sandbox's rawset marks
/// tables that have it in `touched`, getmetatable answers `shows`, setmetatable refuses.
void clua_watch_metatable(lua_State *L, int metatable, int touched, int shows);
/// Whether clua_wrap_top has a guarded version of `which` ("tostring", "string.rep", ...).
int clua_has_wrapper(const char *which);
/// Names every C function in the table at `table` (library.name), so that ordering
/// and printing can use names where a light C function has no serial.
void clua_name_functions(lua_State *L, int table);

/* pattern.c: string.find, match, gmatch and gsub with Lua 5.4's semantics, on a matcher
   (pattern_match.c) that charges every step to the budget, so no pattern can stall */
/// Replaces the original string.<which> on top of the stack ("find", "match", "gmatch",
/// "gsub") with DiceHost's own; leaves any other function as it is.
void clua_push_pattern_function(lua_State *L, const char *which);

/* raw_metatable.c: a table's true metatable, read and set past __metatable (exact odds) */
/// Pushes raw_getmetatable(t) and raw_setmetatable(t, mt).
void clua_push_raw_metatable_functions(lua_State *L);

/* position_codec.c: exact odds' canonical key of a position, written in C */
/// Pushes new_position_encoder(fixed_list, fixed, fixed_count, stand_in_of, consts,
/// const_list, fixed_changed) -> build_key (see dicehost-odds.lua).
void clua_push_position_encoder_factory(lua_State *L);
/// Puts the position `key` (length bytes, not moved meanwhile) back into g and the players,
/// Lua arguments 2-4 (g, players, const_list); position_index.c's decode calls it.
int clua_decode_position(lua_State *L, const char *key, size_t length);

/* position_index.c: the positions an analysis numbers, kept outside Lua's heap */
/// Pushes new_position_index() -> {number, key, decode, count, bytes} (see the file).
void clua_push_position_index_factory(lua_State *L);

/* snapshot.c: copies of the tables reachable from a root, and their restoration */
/// Pushes snapshot(root [, copies, metatables, tables, metatabled]) -> copies,
/// metatables, tables, metatabled (an earlier snapshot's copies of tables still the same
/// are shared), restore(copies, metatables) -> boolean (whether all were as copied; only
/// the tables that differ are rewritten) and unchanged(copies, metatables) -> boolean.
void clua_push_snapshot_functions(lua_State *L);

/* simulation.c: what a fast simulation's Lua driver needs per game and per roll */
/// Pushes a table of begin_game, end_game, roll, reset and tally (see simulation.c).
void clua_push_simulation_functions(lua_State *L);
/// Switches the state's collector to generational mode (short-lived tables are cheap).
void clua_use_generational_gc(lua_State *L);

/* readonly.c: the rule table, the globals and the libraries, read-only once loaded */
/// Makes the table at `index` read-only for scripts and pushes its backing table (the
/// one that holds its fields from now on). `what` names it in errors ("the rule table").
void clua_freeze(lua_State *L, int index, const char *what);
/// Pushes the backing table if the value at `index` is a frozen table (returns 1), else 0.
int clua_push_backing(lua_State *L, int index);
/// Replaces a frozen table at `index` with its backing table (anything else stays).
void clua_see_through(lua_State *L, int index);
/// Pushes what getmetatable answers for a frozen table (returns 1), else pushes nothing.
int clua_push_original_metatable(lua_State *L, int index);
/// Raises the error for a write of `key` into the frozen table at `table`.
int clua_refuse_frozen_write(lua_State *L, int table, int key);
/// While a script loads, frozen tables take writes (its globals, its rule table).
void clua_set_loading(lua_State *L, int loading);

/// Marks the metatable at `meta` with the value on top (popped) under the frozen key: a
/// look's stand-ins are told apart by it (look.c).
void clua_set_frozen_marker(lua_State *L, int meta);

/* look.c: looks (view, table, choices, status) see g through read-only stand-ins */
/// Starts a look: tables reached through stand-ins made from now on are read-only.
void clua_begin_look(lua_State *L);
/// Names what is looking, for the error a write raises ("view hook", "a view"); NULLs: any look.
void clua_set_look_role(lua_State *L, const char *hook, const char *role);
/// Ends the look: its stand-ins are kept for the next one (one used outside a look writes through).
void clua_end_look(lua_State *L);
/// Whether a look is under way.
int clua_in_look(lua_State *L);
/// Pushes the stand-in of the table at `index`, named `name` in errors ("g"); anything else as it is.
void clua_push_look_root(lua_State *L, int index, const char *name);
/// Pushes the stand-in of the stand-in at `proxy`'s field `key` (what reading it gives a script).
void clua_push_look_field(lua_State *L, int proxy, int key);
/// Pushes the real table of a stand-in and returns 1; else pushes nothing and returns 0.
int clua_push_look_target(lua_State *L, int index);
/// Raises the error for a write of `key` into the stand-in at `proxy`.
int clua_refuse_look_write(lua_State *L, int proxy, int key);
/// Lua's raw `next` for the host's prelude: over a stand-in, its real table's fields as stand-ins.
int clua_raw_next(lua_State *L);
/// The marker a stand-in's metatable holds under the frozen key.
const void *clua_look_marker_value(void);

/* sealed_metatable.c: basic types' metatables, read-only even while a script loads */
/// Freezes the table at `index` (as clua_freeze, nothing pushed) for good: writes raise
/// at load time too.
void clua_seal(lua_State *L, int index, const char *what);
/// Whether a write into the frozen table at `index` goes to its backing now (a script
/// is loading and the table is not sealed).
int clua_takes_loading_writes(lua_State *L, int index);

/* requested_sizes.c: the work of calls that take a size from the script, as Lua does it */
/// The bytes string.pack pads with for its 'c' options (its arguments at 1...).
double clua_pack_padding(lua_State *L);
/// Raises Lua's memory error for a result of `bytes` past the memory cap.
void clua_refuse_past_memory_cap(lua_State *L, double bytes);
/// The units table.concat(t, sep, i, j) works for (t at 1): the elements up to the first
/// that stops it, floats written as text; 0 with no budget armed.
double clua_concat_units(lua_State *L, lua_Integer i, lua_Integer j);

/* random.c: the host's generator, xoshiro256** seeded through splitmix64 */
uint64_t clua_random_next(clua_context *c);
void clua_random_seed(clua_context *c, uint64_t seed);
uint64_t clua_random_below_or_equal(clua_context *c, uint64_t limit);

/* ---------------------------------------------------------------------------------
** Watched-call steps: on the hot path of simulations, so inline here.
** ------------------------------------------------------------------------------- */

// Why C: struct timespec arithmetic, on the hot path (the vDSO clock, tens of ns).
static inline uint64_t clua_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/// Instructions per nanosecond no machine beats (4e9/s): a step that took less time
/// than its remaining budget / this cannot have run past the budget.
#define CLUA_FASTEST_INSTRUCTIONS_PER_NS 4
/// Instructions the move-by-move reference may spend that a watched step does not
/// (the host's own Lua wrappers differ a little between the two ways of playing).
#define CLUA_STEP_SLACK 2000

/// Ends the current step of a watched call and begins the next: a step that took long
/// enough to have used up its budget is noted (it may have run past the budget).
static inline void clua_step(clua_context *c) {
    __atomic_fetch_add(&c->progress, 1, __ATOMIC_RELAXED);
    if (!__atomic_load_n(&c->watched, __ATOMIC_RELAXED)) return;
    uint64_t now = clua_now_ns();
    int64_t spent = (int64_t)((now - c->step_started_ns) * CLUA_FASTEST_INSTRUCTIONS_PER_NS);
    if (spent < 0 || spent + CLUA_STEP_SLACK > c->budget_remaining) c->slow_step = 1;
    c->step_started_ns = now;
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

#endif
