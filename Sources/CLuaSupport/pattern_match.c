// Why this file: Lua's own pattern matcher runs inside C where the count hook never
// fires, and some patterns backtrack exponentially (`x?x?...xx`), so a script could
// stall the host for good. No up-front estimate can tell every such pattern from a
// legitimate one, so DiceHost matches with its own matcher instead: it has Lua 5.4's
// semantics (§6.4.1 of the manual, and lstrlib's behaviour at the edges: the same
// errors, raised at the same moment, the same recursion limit) but counts every step
// it takes - each single-character test, each backtrack, each byte that %b, a
// back-reference or a plain search looks at - and charges them to the input's budget
// every CLUA_MATCH_STEPS_PER_CHARGE steps. A spent budget (or the watchdog's
// interrupt) raises from inside the matcher, which holds nothing but C stack, so the
// longjmp leaks nothing. Recursion is limited like Lua's (200 nested calls), which
// bounds the C stack; every loop costs at least one step per iteration, so the work
// is bounded by the budget.
//
// Work is done on offsets into the subject and the pattern, never on pointers past
// either end; where lstrlib reads the '\0' that ends a Lua string, we read 0 through
// clua_pattern_byte.
#include "pattern_match.h"
#include <string.h>

/* ---------------------------------------------------------------------------------
** Counting steps
** ------------------------------------------------------------------------------- */

void clua_match_settle(clua_match *m) {
    int64_t used = CLUA_MATCH_STEPS_PER_CHARGE - m->steps_left;
    m->steps_left = CLUA_MATCH_STEPS_PER_CHARGE;
    if (!clua_ctx(m->L)->budget_armed) {
        /* Nothing else would ever stop an unbudgeted call; see CLUA_MATCH_UNBUDGETED_CAP. */
        m->unbudgeted_steps += used;
        if (m->unbudgeted_steps > CLUA_MATCH_UNBUDGETED_CAP)
            luaL_error(m->L, "pattern too complex (more than %I matcher steps with no budget)",
                       (lua_Integer)CLUA_MATCH_UNBUDGETED_CAP);
    }
    if (clua_charge(m->L, used)) clua_raise_budget(m->L);
}

// Inline and branch-light: it runs on every step.
static inline void clua_count(clua_match *m, int64_t steps) {
    m->steps_left -= steps;
    if (m->steps_left <= 0) clua_match_settle(m);
}

void clua_match_count(clua_match *m, int64_t steps) {
    clua_count(m, steps);
}

void clua_match_init(clua_match *m, lua_State *L, const char *subject, size_t subject_length,
                     const char *pattern, size_t pattern_length) {
    m->L = L;
    m->subject = (const unsigned char *)subject;
    m->subject_length = subject_length;
    m->pattern = (const unsigned char *)pattern;
    m->pattern_length = pattern_length;
    m->depth_left = CLUA_MATCH_MAX_DEPTH;
    m->level = 0;
    m->steps_left = CLUA_MATCH_STEPS_PER_CHARGE;
    m->unbudgeted_steps = 0;
}

/* ---------------------------------------------------------------------------------
** Single-character items: '.', %class, [set], a literal byte
** ------------------------------------------------------------------------------- */

/// The pattern byte at i, or 0 past the end (where lstrlib reads the string's '\0').
static inline unsigned char clua_pattern_byte(const clua_match *m, size_t i) {
    return i < m->pattern_length ? m->pattern[i] : 0;
}

/// Character classes of the C locale, spelled out so that results never depend on the
/// process's locale (and match Lua's under "C", the locale Lua programs start in).
static int clua_class_matches(unsigned char c, unsigned char class_letter) {
    int upper_letter = class_letter >= 'A' && class_letter <= 'Z';
    unsigned char letter = upper_letter ? (unsigned char)(class_letter + ('a' - 'A')) : class_letter;
    int is_upper = c >= 'A' && c <= 'Z', is_lower = c >= 'a' && c <= 'z';
    int is_digit = c >= '0' && c <= '9';
    int is_alnum = is_upper || is_lower || is_digit;
    int result;
    switch (letter) {
    case 'a': result = is_upper || is_lower; break;
    case 'c': result = c < 32 || c == 127; break;
    case 'd': result = is_digit; break;
    case 'g': result = c > 32 && c < 127; break;
    case 'l': result = is_lower; break;
    case 'p': result = c > 32 && c < 127 && !is_alnum; break;
    case 's': result = c == ' ' || (c >= '\t' && c <= '\r'); break;
    case 'u': result = is_upper; break;
    case 'w': result = is_alnum; break;
    case 'x': result = is_digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); break;
    case 'z': result = c == 0; break; /* deprecated, but 5.4.4 still has it */
    default: return class_letter == c; /* an escaped non-class byte stands for itself */
    }
    return upper_letter ? !result : result;
}

