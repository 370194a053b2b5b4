// Why this file: exact odds (`dicehost odds`, `dicehost solve`) turn every position
// they meet into a canonical key string, a breadth-first walk of the tables reachable
// from g and the players with every table's keys sorted. Written in Lua that walk was
// over half of exploration time (a table, a sort and a closure call per table, a string
// per token); here it is one C call per position that writes the key straight into one
// buffer. The format, the order of the walk and every error are exactly those of the
// Lua encoder it replaces (dicehost-odds.lua keeps the description of the format and
// the parts that are not per position). Raw access only, so no metamethod runs, except
// `==` between a runtime metatable's field and its recorded value (as Lua's `~=` there).
// Everything it allocates is Lua's (userdata and tables), so the memory cap applies,
// and a memory error is an ordinary Lua error of this C function.
#include "CLuaSupport.h"
#include <math.h>
#include <string.h>

/// The runtime's own metatables at most (g's, Roll, Timer, Card, the stand-in's): a few.
#define CODEC_MAX_FIXED 32

/* ---------------------------------------------------------------------------------
** Upvalues of an encoder
** ------------------------------------------------------------------------------- */

enum {
    UV_STATE = 1,        /* the codec_state userdata */
    UV_FIXED,            /* fixed[mt] = the copy of mt's fields made when configured */
    UV_STAND_INS,        /* stand_in_of[seat]: the last roll's stand-ins */
    UV_CONSTS,           /* consts[o] = constant number */
    UV_CONST_LIST,       /* const_list[number] = o */
    UV_FIXED_CHANGED,    /* fixed_changed(k): raises the error naming field k */
    UV_ORDER,            /* order[id] = the table numbered id in this position */
    UV_VALUES,           /* values[slot] = an object value of the table being walked */
    UV_TEXT,             /* the key being written (userdata bytes) */
    UV_ENTRIES,          /* the current table's key, value pairs (userdata) */
    UV_IDS,              /* table -> id, open addressing (userdata) */
    UV_COUNT = UV_IDS
};

typedef struct codec_state {
    int fixed_count;
    const void *fixed[CODEC_MAX_FIXED];
    lua_Integer fixed_const[CODEC_MAX_FIXED];  /* const_id(mt), given when configured */
    lua_Integer fixed_fields[CODEC_MAX_FIXED]; /* how many fields mt had then */
    /* the text buffer */
    char *text;
    size_t text_length, text_capacity;
    /* the entries buffer */
    struct codec_entry *entries;
    size_t entry_capacity;
    /* the ids map: a generation stamps live slots, so starting a position clears it */
    struct codec_slot *slots;
    size_t slot_capacity;         /* a power of two */
    size_t slot_used;
    uint32_t generation;
    /* the largest id of `order` last used: the rest is cleared after a position */
    lua_Integer order_used;
} codec_state;

/// A key or a scalar value: number (integer or float), string or boolean; any other
/// value is an object kept in `values` at `slot`.
typedef struct codec_scalar {
    int type;
    int is_integer;
    lua_Integer i;           /* integer, or boolean (0, 1) */
    lua_Number f;
    const char *s;           /* a string held by the table being walked */
    size_t length;
    lua_Integer slot;
} codec_scalar;

typedef struct codec_entry {
    codec_scalar key, value;
} codec_entry;

typedef struct codec_slot {
    const void *table;
    lua_Integer id;          /* 0: met as hidden only, no id yet */
    uint32_t generation;
    int hidden;
} codec_slot;

/* ---------------------------------------------------------------------------------
** Buffers in userdata (grown by replacing the upvalue: Lua's allocator, Lua's cap)
** ------------------------------------------------------------------------------- */

static void *codec_grow(lua_State *L, int upvalue, const void *old, size_t old_bytes, size_t new_bytes) {
    void *block = lua_newuserdatauv(L, new_bytes, 0);
    if (old_bytes > 0) memcpy(block, old, old_bytes);
    lua_replace(L, lua_upvalueindex(upvalue));
    return block;
}

static void codec_reserve(lua_State *L, codec_state *s, size_t extra) {
    if (s->text_capacity - s->text_length >= extra) return;
    size_t capacity = s->text_capacity * 2;
    while (capacity - s->text_length < extra) {
        if (capacity > ((size_t)-1) / 4) luaL_error(L, "not enough memory");
        capacity *= 2;
    }
    s->text = codec_grow(L, UV_TEXT, s->text, s->text_length, capacity);
    s->text_capacity = capacity;
}

static void codec_put_bytes(lua_State *L, codec_state *s, const char *bytes, size_t length) {
    codec_reserve(L, s, length + 1);
    memcpy(s->text + s->text_length, bytes, length);
    s->text_length += length;
    s->text[s->text_length++] = '|';
}

