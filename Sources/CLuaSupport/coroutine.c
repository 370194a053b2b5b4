// Why this file: the budget stops a script by raising from the count hook, and Lua
// leaves a coroutine that dies of an error raised inside a hook with its hooks turned
// off for good (the interpreter restores them only where a pcall catches the error).
// Closing such a coroutine - coroutine.close, or coroutine.wrap's own close after an
// error - would run its pending `<close>` handlers where no instruction is counted and
// no interrupt arrives: a loop there would hang the host. So the sandbox resumes and
// closes coroutines here: a coroutine that died while the budget was spent is marked
// stopped, and is never run again (its handlers are not run; closing it answers as
// Lua does for a dead coroutine with an error, false and the error).
#include "CLuaSupport.h"
#include <string.h>

void clua_install_hook(lua_State *L, int every);

/* Registry key of the weak-keyed set of coroutines the budget stopped. */
static const char clua_stopped_key = 's';

static int clua_is_stopped(lua_State *L, lua_State *co) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_stopped_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        return 0;
    }
    lua_pushthread(co);
    lua_xmove(co, L, 1);
    int stopped = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return stopped;
}

/// Marks `co` as stopped by the budget. Never refused memory (the budget is spent: the
/// error under way is what the host will report).
static void clua_mark_stopped(lua_State *L, lua_State *co) {
    clua_context *c = clua_ctx(L);
    int saved = c->enforce_memory;
    c->enforce_memory = 0;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_stopped_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &clua_stopped_key);
    }
    lua_pushthread(co);
    lua_xmove(co, L, 1);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    c->enforce_memory = saved;
}

/// After a resume of `co` ended in an error: if the budget is spent, the error came
/// from the count hook (or the hook now raises everywhere), so `co` is stopped.
static void clua_note_resume_error(lua_State *L, lua_State *co) {
    int status = lua_status(co);
    if (status != LUA_OK && status != LUA_YIELD && clua_budget_spent(clua_ctx(L)))
        clua_mark_stopped(L, co);
}

static lua_State *clua_check_coroutine(lua_State *L, int index) {
    lua_State *co = lua_tothread(L, index);
    luaL_argexpected(L, co, index, "coroutine");
    return co;
}

/* As lcorolib's auxresume: resumes `co` with `narg` values from L's top (lua_resume
   refuses a coroutine that is not suspended); returns the number of results moved to
   L, or -1 with the error on L's top. */
static int clua_auxresume(lua_State *L, lua_State *co, int narg) {
    int nres;
    if (!lua_checkstack(co, narg)) {
        lua_pushliteral(L, "too many arguments to resume");
        return -1;
    }
    lua_xmove(L, co, narg);
    int status = lua_resume(co, L, narg, &nres);
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
            lua_pushliteral(L, "too many results to resume");
            return -1;
        }
        lua_xmove(co, L, nres);
        return nres;
    }
    lua_xmove(co, L, 1);
    clua_note_resume_error(L, co);
    return -1;
}

static int clua_coroutine_resume(lua_State *L) {
    lua_State *co = clua_check_coroutine(L, 1);
    int r = clua_auxresume(L, co, lua_gettop(L) - 1);
    if (r < 0) {
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushboolean(L, 1);
    lua_insert(L, -(r + 1));
    return r + 1;
}

/// Closes `co` (dead or suspended); an error status leaves the error on L's top. A
/// coroutine the budget stopped is not run: its error is answered as it is.
static int clua_close_thread(lua_State *L, lua_State *co) {
    if (clua_is_stopped(L, co)) {
        luaL_checkstack(co, 1, "close");
        lua_pushvalue(co, -1);
        lua_xmove(co, L, 1);
        return lua_status(co) == LUA_OK || lua_status(co) == LUA_YIELD ? LUA_ERRRUN : lua_status(co);
    }
    if (clua_budget_spent(clua_ctx(L))) clua_raise_budget(L);
    int status = lua_resetthread(co);
    if (status != LUA_OK) lua_xmove(co, L, 1);
    return status;
}

enum { CLUA_CO_RUNNING, CLUA_CO_DEAD, CLUA_CO_SUSPENDED, CLUA_CO_NORMAL };

/* As lcorolib's auxstatus. */
static int clua_coroutine_status_of(lua_State *L, lua_State *co) {
    if (L == co) return CLUA_CO_RUNNING;
    lua_Debug ar;
    switch (lua_status(co)) {
    case LUA_YIELD: return CLUA_CO_SUSPENDED;
    case LUA_OK:
        if (lua_getstack(co, 0, &ar)) return CLUA_CO_NORMAL;
        return lua_gettop(co) == 0 ? CLUA_CO_DEAD : CLUA_CO_SUSPENDED;
    default: return CLUA_CO_DEAD;
    }
}

// As lcorolib's luaB_close, through clua_close_thread.
static int clua_coroutine_close(lua_State *L) {
    static const char *const names[] = {"running", "dead", "suspended", "normal"};
    lua_State *co = clua_check_coroutine(L, 1);
    int which = clua_coroutine_status_of(L, co);
    if (which != CLUA_CO_DEAD && which != CLUA_CO_SUSPENDED)
        return luaL_error(L, "cannot close a %s coroutine", names[which]);
    if (clua_close_thread(L, co) == LUA_OK) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
}

// As lcorolib's auxwrap, through clua_auxresume and clua_close_thread.
static int clua_wrapped(lua_State *L) {
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int r = clua_auxresume(L, co, lua_gettop(L));
    if (r >= 0) return r;
    int status = lua_status(co);
    if (status != LUA_OK && status != LUA_YIELD) {  /* an error in the coroutine: close it */
        status = clua_close_thread(L, co);
    }
    if (status != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

/// A coroutine made while no budget was armed has no hook; it gets one here (the hook
/// returns at once while no budget is armed, and fires at once if it is spent).
static void clua_hook_coroutine(lua_State *L, lua_State *co) {
    clua_install_hook(co, clua_budget_spent(clua_ctx(L)) ? 1 : CLUA_HOOK_STEP);
}

static int clua_coroutine_create(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    clua_hook_coroutine(L, co);
    return 1;
}

static int clua_coroutine_wrap(lua_State *L) {
    clua_coroutine_create(L);
    lua_pushcclosure(L, clua_wrapped, 1);
    return 1;
}

/// Pushes the sandbox's coroutine.<which> ("create", "wrap", "resume", "close"), or nil.
void clua_push_coroutine_function(lua_State *L, const char *which) {
    if (strcmp(which, "create") == 0) lua_pushcfunction(L, clua_coroutine_create);
    else if (strcmp(which, "wrap") == 0) lua_pushcfunction(L, clua_coroutine_wrap);
    else if (strcmp(which, "resume") == 0) lua_pushcfunction(L, clua_coroutine_resume);
    else if (strcmp(which, "close") == 0) lua_pushcfunction(L, clua_coroutine_close);
    else lua_pushnil(L);
}
