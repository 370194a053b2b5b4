// Why this file: the host's own Lua chunks (the prelude, the runtime) are the same in
// every state, and their debug info (line numbers, local names) was most of what they
// held: about 7 KiB of each idle room. The host compiles each once per
// process, dumps it without debug info (lua_dump has a writer callback) and loads those
// bytes as a binary chunk (mode "b") into each new state. Scripts never get here: their
// chunks load in text mode only (clua_load_text) and keep their line numbers.
#include "CLuaSupport.h"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

typedef struct { unsigned char *bytes; size_t length, capacity; int failed; } clua_dump_buffer;

static int clua_dump_writer(lua_State *L, const void *p, size_t size, void *ud) {
    (void)L;
    clua_dump_buffer *b = ud;
    if (b->failed) return 1;
    if (size > SIZE_MAX / 2 - b->length) { b->failed = 1; return 1; }
    if (b->length + size > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity < b->length + size) capacity *= 2;
        unsigned char *grown = realloc(b->bytes, capacity);
        if (grown == NULL) { b->failed = 1; return 1; }
        b->bytes = grown;
        b->capacity = capacity;
    }
    memcpy(b->bytes + b->length, p, size);
    b->length += size;
    return 0;
}

unsigned char *clua_dump_stripped(lua_State *L, size_t *length) {
    clua_dump_buffer b = {NULL, 0, 0, 0};
    *length = 0;
    if (!lua_isfunction(L, -1) || lua_iscfunction(L, -1)) return NULL;
    if (lua_dump(L, clua_dump_writer, &b, 1) != 0 || b.failed) {
        free(b.bytes);
        return NULL;
    }
    *length = b.length;
    return b.bytes;
}

void clua_free_dump(unsigned char *bytes) { free(bytes); }

// Why a state of its own: compiling in the state that will run the chunk would make
// that one state (the first of the process) allocate more and stamp more serials than
// every later one, so `tostring({})` and the order of table keys would depend on which
// state of the process came first. A scratch state with no limits compiles and dumps,
// and is closed; the state being built only ever loads the bytes.
unsigned char *clua_compile_stripped(const char *text, size_t text_length, const char *name,
                                     size_t *length, char *message, size_t message_size) {
    *length = 0;
    if (message_size > 0) message[0] = 0;
    lua_State *L = luaL_newstate();
    if (L == NULL) {
        if (message_size > 0) snprintf(message, message_size, "not enough memory to compile %s", name);
        return NULL;
    }
    unsigned char *bytes = NULL;
    if (luaL_loadbufferx(L, text, text_length, name, "t") != LUA_OK) {
        const char *error = lua_tostring(L, -1);
        if (message_size > 0) snprintf(message, message_size, "%s", error ? error : "cannot compile");
    } else {
        bytes = clua_dump_stripped(L, length);
        if (bytes == NULL && message_size > 0) snprintf(message, message_size, "cannot dump %s", name);
    }
    lua_close(L);
    return bytes;
}

int clua_load_host_binary(lua_State *L, const unsigned char *bytes, size_t length, const char *name) {
    clua_context *c = clua_ctx(L);
    int saved = c->enforce_memory;
    c->enforce_memory = 1;
    int status = luaL_loadbufferx(L, (const char *)bytes, length, name, "b");
    c->enforce_memory = saved;
    return status;
}
