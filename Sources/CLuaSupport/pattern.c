// Why this file: string.find, match, gmatch and gsub in the sandbox are DiceHost's own,
// built on the counting matcher of pattern_match.c, because Lua's run in C where the
// count hook never fires and a pathological pattern would stall the host for good.
// They behave as Lua 5.4.4's (arguments, results, errors); only the work is charged
// to the budget, step by step, so every pattern is interruptible and none is refused
// up front. Argument checks raise, which only C may do.
#include "pattern_match.h"
#include <string.h>

/// The 0-based offset a 1-based, possibly negative `init` argument names, as Lua
/// reads it (past the end is possible: the callers check).
static size_t clua_start_offset(lua_State *L, int arg, size_t length) {
    lua_Integer position = luaL_optinteger(L, arg, 1);
    if (position > 0) return (size_t)position - 1;
    if (position == 0 || position < -(lua_Integer)length) return 0;
    return length - (size_t)(-position);
}

/// Whether a pattern has none of the bytes that make it more than a literal.
static int clua_is_literal(const char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != '\0' && strchr("^$*+?.([%-", p[i]) != NULL) return 0;
    return 1;
}

/// Where capture k of a match of subject[s ..< e] is: its text, or (returns 1) a
/// position. With no captures, capture 0 is the whole match.
static int clua_capture(clua_match *m, int k, size_t s, size_t e, size_t *start, size_t *length) {
    if (k >= m->level) {
        if (k != 0) luaL_error(m->L, "invalid capture index %%%d", k + 1);
        *start = s;
        *length = e - s;
        return 0;
    }
    ptrdiff_t captured = m->capture[k].length;
    if (captured == CLUA_CAPTURE_OPEN) luaL_error(m->L, "unfinished capture");
    *start = m->capture[k].start;
    if (captured == CLUA_CAPTURE_POSITION) return 1;
    *length = (size_t)captured;
    return 0;
}

static void clua_push_capture(clua_match *m, int k, size_t s, size_t e) {
    size_t start, length;
    if (clua_capture(m, k, s, e, &start, &length)) lua_pushinteger(m->L, (lua_Integer)start + 1);
    else lua_pushlstring(m->L, (const char *)m->subject + start, length);
}

/// Pushes every capture (or the whole match, if `whole` and there are none).
static int clua_push_captures(clua_match *m, size_t s, size_t e, int whole) {
    int count = (m->level == 0 && whole) ? 1 : m->level;
    luaL_checkstack(m->L, count, "too many captures");
    for (int k = 0; k < count; k++) clua_push_capture(m, k, s, e);
    return count;
}

/* ---------------------------------------------------------------------------------
** find and match
** ------------------------------------------------------------------------------- */

static int clua_find_or_match(lua_State *L, int find) {
    size_t length, pattern_length;
    const char *s = luaL_checklstring(L, 1, &length);
    const char *p = luaL_checklstring(L, 2, &pattern_length);
    size_t init = clua_start_offset(L, 3, length);
    if (init > length) {
        luaL_pushfail(L);
        return 1;
    }
    clua_match m;
    if (find && (lua_toboolean(L, 4) || clua_is_literal(p, pattern_length))) {
        clua_match_init(&m, L, s, length, p, pattern_length);
        size_t at = clua_match_plain(&m, init, p, pattern_length);
        clua_match_settle(&m);
        if (at != CLUA_NO_MATCH) {
            lua_pushinteger(L, (lua_Integer)at + 1);
            lua_pushinteger(L, (lua_Integer)(at + pattern_length));
            return 2;
        }
    } else {
        /* A leading '^' anchors the match at init (gmatch has no anchor). */
        int anchored = pattern_length > 0 && p[0] == '^';
        clua_match_init(&m, L, s, length, p + anchored, pattern_length - (size_t)anchored);
        for (size_t at = init;; at++) {
            size_t end = clua_match_at(&m, at);
            if (end != CLUA_NO_MATCH) {
                clua_match_settle(&m);
                if (!find) return clua_push_captures(&m, at, end, 1);
                lua_pushinteger(L, (lua_Integer)at + 1);
                lua_pushinteger(L, (lua_Integer)end);
                return 2 + clua_push_captures(&m, at, end, 0);
            }
            if (anchored || at >= length) break;
        }
        clua_match_settle(&m);
    }
    luaL_pushfail(L);
    return 1;
}

static int clua_find(lua_State *L) { return clua_find_or_match(L, 1); }
static int clua_match_function(lua_State *L) { return clua_find_or_match(L, 0); }

/* ---------------------------------------------------------------------------------
** gmatch: the iterator keeps the subject and pattern as upvalues (so they stay
** alive) and where to go on in a userdatum.
** ------------------------------------------------------------------------------- */

typedef struct clua_gmatch_state {
    size_t next;       /* where the next match attempt starts */
    size_t last_end;   /* where the last match ended: an empty match there is skipped */
    int matched;       /* whether last_end is set */
} clua_gmatch_state;

static int clua_gmatch_next(lua_State *L) {
    size_t length, pattern_length;
    const char *s = lua_tolstring(L, lua_upvalueindex(1), &length);
    const char *p = lua_tolstring(L, lua_upvalueindex(2), &pattern_length);
    clua_gmatch_state *g = (clua_gmatch_state *)lua_touserdata(L, lua_upvalueindex(3));
    clua_match m;
    clua_match_init(&m, L, s, length, p, pattern_length);
    for (size_t at = g->next; at <= length; at++) {
        size_t end = clua_match_at(&m, at);
        if (end != CLUA_NO_MATCH && !(g->matched && end == g->last_end)) {
            g->next = g->last_end = end;
            g->matched = 1;
            clua_match_settle(&m);
            return clua_push_captures(&m, at, end, 1);
        }
    }
    clua_match_settle(&m);
    return 0;
}

