// The system Lua 5.4 (Debian: liblua5.4-dev, found through pkg-config lua5.4), as a
// module Swift can import. Nothing else lives here: DiceHost's own C helpers are the
// CLuaSupport target, one file per concern.
#ifndef CLUA_SHIM_H
#define CLUA_SHIM_H
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#endif
