import Lua

/// The canonical encoding of a game position, and its way back: the Lua half of exact
/// odds. Everything the rules can see is in the tables reachable from `g` (the state,
/// the players, `g.current`, params, the clock) plus the host's pending timers and the
/// outcome; the encoding walks those tables breadth first from `g` and its players,
/// keys sorted as `pairs` sorts them, so two positions the rules cannot tell apart
/// encode the same, and one that they can, differently.
///
/// The encodings (byte strings) live in the Lua state, which numbers them: Swift only
/// sees state numbers. Decoding puts a position back into the live `g` and player
/// tables in place (the host holds those by identity) and makes every other table anew.
///
/// What stands for things that are not data:
/// - functions, coroutines, userdata and metatables are the same objects in every
///   position (the prelude's Roll and Timer metatables, a rule's helpers): numbered by
///   identity;
/// - a timer handle's `id` is replaced by the timer's rank in the pending queue (0 for a
///   timer no longer pending), so positions that differ only in how many timers were
///   ever set are the same;
/// - with `dropsLastRoll`, the players' `last_roll` (kept by the runtime for
///   `r.previous`) is left out: the analysis turns it on only for scripts that never
///   mention `previous` or `last_roll`.
enum StateCodec {
    static let chunkName = "dicehost-odds"
    static let source = #"""
    local raw_next, getmetatable, setmetatable, rawget, rawset = ...
    local pack, unpack, concat, sort, type, mtype, select = string.pack, string.unpack, table.concat, table.sort, type, math.type, select

    local consts, const_list = {}, {}
    local function const_id(o)
      local id = consts[o]
      if not id then
        id = #const_list + 1
        const_list[id] = o
        consts[o] = id
      end
      return id
    end

    local rank_of_type = {number = 0, string = 1, boolean = 2}
    local function key_less(a, b)
      local ta, tb = rank_of_type[type(a)], rank_of_type[type(b)]
      if ta ~= tb then return ta < tb end
      if ta == 2 then return (not a) and b end
      return a < b
    end

    local index, keys_by_id, count = {}, {}, 0

    -- encode(g, players, timer_meta, drop_last_roll, host_key, terminal, ranked ids...) -> state number, is new
    local function encode(g, players, timer_meta, drop_last_roll, host_key, terminal, ...)
      local key
      if terminal then
        key = "T" .. host_key
      else
        local ranks = {}
        for r = 1, select("#", ...) do ranks[select(r, ...)] = r end
        local ids, order, n = {}, {}, 0
        local function visit(t) n = n + 1; ids[t] = n; order[n] = t end
        visit(g)
        local anchors = #players + 1
        for i = 1, #players do
          if ids[players[i]] then error("not analysable: a player table appears twice in g.players", 0) end
          visit(players[i])
        end
        local out, o = {}, 0
        local function value(v)
          local tv = type(v)
          if tv == "number" then
            if mtype(v) == "integer" then return pack("<Bj", 1, v) end
            return pack("<Bn", 2, v)
          elseif tv == "string" then return pack("<Bs4", 3, v)
          elseif tv == "boolean" then return v and "\4" or "\5"
          elseif tv == "table" then
            local id = ids[v]
            if not id then visit(v); id = n end
            return pack("<BI4", 6, id)
          else
            return pack("<BI4", 7, const_id(v))
          end
        end
        local i = 1
        while i <= n do
          local t = order[i]
          local mt = getmetatable(t)
          local keys, k = {}, 0
          local is_player = i > 1 and i <= anchors
          for key in raw_next, t do
            local tk = type(key)
            if tk ~= "number" and tk ~= "string" and tk ~= "boolean" then
              error("not analysable: a " .. tk .. " is used as a table key in the game state (keys must be numbers, strings or booleans)", 0)
            end
            if not (drop_last_roll and is_player and key == "last_roll") then
              k = k + 1
              keys[k] = key
            end
          end
          if k > 1 then sort(keys, key_less) end
          o = o + 1
          out[o] = pack("<I4I4", mt and const_id(mt) or 0, k)
          local is_timer = mt ~= nil and mt == timer_meta
          for j = 1, k do
            local key = keys[j]
            local v = rawget(t, key)
            if is_timer and key == "id" then v = ranks[v] or 0 end
            o = o + 1
            out[o] = value(key)
            o = o + 1
            out[o] = value(v)
          end
          i = i + 1
        end
        key = pack("<I4", n) .. concat(out) .. host_key
      end
      local id = index[key]
      if id then return id, false end
      count = count + 1
      index[key] = count
      keys_by_id[count] = key
      return count, true
    end

    -- decode(number, g, players): the position back into g and the players, in place.
    local function decode(number, g, players)
      local key = keys_by_id[number]
      local n, pos = unpack("<I4", key)
      local tables = {g}
      for i = 1, #players do tables[i + 1] = players[i] end
      for i = #players + 2, n do tables[i] = {} end
      local function value()
        local tag = key:byte(pos)
        pos = pos + 1
        local v
        if tag == 1 then v, pos = unpack("<j", key, pos)
        elseif tag == 2 then v, pos = unpack("<n", key, pos)
        elseif tag == 3 then v, pos = unpack("<s4", key, pos)
        elseif tag == 4 then v = true
        elseif tag == 5 then v = false
        elseif tag == 6 then
          local id
          id, pos = unpack("<I4", key, pos)
          v = tables[id]
        else
          local id
          id, pos = unpack("<I4", key, pos)
          v = const_list[id]
        end
        return v
      end
      for i = 1, n do
        local t = tables[i]
        if i <= #players + 1 then
          for k in raw_next, t do rawset(t, k, nil) end
        end
        local mt, k
        mt, k, pos = unpack("<I4I4", key, pos)
        for _ = 1, k do
          local kk = value()
          rawset(t, kk, value())
        end
        local want = mt > 0 and const_list[mt] or nil
        if getmetatable(t) ~= want then setmetatable(t, want) end
      end
    end

    local function state_count() return count end

    return {encode = encode, decode = decode, state_count = state_count}
    """#

    struct Functions {
        var encode: LuaValue
        var decode: LuaValue
    }

    static func load(into lua: LuaState) throws -> Functions {
        let chunk = try lua.load(source, chunkName: chunkName)
        let globals = lua.globals
        let arguments: [LuaValue] = [lua.rawNext, lua.get(globals, "getmetatable"), lua.get(globals, "setmetatable"),
                                     lua.get(globals, "rawget"), lua.get(globals, "rawset")]
        guard case .table(let exports)? = try lua.call(.function(chunk), arguments, budget: .some(nil)).first else {
            throw OddsError.internal("the odds codec did not load")
        }
        return Functions(encode: lua.get(exports, "encode"), decode: lua.get(exports, "decode"))
    }
}
