// Why this file: some library calls do work by a size the script writes into its
// arguments (string.pack's "c2000000000", table.concat's i and j). That work is
// charged before the call, so the charge must be the work Lua would really do: a call
// Lua refuses, or one that stops at its first bad element, costs what it does, not
// what it asked for; and a result past the memory cap is Lua's own catchable memory
// error at once, not a budget spent padding towards the cap.
#include "CLuaSupport.h"

/// Lua's own reading of a size in a pack format (lstrlib.c, getnum): digits while the
/// number stays below INT_MAX / 10; the digits after that are options of their own.
static double clua_pack_number(const char *format, size_t length, size_t *i) {
    double n = 0;
    if (*i >= length || format[*i] < '0' || format[*i] > '9') return -1;
    do {
        n = n * 10 + (format[(*i)++] - '0');
    } while (*i < length && format[*i] >= '0' && format[*i] <= '9' && n <= (2147483647.0 - 9) / 10);
    return n;
}

double clua_pack_padding(lua_State *L) {
    size_t length = 0;
    if (lua_type(L, 1) != LUA_TSTRING) return 0;
    const char *format = lua_tolstring(L, 1, &length);
    double padding = 0;
    int arg = 2;
    for (size_t i = 0; i < length;) {
        char option = format[i++];
        switch (option) {
        case 'c': {
            double size = clua_pack_number(format, length, &i);
            /* Lua checks the argument first: a missing one or one longer than the size
               raises before any byte is written. */
            size_t given = 0;
            if (size < 0 || lua_type(L, arg) != LUA_TSTRING) return padding;
            lua_tolstring(L, arg, &given);
            if ((double)given > size) return padding;
            padding += size;
            arg++;
            break;
        }
        case 'i': case 'I': case 's':
            clua_pack_number(format, length, &i);
            arg++;
            break;
        case 'b': case 'B': case 'h': case 'H': case 'l': case 'L': case 'j': case 'J':
        case 'T': case 'f': case 'n': case 'd': case 'z':
            arg++;
            break;
        case '!':
            clua_pack_number(format, length, &i);
            break;
        case 'X':
            /* Aligns to the next option, which takes no argument here. */
            if (i < length) {
                char next = format[i++];
                if (next == 'c') return padding;  /* Lua refuses it */
                if (next == 'i' || next == 'I' || next == 's' || next == '!') clua_pack_number(format, length, &i);
            }
            break;
        default:
            break;
        }
    }
    return padding;
}

void clua_refuse_past_memory_cap(lua_State *L, double bytes) {
    /* Asking the allocator for the whole result raises Lua's own "not enough memory",
       as string.rep's single allocation does. */
    size_t size = bytes >= 1.0e18 ? (size_t)1.0e18 : (size_t)bytes;
    lua_newuserdatauv(L, size, 0);
    lua_pop(L, 1);
}

double clua_concat_units(lua_State *L, lua_Integer i, lua_Integer j) {
    clua_context *c = clua_ctx(L);
    if (!c->budget_armed || j < i) return 0;
    /* Lua stops at the first element that is neither a string nor a number: walk to it,
       no further than a charge the budget could still pay. */
    double units = 0, limit = (double)c->budget_remaining + 1;
    for (lua_Integer k = i;; k++) {
        int type = lua_rawgeti(L, 1, k);
        units += 1;
        if (type == LUA_TNUMBER && !lua_isinteger(L, -1)) units += CLUA_FLOAT_TEXT_UNITS;
        lua_pop(L, 1);
        if ((type != LUA_TSTRING && type != LUA_TNUMBER) || k == j || units > limit) break;
    }
    return units;
}