/// Writes an integer as Lua's tostring does (LUA_INTEGER_FMT, "%lld") into `digits`
/// (at least 21 bytes); returns the length.
static size_t codec_format_integer(char *digits, lua_Integer value) {
    char reversed[24];
    size_t n = 0;
    lua_Unsigned magnitude = value < 0 ? (lua_Unsigned)0 - (lua_Unsigned)value : (lua_Unsigned)value;
    do {
        reversed[n++] = (char)('0' + (int)(magnitude % 10));
        magnitude /= 10;
    } while (magnitude > 0);
    size_t length = 0;
    if (value < 0) digits[length++] = '-';
    while (n > 0) digits[length++] = reversed[--n];
    return length;
}

/// `prefix` (0 for none) then the integer, then "|".
static void codec_put_integer(lua_State *L, codec_state *s, char prefix, lua_Integer value) {
    codec_reserve(L, s, 24);
    if (prefix) s->text[s->text_length++] = prefix;
    s->text_length += codec_format_integer(s->text + s->text_length, value);
    s->text[s->text_length++] = '|';
}

/// "tag|" then the integer and "|": a value token.
static void codec_put_tagged(lua_State *L, codec_state *s, char tag, lua_Integer value) {
    codec_reserve(L, s, 26);
    s->text[s->text_length++] = tag;
    s->text[s->text_length++] = '|';
    s->text_length += codec_format_integer(s->text + s->text_length, value);
    s->text[s->text_length++] = '|';
}

/* ---------------------------------------------------------------------------------
** The ids map: table (by address, kept alive by `order`) -> its number
** ------------------------------------------------------------------------------- */

static size_t codec_hash(const void *p, size_t mask) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 29;
    x *= 0x9E3779B97F4A7C15ull;
    return (size_t)(x >> 17) & mask;
}

static codec_slot *codec_find(codec_state *s, const void *table) {
    size_t mask = s->slot_capacity - 1;
    for (size_t i = codec_hash(table, mask);; i = (i + 1) & mask) {
        codec_slot *slot = &s->slots[i];
        if (slot->generation != s->generation) return NULL;
        if (slot->table == table) return slot;
    }
}

/// The slot of `table`, made (empty) if it has none. Keeps the map at most half full.
static codec_slot *codec_slot_for(lua_State *L, codec_state *s, const void *table) {
    if ((s->slot_used + 1) * 2 > s->slot_capacity) {
        size_t old_capacity = s->slot_capacity;
        codec_slot *old = s->slots;
        size_t capacity = old_capacity * 2;
        if (capacity > ((size_t)-1) / (2 * sizeof(codec_slot))) luaL_error(L, "not enough memory");
        /* the old block stays alive (on the stack) while its slots move over */
        lua_pushvalue(L, lua_upvalueindex(UV_IDS));
        codec_slot *slots = codec_grow(L, UV_IDS, NULL, 0, capacity * sizeof(codec_slot));
        memset(slots, 0, capacity * sizeof(codec_slot));
        uint32_t generation = s->generation;
        s->slots = slots;
        s->slot_capacity = capacity;
        size_t mask = capacity - 1;
        for (size_t j = 0; j < old_capacity; j++) {
            if (old[j].generation != generation) continue;
            size_t i = codec_hash(old[j].table, mask);
            while (slots[i].generation == generation) i = (i + 1) & mask;
            slots[i] = old[j];
        }
        lua_pop(L, 1);
    }
    size_t mask = s->slot_capacity - 1;
    for (size_t i = codec_hash(table, mask);; i = (i + 1) & mask) {
        codec_slot *slot = &s->slots[i];
        if (slot->generation != s->generation) {
            slot->generation = s->generation;
            slot->table = table;
            slot->id = 0;
            slot->hidden = 0;
            s->slot_used++;
            return slot;
        }
        if (slot->table == table) return slot;
    }
}

static void codec_begin_position(codec_state *s) {
    s->slot_used = 0;
    s->generation++;
    if (s->generation == 0) {
        /* after 2^32 positions: every stamp could look live again */
        memset(s->slots, 0, s->slot_capacity * sizeof(codec_slot));
        s->generation = 1;
    }
}

/* ---------------------------------------------------------------------------------
** Ordering keys as the Lua encoder's sort does: numbers, strings, booleans; Lua's <
** ------------------------------------------------------------------------------- */

static int codec_type_rank(int type) {
    return type == LUA_TNUMBER ? 0 : type == LUA_TSTRING ? 1 : 2;
}

/* Lua 5.4's number comparison (lvm.c: LTnum, LTintfloat, LTfloatint). */
#define CODEC_MAXINTFITSF ((lua_Unsigned)1 << 53)
#define codec_intfitsf(i) ((CODEC_MAXINTFITSF + (lua_Unsigned)(i)) <= (2 * CODEC_MAXINTFITSF))

