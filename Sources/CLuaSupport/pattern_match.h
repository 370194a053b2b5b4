// Why this header: the matcher (pattern_match.c) and the four string functions built
// on it (pattern.c) share one state type; Swift never sees it, so it stays out of
// include/.
#ifndef CLUA_PATTERN_MATCH_H
#define CLUA_PATTERN_MATCH_H

#include "CLuaSupport.h"
#include <stddef.h>
#include <stdint.h>

/// Returned by the matcher for "no match" (no subject is SIZE_MAX bytes long).
#define CLUA_NO_MATCH SIZE_MAX
/// Nested matcher calls one match attempt may make, as Lua's MAXCCALLS: it bounds the
/// C stack, and past it Lua says "pattern too complex", so we do too.
#define CLUA_MATCH_MAX_DEPTH 200
/// Captures one pattern may have, as lstrlib's LUA_MAXCAPTURES (beyond: "too many captures").
#define CLUA_MATCH_MAX_CAPTURES 32
/// Steps counted locally between two charges to the budget.
#define CLUA_MATCH_STEPS_PER_CHARGE 1024
/// Steps one call may take while no budget is armed (hosts that run scripts always
/// arm one; this only keeps an unbudgeted host from hanging for good).
#define CLUA_MATCH_UNBUDGETED_CAP ((int64_t)1 << 30)
/// A capture's length while it is open, and the length that marks a position capture.
#define CLUA_CAPTURE_OPEN ((ptrdiff_t)-1)
#define CLUA_CAPTURE_POSITION ((ptrdiff_t)-2)

typedef struct clua_match {
    lua_State *L;
    const unsigned char *subject;
    size_t subject_length;
    const unsigned char *pattern;  /* after a '^' anchor that the caller stripped */
    size_t pattern_length;
    int depth_left;                /* nested matcher calls still allowed */
    int level;                     /* captures opened so far */
    struct { size_t start; ptrdiff_t length; } capture[CLUA_MATCH_MAX_CAPTURES];
    int64_t steps_left;            /* steps until the next charge */
    int64_t unbudgeted_steps;      /* steps charged while no budget was armed */
} clua_match;

/// Prepares a state over a subject and a pattern (both must outlive the state's use).
void clua_match_init(clua_match *m, lua_State *L, const char *subject, size_t subject_length,
                     const char *pattern, size_t pattern_length);
/// Tries the pattern at subject offset `start`; returns the end offset or CLUA_NO_MATCH.
/// Captures are in m->capture[0 ..< m->level]. Raises Lua's errors for bad patterns,
/// and the budget error when the steps it counts use the budget up.
size_t clua_match_at(clua_match *m, size_t start);
/// Plain search for needle in subject[start...]; returns the offset found or
/// CLUA_NO_MATCH. Linear time (Knuth-Morris-Pratt once a naive scan works too hard).
size_t clua_match_plain(clua_match *m, size_t start, const char *needle, size_t needle_length);
/// Counts `steps` of work (raising once the budget is spent).
void clua_match_count(clua_match *m, int64_t steps);
/// Charges the steps counted but not yet charged; raises if the budget is spent.
void clua_match_settle(clua_match *m);

#endif
