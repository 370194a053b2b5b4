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
local no_ranks = {}

-- A position is a string of tokens joined by "|": the number of tables, then per
-- table (breadth first from g and the players) its metatable's number (0: none),
-- its number of keys, and key, value pairs in pairs order. A value is a tag and its
-- text: i 42 (integer), f <8 raw bytes> (float), s 5 <5 raw bytes> (string), T, F,
-- t 3 (table number), c 2 (a function, coroutine, userdata or metatable by number).
-- One table.concat makes the string: far fewer C calls than packing each value.
-- encode(g, players, timer_meta, drop_last_roll, host_key, terminal, ranked ids...) -> state number, is new
local function encode(g, players, timer_meta, drop_last_roll, host_key, terminal, ...)
  local key
  if terminal then
    key = "T" .. host_key
  else
    local ranks = no_ranks
    local timers = select("#", ...)
    if timers > 0 then
      ranks = {}
      for r = 1, timers do ranks[select(r, ...)] = r end
    end
    local ids, order, n = {}, {}, 0
    ids[g] = 1; order[1] = g; n = 1
    local anchors = #players + 1
    for i = 1, #players do
      local p = players[i]
      if ids[p] then error("not analysable: a player table appears twice in g.players", 0) end
      n = n + 1; ids[p] = n; order[n] = p
    end
    local out, o = {}, 1
    local function put(v)
      local tv = type(v)
      if tv == "number" then
        if mtype(v) == "integer" then out[o + 1] = "i"; out[o + 2] = v
        else out[o + 1] = "f"; out[o + 2] = pack("<n", v) end
        o = o + 2
      elseif tv == "string" then
        out[o + 1] = "s"; out[o + 2] = #v; out[o + 3] = v
        o = o + 3
      elseif tv == "boolean" then
        o = o + 1; out[o] = v and "T" or "F"
      elseif tv == "table" then
        local id = ids[v]
        if not id then n = n + 1; ids[v] = n; order[n] = v; id = n end
        out[o + 1] = "t"; out[o + 2] = id
        o = o + 2
      else
        out[o + 1] = "c"; out[o + 2] = const_id(v)
        o = o + 2
      end
    end
    local i = 1
    while i <= n do
      local t = order[i]
      local mt = getmetatable(t)
      local keys, k = {}, 0
      local is_player = i > 1 and i <= anchors
      local kinds = nil  -- the one type of every key, or false when mixed
      for key in raw_next, t do
        local tk = type(key)
        if tk ~= "number" and tk ~= "string" and tk ~= "boolean" then
          error("not analysable: a " .. tk .. " is used as a table key in the game state (keys must be numbers, strings or booleans)", 0)
        end
        if not (drop_last_roll and is_player and key == "last_roll") then
          k = k + 1
          keys[k] = key
          if kinds == nil then kinds = tk elseif kinds ~= tk then kinds = false end
        end
      end
      -- Keys of one type (nearly always) sort with Lua's own < in C, much faster
      -- than calling key_less; booleans and mixed keys need key_less.
      if k > 1 then
        if kinds == "string" or kinds == "number" then sort(keys) else sort(keys, key_less) end
      end
      out[o + 1] = mt and const_id(mt) or 0
      out[o + 2] = k
      o = o + 2
      local is_timer = mt ~= nil and mt == timer_meta
      for j = 1, k do
        local key = keys[j]
        local v = rawget(t, key)
        if is_timer and key == "id" then v = ranks[v] or 0 end
        put(key)
        put(v)
      end
      i = i + 1
    end
    out[1] = n
    out[o + 1] = host_key
    key = concat(out, "|")
  end
  local id = index[key]
  if id then return id, false end
  count = count + 1
  index[key] = count
  keys_by_id[count] = key
  return count, true
end

-- decode(number, g, players): the position back into g and the players, in place.
local find, sub, byte, tonumber = string.find, string.sub, string.byte, tonumber
local function decode(number, g, players)
  local key = keys_by_id[number]
  local pos = 1
  local function token()
    local e = find(key, "|", pos, true)
    local t = sub(key, pos, e - 1)
    pos = e + 1
    return t
  end
  local function raw(length)
    local t = sub(key, pos, pos + length - 1)
    pos = pos + length + 1
    return t
  end
  local n = tonumber(token())
  local tables = {g}
  for i = 1, #players do tables[i + 1] = players[i] end
  for i = #players + 2, n do tables[i] = {} end
  local function value()
    local tag = token()
    if tag == "i" then return math.tointeger(tonumber(token()))
    elseif tag == "f" then return (unpack("<n", raw(8)))
    elseif tag == "s" then return raw(tonumber(token()))
    elseif tag == "T" then return true
    elseif tag == "F" then return false
    elseif tag == "t" then return tables[tonumber(token())]
    else return const_list[tonumber(token())] end
  end
  for i = 1, n do
    local t = tables[i]
    if i <= #players + 1 then
      for k in raw_next, t do rawset(t, k, nil) end
    end
    local mt = tonumber(token())
    local k = tonumber(token())
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