/// Where the single-character item at i ends (its quantifier, if any, is there).
/// Raises Lua's errors for a '%' or a set that the pattern cuts short.
static size_t clua_item_end(clua_match *m, size_t i) {
    const unsigned char *p = m->pattern;
    size_t n = m->pattern_length;
    unsigned char first = p[i++];
    if (first == '%') {
        if (i >= n) luaL_error(m->L, "malformed pattern (ends with '%%')");
        return i + 1;
    }
    if (first != '[') return i;
    size_t members = i;
    if (i < n && p[i] == '^') i++;
    /* The first member is taken as it is, so "[]]" and "[^]]" contain ']'. */
    for (;;) {
        if (i >= n) luaL_error(m->L, "malformed pattern (missing ']')");
        unsigned char member = p[i++];
        if (member == '%' && i < n) i++;
        if (i < n && p[i] == ']') break;
    }
    /* A long set is scanned again at every test: charge its length too. */
    clua_count(m, (int64_t)((i - members) / CLUA_BYTES_PER_UNIT));
    return i + 1;
}

/// Whether the set from '[' at `open` to ']' at `close` contains c: members are
/// %classes, ranges x-y (a '-' first or last is literal), or bytes.
static int clua_set_contains(const clua_match *m, unsigned char c, size_t open, size_t close) {
    const unsigned char *p = m->pattern;
    int inside = 1;
    size_t i = open + 1;
    if (p[i] == '^') {
        inside = 0;
        i++;
    }
    while (i < close) {
        unsigned char member = p[i];
        if (member == '%') {
            if (clua_class_matches(c, p[i + 1])) return inside;
            i += 2;
        } else if (i + 2 < close && p[i + 1] == '-') {
            if (member <= c && c <= p[i + 2]) return inside;
            i += 3;
        } else {
            if (member == c) return inside;
            i++;
        }
    }
    return !inside;
}

/// Whether the item from i to e matches the subject byte at s (none past the end).
static inline int clua_single(clua_match *m, size_t s, size_t i, size_t e) {
    clua_count(m, 1);
    if (s >= m->subject_length) return 0;
    unsigned char c = m->subject[s];
    switch (m->pattern[i]) {
    case '.': return 1;
    case '%': return clua_class_matches(c, m->pattern[i + 1]);
    case '[':
        if (e - i > CLUA_BYTES_PER_UNIT) clua_count(m, (int64_t)((e - i) / CLUA_BYTES_PER_UNIT));
        return clua_set_contains(m, c, i, e - 1);
    default: return m->pattern[i] == c;
    }
}

/* ---------------------------------------------------------------------------------
** The matcher. clua_run is the one recursive entry: it spends one level of depth,
** like each call of lstrlib's match(), and the places that recurse are the places
** lstrlib recurses (captures, '?', '*', '+', '-'), so "pattern too complex" comes
** for exactly the same patterns and subjects.
** ------------------------------------------------------------------------------- */

static size_t clua_run(clua_match *m, size_t s, size_t i);

static size_t clua_open_capture(clua_match *m, size_t s, size_t i, ptrdiff_t kind) {
    if (m->level >= CLUA_MATCH_MAX_CAPTURES) luaL_error(m->L, "too many captures");
    int k = m->level++;
    m->capture[k].start = s;
    m->capture[k].length = kind;
    size_t end = clua_run(m, s, i);
    if (end == CLUA_NO_MATCH) m->level--;
    return end;
}

static size_t clua_close_capture(clua_match *m, size_t s, size_t i) {
    int k = m->level - 1;
    while (k >= 0 && m->capture[k].length != CLUA_CAPTURE_OPEN) k--;
    if (k < 0) luaL_error(m->L, "invalid pattern capture");
    m->capture[k].length = (ptrdiff_t)(s - m->capture[k].start);
    size_t end = clua_run(m, s, i);
    if (end == CLUA_NO_MATCH) m->capture[k].length = CLUA_CAPTURE_OPEN;
    return end;
}