static int clua_gmatch(lua_State *L) {
    size_t length;
    luaL_checklstring(L, 1, &length);
    luaL_checklstring(L, 2, NULL);
    size_t init = clua_start_offset(L, 3, length);
    lua_settop(L, 2);
    clua_gmatch_state *g = (clua_gmatch_state *)lua_newuserdatauv(L, sizeof(clua_gmatch_state), 0);
    g->next = init > length ? length + 1 : init;
    g->last_end = 0;
    g->matched = 0;
    lua_pushcclosure(L, clua_gmatch_next, 3);
    return 1;
}

/* ---------------------------------------------------------------------------------
** gsub
** ------------------------------------------------------------------------------- */

/// Appends a replacement string for the match subject[s ..< e]: "%0" is the match,
/// "%1".."%9" captures (positions as numbers), "%%" a '%'.
static void clua_add_replacement(clua_match *m, luaL_Buffer *b, const char *r, size_t n, size_t s, size_t e) {
    size_t k = 0;
    while (k < n) {
        const char *escape = memchr(r + k, '%', n - k);
        if (escape == NULL) {
            luaL_addlstring(b, r + k, n - k);
            return;
        }
        size_t at = (size_t)(escape - r);
        luaL_addlstring(b, r + k, at - k);
        unsigned char next = at + 1 < n ? (unsigned char)r[at + 1] : 0;
        if (next == '%') {
            luaL_addchar(b, '%');
        } else if (next >= '0' && next <= '9') {
            size_t start = s, length = e - s;
            if (next != '0' && clua_capture(m, next - '1', s, e, &start, &length)) {
                lua_pushinteger(m->L, (lua_Integer)start + 1);
                luaL_addvalue(b);
            } else {
                /* Copying is work the allocator does not see when the buffer has room. */
                clua_match_count(m, (int64_t)(length / CLUA_BYTES_PER_UNIT));
                luaL_addlstring(b, (const char *)m->subject + start, length);
            }
        } else {
            luaL_error(m->L, "invalid use of '%%' in replacement string");
        }
        k = at + 2;
    }
}

/// Appends what replaces the match subject[s ..< e]; returns whether it changed it.
static int clua_add_value(clua_match *m, luaL_Buffer *b, size_t s, size_t e, int type,
                          const char *r, size_t r_length) {
    lua_State *L = m->L;
    if (type == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int count = clua_push_captures(m, s, e, 1);
        lua_call(L, count, 1);
    } else if (type == LUA_TTABLE) {
        clua_push_capture(m, 0, s, e);
        lua_gettable(L, 3);
    } else {
        clua_add_replacement(m, b, r, r_length, s, e);
        return 1;
    }
    if (!lua_toboolean(L, -1)) {
        /* nil or false: the match stays as it is */
        lua_pop(L, 1);
        luaL_addlstring(b, (const char *)m->subject + s, e - s);
        return 0;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(b);
    return 1;
}

static int clua_gsub(lua_State *L) {
    size_t length, pattern_length, r_length = 0;
    const char *s = luaL_checklstring(L, 1, &length);
    const char *p = luaL_checklstring(L, 2, &pattern_length);
    int type = lua_type(L, 3);
    lua_Integer most = luaL_optinteger(L, 4, (lua_Integer)length + 1);
    luaL_argexpected(L, type == LUA_TNUMBER || type == LUA_TSTRING || type == LUA_TFUNCTION || type == LUA_TTABLE,
                     3, "string/function/table");
    const char *r = (type == LUA_TNUMBER || type == LUA_TSTRING) ? lua_tolstring(L, 3, &r_length) : NULL;
    int anchored = pattern_length > 0 && p[0] == '^';
    clua_match m;
    clua_match_init(&m, L, s, length, p + anchored, pattern_length - (size_t)anchored);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t at = 0, last_end = 0;
    int matched = 0, changed = 0;
    lua_Integer count = 0;
    while (count < most) {
        size_t end = clua_match_at(&m, at);
        if (end != CLUA_NO_MATCH && !(matched && end == last_end)) {
            count++;
            /* Each replacement is work of its own (the string is scanned for '%'). */
            clua_match_count(&m, 1 + (int64_t)(r_length / CLUA_BYTES_PER_UNIT));
            changed |= clua_add_value(&m, &b, at, end, type, r, r_length);
            at = last_end = end;
            matched = 1;
        } else if (at < length) {
            luaL_addchar(&b, s[at++]);
        } else {
            break;
        }
        if (anchored) break;
    }
    clua_match_settle(&m);
    if (!changed) {
        lua_pushvalue(L, 1);
    } else {
        luaL_addlstring(&b, s + at, length - at);
        luaL_pushresult(&b);
    }
    lua_pushinteger(L, count);
    return 2;
}

/* ---------------------------------------------------------------------------------
** Installing
** ------------------------------------------------------------------------------- */

void clua_push_pattern_function(lua_State *L, const char *which) {
    lua_CFunction f = NULL;
    if (strcmp(which, "find") == 0) f = clua_find;
    else if (strcmp(which, "match") == 0) f = clua_match_function;
    else if (strcmp(which, "gmatch") == 0) f = clua_gmatch;
    else if (strcmp(which, "gsub") == 0) f = clua_gsub;
    if (f == NULL) return; /* not a pattern function: the original stays */
    lua_pop(L, 1);
    lua_pushcfunction(L, f);
}