static int codec_float_to_integer(lua_Number f, lua_Integer *out) {
    if (f >= (lua_Number)LUA_MININTEGER && f < -(lua_Number)LUA_MININTEGER) {
        *out = (lua_Integer)f;
        return 1;
    }
    return 0;
}

static int codec_int_less_float(lua_Integer i, lua_Number f) {
    if (codec_intfitsf(i)) return (lua_Number)i < f;
    lua_Integer fi;
    if (codec_float_to_integer(l_mathop(ceil)(f), &fi)) return i < fi;
    return f > 0;
}

static int codec_float_less_int(lua_Number f, lua_Integer i) {
    if (codec_intfitsf(i)) return f < (lua_Number)i;
    lua_Integer fi;
    if (codec_float_to_integer(l_mathop(floor)(f), &fi)) return fi < i;
    return f < 0;
}

static int codec_number_less(const codec_scalar *a, const codec_scalar *b) {
    if (a->is_integer && b->is_integer) return a->i < b->i;
    if (!a->is_integer && !b->is_integer) return a->f < b->f;
    if (a->is_integer) return codec_int_less_float(a->i, b->f);
    return codec_float_less_int(a->f, b->i);
}

/* Lua 5.4's string comparison (lvm.c: l_strcmp): strcoll, piece by piece past '\0'. */
static int codec_string_compare(const char *l, size_t ll, const char *r, size_t lr) {
    for (;;) {
        int order = strcoll(l, r);
        if (order != 0) return order;
        size_t length = strlen(l);
        if (length == lr) return length == ll ? 0 : 1;
        if (length == ll) return -1;
        length++;
        l += length; ll -= length;
        r += length; lr -= length;
    }
}

static int codec_key_less(const codec_scalar *a, const codec_scalar *b) {
    int ra = codec_type_rank(a->type), rb = codec_type_rank(b->type);
    if (ra != rb) return ra < rb;
    if (ra == 0) return codec_number_less(a, b);
    if (ra == 1) return codec_string_compare(a->s, a->length, b->s, b->length) < 0;
    return !a->i && b->i;
}

static int codec_entry_less(const codec_entry *a, const codec_entry *b) {
    return codec_key_less(&a->key, &b->key);
}

/* Keys in one table are distinct, so the order is total and any correct sort gives
   table.sort's result. Insertion sort for the usual few keys, heapsort past that (in
   place: no allocation, no recursion). */
static void codec_sift_down(codec_entry *e, size_t root, size_t count) {
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= count) return;
        if (child + 1 < count && codec_entry_less(&e[child], &e[child + 1])) child++;
        if (!codec_entry_less(&e[root], &e[child])) return;
        codec_entry t = e[root]; e[root] = e[child]; e[child] = t;
        root = child;
    }
}

static void codec_sort(codec_entry *e, size_t count) {
    if (count <= 16) {
        for (size_t i = 1; i < count; i++) {
            codec_entry item = e[i];
            size_t j = i;
            while (j > 0 && codec_entry_less(&item, &e[j - 1])) { e[j] = e[j - 1]; j--; }
            e[j] = item;
        }
        return;
    }
    for (size_t i = count / 2; i-- > 0;) codec_sift_down(e, i, count);
    for (size_t end = count - 1; end > 0; end--) {
        codec_entry t = e[0]; e[0] = e[end]; e[end] = t;
        codec_sift_down(e, 0, end);
    }
}

/* ---------------------------------------------------------------------------------
** Constants, fixed metatables, tables of the position
** ------------------------------------------------------------------------------- */

/// const_id(o) for the value at `index`, numbering it when new (as the Lua const_id).
static lua_Integer codec_const_id(lua_State *L, int index) {
    index = lua_absindex(L, index);
    lua_pushvalue(L, index);
    if (lua_rawget(L, lua_upvalueindex(UV_CONSTS)) == LUA_TNUMBER) {
        lua_Integer id = lua_tointeger(L, -1);
        lua_pop(L, 1);
        return id;
    }
    lua_pop(L, 1);
    lua_Integer id = (lua_Integer)lua_rawlen(L, lua_upvalueindex(UV_CONST_LIST)) + 1;
    lua_pushvalue(L, index);
    lua_rawseti(L, lua_upvalueindex(UV_CONST_LIST), id);
    lua_pushvalue(L, index);
    lua_pushinteger(L, id);
    lua_rawset(L, lua_upvalueindex(UV_CONSTS));
    return id;
}

static int codec_fixed_index(codec_state *s, const void *table) {
    for (int f = 0; f < s->fixed_count; f++) {
        if (s->fixed[f] == table) return f;
    }
    return -1;
}