/// %bxy at s, with x at pattern offset i: the end of the balanced run, one step a byte.
static size_t clua_balanced(clua_match *m, size_t s, size_t i) {
    if (i + 1 >= m->pattern_length) luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
    clua_count(m, 1);
    if (s >= m->subject_length || m->subject[s] != m->pattern[i]) return CLUA_NO_MATCH;
    unsigned char open = m->pattern[i], close = m->pattern[i + 1];
    size_t depth = 1;
    for (size_t k = s + 1; k < m->subject_length; k++) {
        clua_count(m, 1);
        unsigned char c = m->subject[k];
        /* close before open: with x == y the second x closes */
        if (c == close) {
            if (--depth == 0) return k + 1;
        } else if (c == open) {
            depth++;
        }
    }
    return CLUA_NO_MATCH;
}

/// %1-%9 (and %0, an error) at s: the text of an earlier closed capture, again.
static size_t clua_back_reference(clua_match *m, size_t s, unsigned char digit) {
    int k = digit - '1';
    if (k < 0 || k >= m->level || m->capture[k].length == CLUA_CAPTURE_OPEN)
        luaL_error(m->L, "invalid capture index %%%d", k + 1);
    ptrdiff_t length = m->capture[k].length;
    clua_count(m, 1);
    /* A position capture never matches text (lstrlib compares with a huge length). */
    if (length < 0 || (size_t)length > m->subject_length - s) return CLUA_NO_MATCH;
    clua_count(m, (int64_t)length);
    if (memcmp(m->subject + m->capture[k].start, m->subject + s, (size_t)length) != 0) return CLUA_NO_MATCH;
    return s + (size_t)length;
}

/// item* and item+: take as many as match, then give back one at a time. `count`
/// items from s are known to match already.
static size_t clua_greedy(clua_match *m, size_t s, size_t count, size_t i, size_t e) {
    while (clua_single(m, s + count, i, e)) count++;
    for (;;) {
        size_t end = clua_run(m, s + count, e + 1);
        if (end != CLUA_NO_MATCH) return end;
        if (count == 0) return CLUA_NO_MATCH;
        count--;
    }
}

/// item-: try the rest first, then one more item, and so on.
static size_t clua_lazy(clua_match *m, size_t s, size_t i, size_t e) {
    for (;;) {
        size_t end = clua_run(m, s, e + 1);
        if (end != CLUA_NO_MATCH) return end;
        if (!clua_single(m, s, i, e)) return CLUA_NO_MATCH;
        s++;
    }
}

/// Matches the pattern from offset i against the subject from s, without recursing
/// where the rest is a tail (one item, %b, %f, a back-reference, an unmatched '*').
static size_t clua_sequence(clua_match *m, size_t s, size_t i) {
    const unsigned char *p = m->pattern;
    size_t n = m->pattern_length;
    for (;;) {
        if (i >= n) return s;
        switch (p[i]) {
        case '(':
            if (clua_pattern_byte(m, i + 1) == ')') return clua_open_capture(m, s, i + 2, CLUA_CAPTURE_POSITION);
            return clua_open_capture(m, s, i + 1, CLUA_CAPTURE_OPEN);
        case ')':
            return clua_close_capture(m, s, i + 1);
        case '$':
            if (i + 1 == n) return s == m->subject_length ? s : CLUA_NO_MATCH;
            break; /* elsewhere a literal '$' */
        case '%': {
            unsigned char next = clua_pattern_byte(m, i + 1);
            if (next == 'b') {
                s = clua_balanced(m, s, i + 2);
                if (s == CLUA_NO_MATCH) return s;
                i += 4;
                continue;
            }
            if (next == 'f') {
                i += 2;
                if (clua_pattern_byte(m, i) != '[') luaL_error(m->L, "missing '[' after '%%f' in pattern");
                size_t e = clua_item_end(m, i);
                unsigned char before = s == 0 ? 0 : m->subject[s - 1];
                unsigned char after = s < m->subject_length ? m->subject[s] : 0;
                clua_count(m, 1 + (int64_t)((e - i) / CLUA_BYTES_PER_UNIT));
                if (clua_set_contains(m, before, i, e - 1) || !clua_set_contains(m, after, i, e - 1))
                    return CLUA_NO_MATCH;
                i = e;
                continue;
            }
            if (next >= '0' && next <= '9') {
                s = clua_back_reference(m, s, next);
                if (s == CLUA_NO_MATCH) return s;
                i += 2;
                continue;
            }
            break; /* a %class or an escaped byte */
        }
        default:
            break;
        }
        size_t e = clua_item_end(m, i);
        unsigned char quantifier = clua_pattern_byte(m, e);
        if (!clua_single(m, s, i, e)) {
            if (quantifier == '*' || quantifier == '?' || quantifier == '-') {
                i = e + 1; /* zero of them */
                continue;
            }
            return CLUA_NO_MATCH;
        }
        switch (quantifier) {
        case '?': {
            size_t end = clua_run(m, s + 1, e + 1);
            if (end != CLUA_NO_MATCH) return end;
            i = e + 1;
            continue;
        }
        case '*': return clua_greedy(m, s, 1, i, e);
        case '+': return clua_greedy(m, s + 1, 0, i, e);
        case '-': return clua_lazy(m, s, i, e);
        default:
            s++;
            i = e;
            continue;
        }
    }
}

