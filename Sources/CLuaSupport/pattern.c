// Why this file: string.find, match, gmatch and gsub run inside C, where the count
// hook never fires. A pattern whose worst case would stall the host is refused before
// it starts, and the work a call may do is charged to the budget up front.
#include "CLuaSupport.h"
#include <string.h>

/// Work (roughly, matcher steps) a string pattern call may need in the worst case.
#define CLUA_PATTERN_WORK 1.0e8

/// Worst-case matcher work for a pattern over a subject of n bytes: each start
/// position times (n+1) per backtracking item that is not the pattern's last, times
/// the pattern's length (literal runs compare byte by byte at every start).
static double clua_pattern_work(size_t n, const char *p, size_t pl, int plain) {
    if (plain) return (double)n * (double)(pl ? pl : 1);
    size_t i = 0;
    int anchored = 0, quantifiers = 0, trailing = 0;
    double per_attempt = 1;
    if (pl > 0 && p[0] == '^') { anchored = 1; i = 1; }
    while (i < pl) {
        trailing = 0;
        char ch = p[i];
        per_attempt += 1;
        if (ch == '(' || ch == ')') { i++; continue; }
        if (ch == '$' && i + 1 == pl) { i++; continue; }
        if (ch == '%') {
            if (i + 1 < pl && p[i + 1] == 'b') { i += 4; per_attempt += (double)n; continue; }
            if (i + 1 < pl && p[i + 1] >= '0' && p[i + 1] <= '9') { i += 2; per_attempt += (double)n; continue; }
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
        if (i < pl && (p[i] == '*' || p[i] == '+' || p[i] == '-' || p[i] == '?')) {
            quantifiers++;
            trailing = 1;
            i++;
        }
    }
    if (trailing) quantifiers--;
    double work = (anchored ? 1.0 : (double)(n + 1)) * per_attempt;
    for (int q = 0; q < quantifiers && work <= CLUA_PATTERN_WORK; q++) work *= (double)(n + 1);
    return work;
}

static int clua_guarded_pattern(lua_State *L) {
    size_t n = 0, pl = 0;
    const char *s = lua_tolstring(L, 1, &n);
    const char *p = lua_tolstring(L, 2, &pl);
    if (s != NULL && p != NULL && lua_type(L, 2) == LUA_TSTRING) {
        int plain = lua_toboolean(L, lua_upvalueindex(2)) && lua_toboolean(L, 4);
        double work = clua_pattern_work(n, p, pl, plain);
        if (work > CLUA_PATTERN_WORK)
            return luaL_error(L, "pattern too complex for a subject of %I bytes "
                              "(its worst case needs about %f steps; the limit is %f)",
                              (lua_Integer)n, work, CLUA_PATTERN_WORK);
        clua_charge_or_raise(L, 1 + (int64_t)(work / CLUA_BYTES_PER_UNIT));
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/// Replaces the original string.<which> on top of the stack with its guarded version.
void clua_push_pattern_function(lua_State *L, const char *which) {
    lua_pushboolean(L, strcmp(which, "find") == 0);
    lua_pushcclosure(L, clua_guarded_pattern, 2);
}