/// check_fixed: the runtime metatable at `index` still has exactly the fields it had.
static void codec_check_fixed(lua_State *L, codec_state *s, int f, int index) {
    index = lua_absindex(L, index);
    lua_pushvalue(L, index);
    lua_rawget(L, lua_upvalueindex(UV_FIXED));          /* the copy */
    int copy = lua_gettop(L);
    lua_Integer n = 0;
    lua_pushnil(L);
    while (lua_next(L, index)) {                        /* key, value */
        n++;
        lua_pushvalue(L, -2);
        lua_rawget(L, copy);                            /* key, value, copy[key] */
        if (!lua_rawequal(L, -1, -2)) {
            lua_pushvalue(L, lua_upvalueindex(UV_FIXED_CHANGED));
            lua_pushvalue(L, -4);
            lua_call(L, 1, 0);                          /* raises */
            luaL_error(L, "not analysable: the script changed one of the runtime's metatables, which positions do not hold");
        }
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    if (n != s->fixed_fields[f]) {
        luaL_error(L, "not analysable: the script changed one of the runtime's metatables, which positions do not hold");
    }
}

#define CODEC_RESTART_REACH "restart: a hook can reach a player's last roll"

/// The id of the table at `index` in this position (numbering it, and queueing it in
/// `order`, when new); raises the restart error if it is a hidden last roll.
static lua_Integer codec_table_id(lua_State *L, codec_state *s, int index, lua_Integer *n) {
    index = lua_absindex(L, index);
    const void *table = lua_topointer(L, index);
    codec_slot *slot = codec_slot_for(L, s, table);
    if (slot->hidden) luaL_error(L, CODEC_RESTART_REACH);
    if (slot->id == 0) {
        slot->id = ++*n;
        lua_pushvalue(L, index);
        lua_rawseti(L, lua_upvalueindex(UV_ORDER), *n);
    }
    return slot->id;
}

/// A table met as a value: "c|id" for a runtime metatable (checked once per position),
/// else "t|id".
static void codec_put_table(lua_State *L, codec_state *s, int index, lua_Integer *n, uint32_t *checked) {
    int f = codec_fixed_index(s, lua_topointer(L, index));
    if (f >= 0) {
        if (!(checked[f / 32] & (1u << (f % 32)))) {
            checked[f / 32] |= 1u << (f % 32);
            codec_check_fixed(L, s, f, index);
        }
        codec_put_tagged(L, s, 'c', s->fixed_const[f]);
        return;
    }
    lua_Integer id = codec_table_id(L, s, index, n);
    codec_put_tagged(L, s, 't', id);
}

static void codec_put_scalar(lua_State *L, codec_state *s, const codec_scalar *v) {
    switch (v->type) {
    case LUA_TNUMBER:
        if (v->is_integer) {
            codec_put_tagged(L, s, 'i', v->i);
        } else {
            /* string.pack("<n", v): the float's 8 bytes, little-endian */
            uint64_t bits;
            memcpy(&bits, &v->f, sizeof bits);
            char bytes[10];
            bytes[0] = 'f';
            bytes[1] = '|';
            for (int b = 0; b < 8; b++) bytes[2 + b] = (char)((bits >> (8 * b)) & 0xff);
            codec_put_bytes(L, s, bytes, sizeof bytes);
        }
        break;
    case LUA_TSTRING:
        codec_put_tagged(L, s, 's', (lua_Integer)v->length);
        codec_put_bytes(L, s, v->s, v->length);
        break;
    default:
        codec_put_bytes(L, s, v->i ? "T" : "F", 1);
        break;
    }
}

/// Reads the number, string or boolean at `index` (which must be one of those).
static void codec_read_scalar(lua_State *L, int index, int type, codec_scalar *out) {
    out->type = type;
    out->slot = 0;
    if (type == LUA_TNUMBER) {
        out->is_integer = lua_isinteger(L, index);
        if (out->is_integer) out->i = lua_tointeger(L, index); else out->f = lua_tonumber(L, index);
    } else if (type == LUA_TSTRING) {
        out->s = lua_tolstring(L, index, &out->length);
    } else {
        out->i = lua_toboolean(L, index);
    }
}

static int codec_is_string(const codec_scalar *v, const char *text, size_t length) {
    return v->type == LUA_TSTRING && v->length == length && memcmp(v->s, text, length) == 0;
}

static codec_state *codec_state_of(lua_State *L) {
    return (codec_state *)lua_touserdata(L, lua_upvalueindex(UV_STATE));
}

/* ---------------------------------------------------------------------------------
** The encoder
** ------------------------------------------------------------------------------- */

/// build_key(g, players, timer_meta, drop_last_roll, host_key, ranked ids...) -> key:
/// the body of the Lua encoder's encode for a position that is not terminal.
static int codec_build_key(lua_State *L) {
    codec_state *s = codec_state_of(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    int drop_last_roll = lua_toboolean(L, 4);
    size_t host_length;
    const char *host_key = luaL_checklstring(L, 5, &host_length);
    int ranks = lua_gettop(L) - 5;                      /* ranked timer ids at 6.. */
    int base = lua_gettop(L);
    luaL_checkstack(L, 16, NULL);
    uint32_t checked[CODEC_MAX_FIXED / 32] = {0};

    codec_begin_position(s);
    s->text_length = 24;                                /* room for "n|" in front */

    lua_Integer n = 1;
    codec_slot_for(L, s, lua_topointer(L, 1))->id = 1;
    lua_pushvalue(L, 1);
    lua_rawseti(L, lua_upvalueindex(UV_ORDER), 1);
    lua_Integer players = (lua_Integer)lua_rawlen(L, 2);
    lua_Integer anchors = players + 1;
    for (lua_Integer i = 1; i <= players; i++) {
        lua_rawgeti(L, 2, i);
        luaL_argexpected(L, lua_type(L, -1) == LUA_TTABLE, 2, "a list of player tables");
        codec_slot *slot = codec_slot_for(L, s, lua_topointer(L, -1));
        if (slot->id != 0) luaL_error(L, "not analysable: a player table appears twice in g.players");
        slot->id = ++n;
        lua_rawseti(L, lua_upvalueindex(UV_ORDER), n);
    }
    if (drop_last_roll) {
        for (lua_Integer i = 1; i <= players; i++) {
            lua_rawgeti(L, 2, i);
            lua_pushliteral(L, "last_roll");
            if (lua_rawget(L, -2) == LUA_TTABLE) codec_slot_for(L, s, lua_topointer(L, -1))->hidden = 1;
            if (lua_rawgeti(L, lua_upvalueindex(UV_STAND_INS), i) == LUA_TTABLE) {
                codec_slot_for(L, s, lua_topointer(L, -1))->hidden = 1;
            }
            lua_pop(L, 3);
        }
    }

    /* Stack from here: base+1 the table, base+2 its metatable (or nil), above: work. */
    lua_Integer values_used = 0;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_settop(L, base);
        lua_rawgeti(L, lua_upvalueindex(UV_ORDER), i);
        int t = base + 1;
        int has_meta = lua_getmetatable(L, t);
        if (!has_meta) lua_pushnil(L);
        int mt = base + 2;
        int fixed = has_meta ? codec_fixed_index(s, lua_topointer(L, mt)) : -1;
        /* A metatable with __gc or __mode is refused once the keys are checked. A weak
           table may lose entries (and the strings this reads in place) while the walk
           runs, so then the walk only checks the keys: for a table of the position the
           refusal follows; a runtime metatable that gained __mode fails its check. */
        int refused_meta = 0, weak = 0;
        if (has_meta) {
            lua_pushliteral(L, "__gc");
            int gc = lua_rawget(L, mt) != LUA_TNIL;
            lua_pop(L, 1);
            lua_pushliteral(L, "__mode");
            weak = lua_rawget(L, mt) != LUA_TNIL;
            lua_pop(L, 1);
            refused_meta = fixed < 0 && (gc || weak);
        }
        int is_player = i > 1 && i <= anchors;
        int has_last_roll = 0;
        size_t k = 0;
        lua_Integer slot = 0;
        lua_pushnil(L);
        while (lua_next(L, t)) {                        /* key at -2, value at -1 */
            int key_type = lua_type(L, -2);
            if (key_type != LUA_TNUMBER && key_type != LUA_TSTRING && key_type != LUA_TBOOLEAN) {
                luaL_error(L, "not analysable: a %s is used as a table key in the game state (keys must be numbers, strings or booleans)",
                           lua_typename(L, key_type));
            }
            if (weak || refused_meta) { lua_pop(L, 1); continue; }
            int value_type = lua_type(L, -1);
            if (k == s->entry_capacity) {
                size_t capacity = s->entry_capacity * 2;
                if (capacity > ((size_t)-1) / (2 * sizeof(codec_entry))) luaL_error(L, "not enough memory");
                s->entries = codec_grow(L, UV_ENTRIES, s->entries, k * sizeof(codec_entry), capacity * sizeof(codec_entry));
                s->entry_capacity = capacity;
            }
            codec_entry *e = &s->entries[k];
            codec_read_scalar(L, -2, key_type, &e->key);
            if (drop_last_roll && is_player && value_type == LUA_TTABLE && codec_is_string(&e->key, "last_roll", 9)) {
                /* left out; the stand-in of this seat takes its place (if there is one) */
                lua_rawgeti(L, lua_upvalueindex(UV_STAND_INS), i - 1);
                has_last_roll = !lua_isnil(L, -1);
                lua_pop(L, 2);
                continue;
            }
            if (value_type == LUA_TNUMBER || value_type == LUA_TSTRING || value_type == LUA_TBOOLEAN) {
                codec_read_scalar(L, -1, value_type, &e->value);
                lua_pop(L, 1);
            } else {
                e->value.type = value_type;
                e->value.slot = ++slot;
                lua_rawseti(L, lua_upvalueindex(UV_VALUES), slot);
            }
            k++;
        }
        if (slot > values_used) values_used = slot;
        if (refused_meta) {
            luaL_error(L, "not analysable: a metatable in the game state has __gc or __mode (what it holds would depend on garbage collection)");
        }
        if (weak) {
            /* A runtime metatable never has __mode, and nothing runs during a walk, so
               this one was not checked yet in this position: the check raises. */
            codec_check_fixed(L, s, fixed, mt);
            luaL_error(L, "not analysable: the script changed one of the runtime's metatables, which positions do not hold");
        }
        codec_sort(s->entries, k);

        /* the metatable token */
        if (!has_meta) {
            codec_put_bytes(L, s, "0", 1);
        } else if (fixed >= 0) {
            if (!(checked[fixed / 32] & (1u << (fixed % 32)))) {
                checked[fixed / 32] |= 1u << (fixed % 32);
                codec_check_fixed(L, s, fixed, mt);
            }
            codec_put_integer(L, s, 'c', s->fixed_const[fixed]);
        } else {
            lua_Integer id = codec_table_id(L, s, mt, &n);
            codec_put_integer(L, s, 't', id);
        }
        codec_put_integer(L, s, 0, (lua_Integer)(has_last_roll ? k + 1 : k));
        if (has_last_roll) {
            static const codec_scalar last_roll_key = {LUA_TSTRING, 0, 0, 0, "last_roll", 9, 0};
            codec_put_scalar(L, s, &last_roll_key);
            lua_rawgeti(L, lua_upvalueindex(UV_STAND_INS), i - 1);
            codec_put_tagged(L, s, 'c', codec_const_id(L, -1));
            lua_pop(L, 1);
        }
        int is_timer = has_meta && lua_rawequal(L, mt, 3);   /* raw: see the top */
        for (size_t j = 0; j < k; j++) {
            /* its strings are t's own (t is on the stack, and nothing runs meanwhile) */
            codec_entry e = s->entries[j];
            codec_put_scalar(L, s, &e.key);
            if (is_timer && codec_is_string(&e.key, "id", 2)) {
                /* the timer's rank among pending timers (ranks[v] or 0) */
                lua_Integer rank = 0;
                if (e.value.type == LUA_TNUMBER) {
                    /* as a table lookup: a float with an integral value is that integer */
                    int comparable = e.value.is_integer;
                    lua_Integer v = e.value.i;
                    if (!comparable && l_mathop(floor)(e.value.f) == e.value.f) {
                        comparable = codec_float_to_integer(e.value.f, &v);
                    }
                    for (int r = ranks; comparable && r >= 1 && rank == 0; r--) {
                        if (lua_type(L, 5 + r) == LUA_TNUMBER && lua_isinteger(L, 5 + r) && lua_tointeger(L, 5 + r) == v) rank = r;
                    }
                }
                codec_put_tagged(L, s, 'i', rank);
                continue;
            }
            if (e.value.slot == 0) {
                codec_put_scalar(L, s, &e.value);
                continue;
            }
            lua_rawgeti(L, lua_upvalueindex(UV_VALUES), e.value.slot);
            if (e.value.type == LUA_TTABLE) {
                codec_put_table(L, s, -1, &n, checked);
            } else {
                codec_put_tagged(L, s, 'c', codec_const_id(L, -1));
            }
            lua_pop(L, 1);
        }
    }

    /* the host's part last, "n|" in front */
    codec_reserve(L, s, host_length);
    memcpy(s->text + s->text_length, host_key, host_length);
    s->text_length += host_length;
    char digits[24];
    size_t length = codec_format_integer(digits, n);
    size_t start = 24 - length - 1;
    memcpy(s->text + start, digits, length);
    s->text[23] = '|';
    lua_settop(L, base);
    lua_pushlstring(L, s->text + start, s->text_length - start);

    /* let go of this position's tables and values */
    for (lua_Integer j = n + 1; j <= s->order_used; j++) {
        lua_pushnil(L);
        lua_rawseti(L, lua_upvalueindex(UV_ORDER), j);
    }
    s->order_used = n;
    for (lua_Integer j = 1; j <= values_used; j++) {
        lua_pushnil(L);
        lua_rawseti(L, lua_upvalueindex(UV_VALUES), j);
    }
    return 1;
}

/// new_position_encoder(fixed_list, fixed, fixed_count, stand_in_of, consts, const_list,
/// fixed_changed) -> build_key, over the Lua encoder's own tables (see dicehost-odds.lua).
static int codec_new_encoder(lua_State *L) {
    for (int a = 1; a <= 6; a++) luaL_checktype(L, a, LUA_TTABLE);
    luaL_checktype(L, 7, LUA_TFUNCTION);
    lua_settop(L, 7);
    codec_state *s = lua_newuserdatauv(L, sizeof(codec_state), 0);   /* 8 */
    memset(s, 0, sizeof *s);
    lua_Integer count = (lua_Integer)lua_rawlen(L, 1);
    luaL_argcheck(L, count <= CODEC_MAX_FIXED, 1, "too many runtime metatables");
    for (lua_Integer f = 1; f <= count; f++) {
        lua_rawgeti(L, 1, f);                           /* mt */
        luaL_argcheck(L, lua_type(L, -1) == LUA_TTABLE, 1, "a list of metatables");
        s->fixed[s->fixed_count] = lua_topointer(L, -1);
        lua_pushvalue(L, -1);
        if (lua_rawget(L, 5) != LUA_TNUMBER) luaL_argerror(L, 5, "every runtime metatable numbered");
        s->fixed_const[s->fixed_count] = lua_tointeger(L, -1);
        lua_pop(L, 1);
        if (lua_rawget(L, 3) != LUA_TNUMBER) luaL_argerror(L, 3, "every runtime metatable's field count");
        s->fixed_fields[s->fixed_count] = lua_tointeger(L, -1);
        lua_pop(L, 1);
        s->fixed_count++;
    }
    lua_pushvalue(L, 2);                                /* UV_FIXED */
    lua_pushvalue(L, 4);                                /* UV_STAND_INS */
    lua_pushvalue(L, 5);                                /* UV_CONSTS */
    lua_pushvalue(L, 6);                                /* UV_CONST_LIST */
    lua_pushvalue(L, 7);                                /* UV_FIXED_CHANGED */
    lua_newtable(L);                                    /* UV_ORDER */
    lua_newtable(L);                                    /* UV_VALUES */
    s->text_capacity = 1024;
    s->text = lua_newuserdatauv(L, s->text_capacity, 0);               /* UV_TEXT */
    s->entry_capacity = 64;
    s->entries = lua_newuserdatauv(L, s->entry_capacity * sizeof(codec_entry), 0); /* UV_ENTRIES */
    s->slot_capacity = 256;
    s->slots = lua_newuserdatauv(L, s->slot_capacity * sizeof(codec_slot), 0);     /* UV_IDS */
    memset(s->slots, 0, s->slot_capacity * sizeof(codec_slot));
    s->generation = 1;
    lua_pushcclosure(L, codec_build_key, UV_COUNT);
    return 1;
}

void clua_push_position_encoder_factory(lua_State *L) {
    lua_pushcfunction(L, codec_new_encoder);
}

/* ---------------------------------------------------------------------------------
** The decoder
** ------------------------------------------------------------------------------- */

typedef struct codec_reader {
    const char *at, *end;
} codec_reader;

static int codec_corrupt(lua_State *L) {
    return luaL_error(L, "a position's key is corrupt");
}

/// The text of the next token (up to its "|"), which is skipped.
static const char *codec_token(lua_State *L, codec_reader *r, size_t *length) {
    const char *bar = memchr(r->at, '|', (size_t)(r->end - r->at));
    if (!bar) codec_corrupt(L);
    const char *token = r->at;
    *length = (size_t)(bar - token);
    r->at = bar + 1;
    return token;
}

/// A decimal integer as the encoder writes it (LUA_INTEGER_FMT).
static lua_Integer codec_parse_integer(lua_State *L, const char *text, size_t length) {
    size_t i = 0;
    int negative = length > 0 && text[0] == '-';
    if (negative) i++;
    if (i == length || length - i > 19) codec_corrupt(L);
    lua_Unsigned value = 0;
    for (; i < length; i++) {
        if (text[i] < '0' || text[i] > '9') codec_corrupt(L);
        value = value * 10 + (lua_Unsigned)(text[i] - '0');
    }
    return negative ? (lua_Integer)((lua_Unsigned)0 - value) : (lua_Integer)value;
}

/// An integer token read in one pass (digits up to the "|"): what codec_token and then
/// codec_parse_integer accept and refuse, without a memchr call per token (decoding is
/// mostly short tokens, and those calls were a tenth of a decode).
static lua_Integer codec_integer_token(lua_State *L, codec_reader *r) {
    const char *at = r->at, *end = r->end;
    int negative = at < end && *at == '-';
    if (negative) at++;
    const char *digits = at;
    lua_Unsigned value = 0;
    while (at < end && *at >= '0' && *at <= '9') {
        value = value * 10 + (lua_Unsigned)(*at - '0');
        at++;
    }
    size_t count = (size_t)(at - digits);
    if (count == 0 || count > 19 || at == end || *at != '|') codec_corrupt(L);
    r->at = at + 1;
    return negative ? (lua_Integer)((lua_Unsigned)0 - value) : (lua_Integer)value;
}

/// A one-byte tag token ("i|", "t|", ...): its byte.
static char codec_tag_token(lua_State *L, codec_reader *r) {
    if (r->end - r->at < 2 || r->at[1] != '|') codec_corrupt(L);
    char tag = r->at[0];
    r->at += 2;
    return tag;
}

/// `length` raw bytes and the "|" after them.
static const char *codec_raw(lua_State *L, codec_reader *r, size_t length) {
    if ((size_t)(r->end - r->at) < length + 1 || r->at[length] != '|') codec_corrupt(L);
    const char *bytes = r->at;
    r->at += length + 1;
    return bytes;
}

/// Pushes the next value: i, f, s, T, F, t (a table of `tables`), c (a constant).
static void codec_push_value(lua_State *L, codec_reader *r, int tables, int const_list) {
    switch (codec_tag_token(L, r)) {
    case 'i':
        lua_pushinteger(L, codec_integer_token(L, r));
        break;
    case 'f': {
        const char *bytes = codec_raw(L, r, 8);
        uint64_t bits = 0;
        for (int b = 7; b >= 0; b--) bits = (bits << 8) | (unsigned char)bytes[b];
        lua_Number f;
        memcpy(&f, &bits, sizeof f);
        lua_pushnumber(L, f);
        break;
    }
    case 's': {
        lua_Integer n = codec_integer_token(L, r);
        if (n < 0 || (lua_Unsigned)n >= (lua_Unsigned)(r->end - r->at)) codec_corrupt(L);
        lua_pushlstring(L, codec_raw(L, r, (size_t)n), (size_t)n);
        break;
    }
    case 'T': lua_pushboolean(L, 1); break;
    case 'F': lua_pushboolean(L, 0); break;
    case 't': lua_rawgeti(L, tables, codec_integer_token(L, r)); break;
    case 'c': lua_rawgeti(L, const_list, codec_integer_token(L, r)); break;
    default: codec_corrupt(L);
    }
}

/// The position `key` back into g and the players (Lua arguments 2-4: g, players,
/// const_list), in place (their old fields cleared), every other table made anew in the
/// order the Lua decoder made them, fields set in the key's order (so tables are laid out
/// alike). position_index.c's decode calls it with a key where the index keeps it: the
/// bytes must not move while it runs.
int clua_decode_position(lua_State *L, const char *key, size_t length) {
    codec_reader r;
    r.at = key;
    r.end = key + length;
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    luaL_checktype(L, 4, LUA_TTABLE);
    lua_settop(L, 4);
    luaL_checkstack(L, 16, NULL);
    lua_Integer n = codec_integer_token(L, &r);
    lua_Integer players = (lua_Integer)lua_rawlen(L, 3);
    if (n < players + 1) codec_corrupt(L);
    lua_createtable(L, n > 0 && n < (1 << 24) ? (int)n : 0, 0);     /* 5: tables */
    int tables = 5;
    lua_pushvalue(L, 2);
    lua_rawseti(L, tables, 1);
    for (lua_Integer i = 1; i <= players; i++) {
        lua_rawgeti(L, 3, i);
        lua_rawseti(L, tables, i + 1);
    }
    for (lua_Integer i = players + 2; i <= n; i++) {
        lua_newtable(L);
        lua_rawseti(L, tables, i);
    }
    for (lua_Integer i = 1; i <= n; i++) {
        lua_settop(L, tables);
        lua_rawgeti(L, tables, i);                      /* 6: t */
        int t = tables + 1;
        if (lua_type(L, t) != LUA_TTABLE) codec_corrupt(L);
        if (i <= players + 1) {
            lua_pushnil(L);
            while (lua_next(L, t)) {
                lua_pop(L, 1);
                lua_pushvalue(L, -1);
                lua_pushnil(L);
                lua_rawset(L, t);
            }
        }
        size_t meta_length;
        const char *meta = codec_token(L, &r, &meta_length);
        lua_Integer k = codec_integer_token(L, &r);
        for (lua_Integer j = 0; j < k; j++) {
            codec_push_value(L, &r, tables, 4);
            codec_push_value(L, &r, tables, 4);
            if (lua_isnil(L, -2)) codec_corrupt(L);
            lua_rawset(L, t);
        }
        if (meta_length == 1 && meta[0] == '0') {
            lua_pushnil(L);
        } else {
            if (meta_length < 2 || (meta[0] != 'c' && meta[0] != 't')) codec_corrupt(L);
            lua_Integer number = codec_parse_integer(L, meta + 1, meta_length - 1);
            lua_rawgeti(L, meta[0] == 'c' ? 4 : tables, number);
        }
        int want = lua_gettop(L);
        if (!lua_getmetatable(L, t)) lua_pushnil(L);
        int same = lua_rawequal(L, -1, want);
        lua_pop(L, 1);
        if (!same) {
            if (!lua_isnil(L, want) && lua_type(L, want) != LUA_TTABLE) codec_corrupt(L);
            lua_setmetatable(L, t);
        }
    }
    return 0;  /* the host's part follows: the host keeps its own copy */
}