static size_t clua_run(clua_match *m, size_t s, size_t i) {
    if (m->depth_left == 0) luaL_error(m->L, "pattern too complex");
    m->depth_left--;
    clua_count(m, 1);
    size_t end = clua_sequence(m, s, i);
    m->depth_left++;
    return end;
}

size_t clua_match_at(clua_match *m, size_t start) {
    m->level = 0;
    m->depth_left = CLUA_MATCH_MAX_DEPTH;
    return clua_run(m, start, 0);
}

/* ---------------------------------------------------------------------------------
** Plain search
** ------------------------------------------------------------------------------- */

/// Knuth-Morris-Pratt from subject offset `from`: at most two steps per subject byte
/// plus two per needle byte. The border table lives in a userdatum (Lua's memory, so
/// charged and capped, and collected if a raise unwinds past us).
static size_t clua_plain_linear(clua_match *m, size_t from, const unsigned char *needle, size_t n) {
    lua_State *L = m->L;
    uint32_t *border = (uint32_t *)lua_newuserdatauv(L, n * sizeof(uint32_t), 0);
    border[0] = 0;
    for (size_t k = 1, b = 0; k < n; k++) {
        while (b > 0 && needle[k] != needle[b]) {
            b = border[b - 1];
            clua_count(m, 1);
        }
        if (needle[k] == needle[b]) b++;
        border[k] = (uint32_t)b;
        clua_count(m, 1);
    }
    size_t found = CLUA_NO_MATCH;
    const unsigned char *h = m->subject;
    for (size_t t = from, q = 0; t < m->subject_length; t++) {
        while (q > 0 && needle[q] != h[t]) {
            q = border[q - 1];
            clua_count(m, 1);
        }
        if (needle[q] == h[t]) q++;
        clua_count(m, 1);
        if (q == n) {
            found = t + 1 - n;
            break;
        }
    }
    lua_pop(L, 1);
    return found;
}

size_t clua_match_plain(clua_match *m, size_t start, const char *needle_chars, size_t n) {
    const unsigned char *needle = (const unsigned char *)needle_chars;
    const unsigned char *h = m->subject;
    size_t length = m->subject_length;
    clua_count(m, 1);
    if (n == 0) return start;
    if (start > length || n > length - start) return CLUA_NO_MATCH;
    size_t last = length - n;
    /* A naive scan (memchr for the first byte, then compare) is fastest on ordinary
       text; once it has compared more than a few times the subject, the needle is
       repetitive and the linear search takes over where it stopped. */
    int64_t allowance = 4 * (int64_t)(length - start) + 1024, compared = 0;
    size_t pos = start;
    while (pos <= last) {
        const unsigned char *hit = memchr(h + pos, needle[0], last - pos + 1);
        if (hit == NULL) {
            clua_count(m, 1 + (int64_t)((last - pos) / CLUA_BYTES_PER_UNIT));
            return CLUA_NO_MATCH;
        }
        size_t at = (size_t)(hit - h);
        size_t k = 1;
        while (k < n && h[at + k] == needle[k]) k++;
        clua_count(m, (int64_t)((at - pos) / CLUA_BYTES_PER_UNIT) + (int64_t)k);
        if (k == n) return at;
        pos = at + 1;
        compared += (int64_t)k;
        if (compared > allowance && n <= UINT32_MAX && n <= SIZE_MAX / sizeof(uint32_t)) return clua_plain_linear(m, pos, needle, n);
    }
    return CLUA_NO_MATCH;
}
