// Why this file: line coverage counts the lines of rule scripts that run. There is one
// hook per lua_State and the budget's count hook is it, so coverage is a line event of
// that same hook (budget.c adds LUA_MASKLINE while coverage is on), recorded here in a
// C table; the hook itself is C because it raises.
#include "CLuaSupport.h"
#include <stdlib.h>
#include <string.h>

typedef struct clua_coverage_file {
    char *source;           /* the chunk name, without its '@' */
    uint64_t *hits;         /* hits[line], lines 1..size-1 */
    int size;
} clua_coverage_file;

struct clua_coverage {
    clua_coverage_file *files;
    int count, capacity;
    int last;               /* the file the last line event was in, or -1 */
};

int clua_coverage_start(lua_State *L) {
    clua_context *c = clua_ctx(L);
    if (c->coverage != NULL) return 1;
    c->coverage = calloc(1, sizeof(struct clua_coverage));
    if (c->coverage == NULL) return 0;
    c->coverage->last = -1;
    /* From now on every lua_sethook of budget.c adds the line mask; set it now too. */
    clua_refresh_hook(L);
    return 1;
}

void clua_coverage_free(clua_context *c) {
    if (c->coverage == NULL) return;
    for (int i = 0; i < c->coverage->count; i++) {
        free(c->coverage->files[i].source);
        free(c->coverage->files[i].hits);
    }
    free(c->coverage->files);
    free(c->coverage);
    c->coverage = NULL;
}

static int clua_coverage_find(struct clua_coverage *v, const char *source) {
    if (v->last >= 0 && strcmp(v->files[v->last].source, source) == 0) return v->last;
    for (int i = 0; i < v->count; i++)
        if (strcmp(v->files[i].source, source) == 0) return v->last = i;
    return -1;
}

int clua_coverage_allow(lua_State *L, const char *source) {
    struct clua_coverage *v = clua_ctx(L)->coverage;
    if (v == NULL) return 0;
    if (clua_coverage_find(v, source) >= 0) return 1;
    if (v->count == v->capacity) {
        int capacity = v->capacity ? v->capacity * 2 : 8;
        clua_coverage_file *files = realloc(v->files, (size_t)capacity * sizeof *files);
        if (files == NULL) return 0;
        v->files = files;
        v->capacity = capacity;
    }
    char *copy = strdup(source);
    if (copy == NULL) return 0;
    v->files[v->count] = (clua_coverage_file){ copy, NULL, 0 };
    v->count++;
    return 1;
}

/* Called by the hook on a line event. Only the chunks the host named as files count
   (clua_coverage_allow: rule scripts and their modules), so a script cannot make the
   table grow by loading chunks under new names; the runtime's own chunks and text
   chunks are skipped. Memory here is the host's (malloc), bounded by those files'
   lengths: a line count must never fail an input. */
void clua_coverage_record(clua_context *c, lua_State *L, lua_Debug *ar) {
    struct clua_coverage *v = c->coverage;
    int line = ar->currentline;
    if (v == NULL || line <= 0 || line > CLUA_COVERAGE_MAX_LINE) return;
    if (v->count == 0 || !lua_getinfo(L, "S", ar) || ar->source == NULL || ar->source[0] != '@') return;
    int i = clua_coverage_find(v, ar->source + 1);
    if (i < 0) return;
    clua_coverage_file *f = &v->files[i];
    if (line >= f->size) {
        int size = f->size ? f->size : 64;
        while (size <= line) size *= 2;
        uint64_t *hits = realloc(f->hits, (size_t)size * sizeof *hits);
        if (hits == NULL) return;
        memset(hits + f->size, 0, (size_t)(size - f->size) * sizeof *hits);
        f->hits = hits;
        f->size = size;
    }
    f->hits[line]++;
}

int clua_coverage_file_count(clua_context *c) {
    return c->coverage ? c->coverage->count : 0;
}

const char *clua_coverage_file_source(clua_context *c, int file) {
    if (c->coverage == NULL || file < 0 || file >= c->coverage->count) return NULL;
    return c->coverage->files[file].source;
}

int clua_coverage_file_lines(clua_context *c, int file) {
    if (c->coverage == NULL || file < 0 || file >= c->coverage->count) return 0;
    return c->coverage->files[file].size;
}

uint64_t clua_coverage_hits(clua_context *c, int file, int line) {
    if (c->coverage == NULL || file < 0 || file >= c->coverage->count) return 0;
    clua_coverage_file *f = &c->coverage->files[file];
    return line > 0 && line < f->size ? f->hits[line] : 0;
}

typedef struct clua_dump_bytes { unsigned char *data; size_t size, capacity; int failed; } clua_dump_bytes;

static int clua_dump_writer(lua_State *L, const void *p, size_t size, void *ud) {
    (void)L;
    clua_dump_bytes *b = ud;
    if (b->failed) return 1;
    if (b->size + size > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity < b->size + size) capacity *= 2;
        unsigned char *data = realloc(b->data, capacity);
        if (data == NULL) { b->failed = 1; return 1; }
        b->data = data;
        b->capacity = capacity;
    }
    memcpy(b->data + b->size, p, size);
    b->size += size;
    return 0;
}

// Why C: lua_dump takes a C writer. The bytecode of the Lua function on top (with its
// debug information: the line of every instruction) in host memory (free it with
// free), or NULL; the stack is left as it was and nothing here can raise.
unsigned char *clua_dump_top(lua_State *L, size_t *size) {
    clua_dump_bytes bytes = { NULL, 0, 0, 0 };
    *size = 0;
    if (lua_type(L, -1) != LUA_TFUNCTION || lua_iscfunction(L, -1)) return NULL;
    if (lua_dump(L, clua_dump_writer, &bytes, 0) != 0 || bytes.failed) {
        free(bytes.data);
        return NULL;
    }
    *size = bytes.size;
    return bytes.data;
}
