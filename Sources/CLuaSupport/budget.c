// Why this file: the budget of one input (every hook, timer and rendering it causes)
// is counted by Lua's count hook, which must be C because it raises (longjmp), and
// by charges for work done inside C functions, where no hook fires. Once tripped, a
// budget stays tripped - the hook fires on every instruction and raises again, in
// message handlers and __close handlers too - until the host disarms it.
#include "CLuaSupport.h"
#include <string.h>

void clua_note_location(clua_context *c, lua_State *L);

static void clua_hook(lua_State *L, lua_Debug *ar);

/* Every lua_sethook of the budget goes through here: with coverage on, the same hook
   also gets line events (the count, and so the budget, is unchanged by them); with
   coverage off the mask is exactly the count's. A "no hook" is then a line-only hook. */
static void clua_set_hook(clua_context *c, lua_State *L, int count_mask, int every) {
    int mask = count_mask | (c->coverage != NULL ? LUA_MASKLINE : 0);
    if (mask == 0) lua_sethook(L, NULL, 0, 0);
    else lua_sethook(L, clua_hook, mask, every);
}

/// Marks the budget used up and makes every thread's next instruction raise.
/// Signal-safe apart from the location, which is only looked up when L is given.
void clua_trip(clua_context *c, lua_State *L) {
    if (c->budget_tripped) return;
    c->budget_tripped = 1;
    if (L != NULL) clua_note_location(c, L);
    clua_set_hook(c, c->main_thread, LUA_MASKCOUNT, 1);
    if (L != NULL && L != c->main_thread) clua_set_hook(c, L, LUA_MASKCOUNT, 1);
}

int clua_raise_budget(lua_State *L) {
    clua_context *c = clua_ctx(L);
    clua_set_hook(c, L, LUA_MASKCOUNT, 1);
    /* The message is never refused memory: an error raised from the hook must be the
       budget's, so that the coroutine it kills is known to be stopped (coroutine.c). */
    int saved = c->enforce_memory;
    c->enforce_memory = 0;
    luaL_where(L, 1);
    if (c->interrupted || (!c->budget_tripped && c->interrupt_requested)) {
        c->interrupted = 1;
        lua_pushliteral(L, "interrupted");
    } else {
        lua_pushfstring(L, "instruction budget exceeded (%I instructions)", (lua_Integer)c->budget_total);
    }
    lua_concat(L, 2);
    c->enforce_memory = saved;
    return lua_error(L);
}

int clua_budget_spent(clua_context *c) {
    return c->budget_tripped || c->interrupted || c->interrupt_requested;
}

// Why C: a hook that raises must longjmp, which is only safe from C.
static void clua_hook(lua_State *L, lua_Debug *ar) {
    clua_context *c = clua_ctx(L);
    /* A line event only counts the line: the count events alone charge and raise (Lua
       runs the count hook before the line hook of the same instruction). */
    if (ar->event == LUA_HOOKLINE) {
        clua_coverage_record(c, L, ar);
        return;
    }
    if (c->interrupt_requested && !c->budget_tripped) {
        if (!c->interrupted) clua_note_location(c, L);
        c->interrupted = 1;
        clua_raise_budget(L);
        return;
    }
    if (!c->budget_armed) return;
    if (!c->budget_tripped) {
        if (c->budget_hooked) c->budget_remaining -= CLUA_HOOK_STEP;
        if (c->budget_remaining > 0) return;
        c->budget_tripped = 1;
        if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0 && ar->source[0] == '@'
            && strncmp(ar->source, "@dicehost-", 10) != 0) {
            c->last_line = ar->currentline;
            strncpy(c->last_source, ar->source + 1, sizeof(c->last_source) - 1);
            c->last_source[sizeof(c->last_source) - 1] = '\0';
        } else {
            clua_note_location(c, L);
        }
    }
    clua_raise_budget(L);
}

void clua_arm_budget(lua_State *L, int64_t budget, int hooked) {
    clua_context *c = clua_ctx(L);
    c->budget_total = budget;
    c->budget_remaining = budget;
    c->budget_tripped = 0;
    c->budget_armed = 1;
    c->budget_hooked = hooked;
    c->interrupted = 0;
    c->last_line = 0;
    /* Counted in whole steps: the hook charges CLUA_HOOK_STEP each time it fires. */
    if (hooked) clua_set_hook(c, L, LUA_MASKCOUNT, CLUA_HOOK_STEP);
    else clua_set_hook(c, L, 0, 0);
}

void clua_disarm_budget(lua_State *L) {
    clua_context *c = clua_ctx(L);
    c->budget_armed = 0;
    c->budget_hooked = 0;
    c->interrupt_requested = 0;
    clua_set_hook(c, L, 0, 0);
}

int clua_charge(lua_State *L, int64_t units) {
    clua_context *c = clua_ctx(L);
    if (!c->budget_armed) return c->interrupt_requested;
    if (c->budget_tripped) return 1;
    if (units > 0) {
        c->budget_remaining -= units;
        if (c->budget_remaining <= 0) clua_trip(c, L);
    }
    return c->budget_tripped || c->interrupt_requested;
}

void clua_charge_or_raise(lua_State *L, int64_t units) {
    if (clua_charge(L, units)) clua_raise_budget(L);
}

clua_budget_state clua_suspend_budget(lua_State *L) {
    clua_context *c = clua_ctx(L);
    clua_budget_state saved = { c->budget_total, c->budget_remaining, c->budget_armed,
                                c->budget_hooked, c->budget_tripped, c->interrupted };
    c->budget_armed = 0;
    c->budget_tripped = 0;
    c->interrupted = 0;
    clua_set_hook(c, L, 0, 0);
    return saved;
}

void clua_resume_budget(lua_State *L, clua_budget_state saved) {
    clua_context *c = clua_ctx(L);
    c->budget_total = saved.total;
    c->budget_remaining = saved.remaining;
    c->budget_armed = saved.armed;
    c->budget_hooked = saved.hooked;
    c->budget_tripped = saved.tripped;
    c->interrupted = saved.interrupted;
    if (saved.tripped || saved.interrupted) clua_set_hook(c, L, LUA_MASKCOUNT, 1);
    else if (saved.armed && saved.hooked) clua_set_hook(c, L, LUA_MASKCOUNT, CLUA_HOOK_STEP);
    else clua_set_hook(c, L, 0, 0);
}

void clua_begin_step(lua_State *L) {
    clua_context *c = clua_ctx(L);
    clua_step(c);
    if (c->budget_armed && !c->budget_tripped) c->budget_remaining = c->budget_total;
}

/* Used by the watchdog's signal handler and by coroutine creation. */
void clua_install_hook(lua_State *L, int every) {
    clua_set_hook(clua_ctx(L), L, LUA_MASKCOUNT, every);
}

void clua_refresh_hook(lua_State *L) {
    clua_context *c = clua_ctx(L);
    if (c->budget_tripped || c->interrupted) clua_set_hook(c, L, LUA_MASKCOUNT, 1);
    else if (c->budget_armed && c->budget_hooked) clua_set_hook(c, L, LUA_MASKCOUNT, CLUA_HOOK_STEP);
    else clua_set_hook(c, L, 0, 0);
}
