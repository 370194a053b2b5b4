local raw_next, getmetatable, setmetatable, rawget, rawset = ...
-- getmetatable and setmetatable here are the raw ones (past __metatable).
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

-- The runtime's own metatables (g's, Roll, Timer, Card, the last roll's stand-in) stay
-- the same objects in every position: constants, their contents checked unchanged
-- wherever a position reaches them. Every other metatable is data like any table.
local fixed, fixed_count = {}, {}
local stand_in_of = {}
local observed = function() return false end
local function configure(fixed_list, stand_ins, observed_function)
  observed = observed_function
  for i = 1, #fixed_list do
    local mt = fixed_list[i]
    local copy, n = {}, 0
    for k, v in raw_next, mt do copy[k] = v; n = n + 1 end
    fixed[mt] = copy
    fixed_count[mt] = n
    const_id(mt)
  end
  for i = 1, #stand_ins do stand_in_of[i] = stand_ins[i] end
end
local function check_fixed(mt)
  local copy, n = fixed[mt], 0
  for k, v in raw_next, mt do
    n = n + 1
    if copy[k] ~= v then
      error("not analysable: the script changed one of the runtime's metatables (field " .. tostring(k) .. "), which positions do not hold", 0)
    end
  end
  if n ~= fixed_count[mt] then
    error("not analysable: the script changed one of the runtime's metatables, which positions do not hold", 0)
  end
end

local index, keys_by_id, count = {}, {}, 0
local no_ranks = {}

-- A position is a string of tokens joined by "|": the number of tables, then per
-- table (breadth first from g and the players) its metatable (0: none, c3: a fixed
-- metatable by number, t4: a table of the position),
-- its number of keys, and key, value pairs in pairs order. A value is a tag and its
-- text: i 42 (integer), f <8 raw bytes> (float), s 5 <5 raw bytes> (string), T, F,
-- t 3 (table number), c 2 (a function, coroutine, userdata or metatable by number).
-- One table.concat makes the string: far fewer C calls than packing each value.
-- With drop_last_roll, each player's last_roll is left out (a stand-in holds its place,
-- see dicehost-odds-watch.lua); meeting it anywhere else means a hook can reach it:
-- the error "restart: ..." asks for the analysis again with last rolls kept.
-- encode(g, players, timer_meta, drop_last_roll, host_key, terminal, ranked ids...) -> state number, is new
local function encode(g, players, timer_meta, drop_last_roll, host_key, terminal, ...)
  if drop_last_roll and observed() then error("restart: a hook looked into a player's last roll", 0) end
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
    local hidden = nil
    if drop_last_roll then
      hidden = {}
      for i = 1, #players do
        local last = rawget(players[i], "last_roll")
        if type(last) == "table" then hidden[last] = true end
        local s = stand_in_of[i]
        if s then hidden[s] = true end
      end
    end
    local checked = {}
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
        if fixed[v] then
          if not checked[v] then checked[v] = true; check_fixed(v) end
          out[o + 1] = "c"; out[o + 2] = const_id(v)
        else
          if hidden and hidden[v] then error("restart: a hook can reach a player's last roll", 0) end
          local id = ids[v]
          if not id then n = n + 1; ids[v] = n; order[n] = v; id = n end
          out[o + 1] = "t"; out[o + 2] = id
        end
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
      local last_roll = nil
      for key in raw_next, t do
        local tk = type(key)
        if tk ~= "number" and tk ~= "string" and tk ~= "boolean" then
          error("not analysable: a " .. tk .. " is used as a table key in the game state (keys must be numbers, strings or booleans)", 0)
        end
        if drop_last_roll and is_player and key == "last_roll" and type(rawget(t, key)) == "table" then
          last_roll = stand_in_of[i - 1]
        else
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
      local mt_token = 0
      if mt ~= nil then
        if fixed[mt] then
          if not checked[mt] then checked[mt] = true; check_fixed(mt) end
          mt_token = "c" .. const_id(mt)
        else
          if rawget(mt, "__gc") ~= nil or rawget(mt, "__mode") ~= nil then
            error("not analysable: a metatable in the game state has __gc or __mode (what it holds would depend on garbage collection)", 0)
          end
          if hidden and hidden[mt] then error("restart: a hook can reach a player's last roll", 0) end
          local id = ids[mt]
          if not id then n = n + 1; ids[mt] = n; order[n] = mt; id = n end
          mt_token = "t" .. id
        end
      end
      out[o + 1] = mt_token
      out[o + 2] = last_roll and k + 1 or k
      o = o + 2
      if last_roll then
        put("last_roll")
        out[o + 1] = "c"; out[o + 2] = const_id(last_roll)
        o = o + 2
      end
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
    local mt = token()
    local k = tonumber(token())
    for _ = 1, k do
      local kk = value()
      rawset(t, kk, value())
    end
    local want = nil
    if mt ~= "0" then
      local number = tonumber(sub(mt, 2))
      if byte(mt) == 99 then want = const_list[number] else want = tables[number] end -- 99: "c"
    end
    if getmetatable(t) ~= want then setmetatable(t, want) end
  end
end

local function state_count() return count end

return {encode = encode, decode = decode, state_count = state_count, configure = configure}
