// Why this file: raising a Lua error longjmps, which must never cross a Swift frame.
// Every call from Swift is a lua_pcall with a C message handler (a function pointer),
// and Swift host functions return a code that this trampoline turns into the error
// once the Swift frame is gone.
#include "CLuaSupport.h"
#include <string.h>

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

int clua_pcall(lua_State *L, int nargs, int nresults) {
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
    if (r == CLUA_RAISE_BUDGET) return clua_raise_budget(L);
    if (r == CLUA_RAISE_WHERE) {
        clua_where_script(L);
        lua_insert(L, -2);
        lua_concat(L, 2);
        return lua_error(L);
    }
    /* As luaL_argerror, but located at the script's line, not a host wrapper's. */
    int arg = CLUA_RAISE_ARG - r;
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

void clua_push_host_function(lua_State *L, void *function) {
    lua_pushlightuserdata(L, function);
    lua_pushcclosure(L, clua_trampoline, 1);
}

// Why C: lua_load is protected, so the cap can apply to parsing too; the text is
// charged to the budget like any other C work on bytes.
// As lua.c loads a file: a UTF-8 byte-order mark, then a first line starting with '#'
// ("#!/usr/bin/env dicehost"), are skipped - the line's end stays, so lines keep their
// numbers.
int clua_load_text(lua_State *L, const char *buf, size_t len, const char *name) {
    clua_context *c = clua_ctx(L);
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) { buf += 3; len -= 3; }
    if (len > 0 && buf[0] == '#') {
        const char *end = memchr(buf, '\n', len);
        size_t skipped = end ? (size_t)(end - buf) : len;
        buf += skipped;
        len -= skipped;
    }
    int saved = c->enforce_memory;
    c->enforce_memory = 1;
    int status = luaL_loadbufferx(L, buf, len, name, "t");
    c->enforce_memory = saved;
    return status;
}
