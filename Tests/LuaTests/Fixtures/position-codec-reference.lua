-- The Lua position encoder that position_codec.c replaced (dicehost-odds.lua before
-- issue 26 item 8), kept as the reference the C encoder must match byte for byte, and
-- random positions to compare the two on (PositionCodecReferenceTests.swift).
local raw_next, getmetatable, setmetatable, rawget, new_position_encoder, new_position_index = ...
-- The C decoder as an analysis uses it: the key numbered in a position index, decoded from there.
local positions = new_position_index()
local function decode_key(key, g, players, list) positions.decode(positions.number(key), g, players, list) end
local pack, concat, sort, type, mtype, select = string.pack, table.concat, table.sort, type, math.type, select
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
local function configure(fixed_list, stand_ins)
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

local no_ranks = {}

-- reference_key(g, players, timer_meta, drop_last_roll, host_key, ranked ids...) -> key
local function reference_key(g, players, timer_meta, drop_last_roll, host_key, ...)
  local key
  do
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
  return key
end

-- The C encoder over the same tables; fixed_changed raises as check_fixed does.
local function fixed_changed(k)
  error("not analysable: the script changed one of the runtime's metatables (field " .. tostring(k) .. "), which positions do not hold", 0)
end

-- Random positions from a seed (a linear congruential generator: no math.random).
local seed = 12345
local function rand(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed // 65536 % n + 1
end
local function pick(list) return list[rand(#list)] end

local Game = {__index = {kind = "g"}}
local Roll = {__index = {value = 1}, __name = "Roll"}
local Timer = {__index = {cancel = math.floor}, __name = "Timer"}
local Stand = {__index = function() return nil end}
local fixed_list = {Game, Roll, Timer, Stand}
local stand_ins = {setmetatable({}, Stand), setmetatable({}, Stand), setmetatable({}, Stand)}
configure(fixed_list, stand_ins)
local c_key = new_position_encoder(fixed_list, fixed, fixed_count, stand_in_of, consts, const_list, fixed_changed)

local keys = {1, 2, 3, 0, -1, 10, 2.5, -0.5, 1e300, 2^53, 2^63, -2^63, math.maxinteger, math.mininteger,
  9007199254740993, "a", "b", "", "id", "last_roll", "a|b", "x\0y", "x\0z", "x", "Z", "é", "10", true, false}
local scalars = {0, 7, -3, 0.1, 1/3, -0.0, 1e-300, math.huge, -math.huge, 2^63, math.mininteger,
  "", "|", "s|3|abc|", "\0\0", "long string " .. string.rep("x", 50), true, false}
local constants = {math.floor, string.format, coroutine.create(function() end), function() end}

-- A position: g, 1-3 players, up to 8 more tables with random fields, some with a
-- metatable of the position, one a timer; a fault now and then.
local function random_position()
  local g = setmetatable({}, Game)
  local players = {}
  for i = 1, rand(3) do players[i] = {} end
  local tables = {g}
  for i = 1, #players do tables[#tables + 1] = players[i] end
  for _ = 1, rand(9) - 1 do tables[#tables + 1] = {} end
  local timer = setmetatable({id = pick({1, 2, 3, 7, 2.0, "1"})}, Timer)
  tables[#tables + 1] = timer
  local roll = setmetatable({value = rand(6)}, Roll)
  for _, t in ipairs(tables) do
    if t ~= timer then
      for _ = 1, rand(7) - 1 do
        local r = rand(10)
        local v
        if r <= 5 then v = pick(scalars)
        elseif r <= 7 then v = pick(tables)
        elseif r == 8 then v = pick(constants)
        elseif r == 9 then v = roll
        else v = pick(fixed_list) end
        rawset(t, pick(keys), v)
      end
    end
  end
  g.players = players
  g.state = tables[#players + 2] or {}
  g.timer = timer
  for i, p in ipairs(players) do
    if rand(2) == 1 then p.last_roll = setmetatable({value = rand(6)}, Roll) end
    if rand(3) == 1 then p.me = i end
  end
  for i = #players + 2, #tables - 1 do
    if rand(4) == 1 then setmetatable(tables[i], pick(tables)) end
  end
  local fault = rand(40)
  if fault == 1 then rawset(pick(tables), {}, 1)
  elseif fault == 2 then rawset(pick(tables), math.floor, 1)
  elseif fault == 3 then setmetatable(pick(tables), {__mode = "k"})
  elseif fault == 4 then local mt = {}; setmetatable(pick(tables), mt); mt.__gc = true
  elseif fault == 5 then local p = pick(players); g.seen = p.last_roll
  elseif fault == 6 then g.seen = stand_ins[1]
  elseif fault == 7 then setmetatable(pick(tables), stand_ins[2])
  end
  return g, players
end

local function outcome(ok, result)
  if ok then return "key " .. result end
  return "error " .. tostring(result)
end

-- compare(count) -> positions compared, round trips, the errors both raised, mismatches
local function compare(count)
  local compared, round_trips, same_errors, mismatches = 0, 0, {}, {}
  for n = 1, count do
    local g, players = random_position()
    local drop = rand(2) == 1
    local patched = rand(50) == 1
    if patched then Roll.lucky = true end
    local weakened = rand(50) == 1  -- a runtime metatable that makes its tables weak
    if weakened then Roll.__mode = "k" end
    local ranks = ({{}, {1}, {2, 1}, {1, 2, 3}})[rand(4)]
    local host = "now " .. n
    local ok_lua, lua_result = pcall(reference_key, g, players, Timer, drop, host, table.unpack(ranks))
    local ok_c, c_result = pcall(c_key, g, players, Timer, drop, host, table.unpack(ranks))
    if patched then Roll.lucky = nil end
    if weakened then Roll.__mode = nil end
    compared = compared + 1
    local a, b = outcome(ok_lua, lua_result), outcome(ok_c, c_result)
    if a ~= b then
      mismatches[#mismatches + 1] = ("position %d: Lua %q, C %q"):format(n, a, b)
    elseif not ok_lua then
      same_errors[lua_result] = (same_errors[lua_result] or 0) + 1
    elseif #ranks == 3 then
      -- The C decoder puts the position back into fresh tables that encode the same
      -- (with ranks 1, 2, 3 a timer's id is its own rank, so it survives the trip).
      local g2, players2 = setmetatable({}, Game), {}
      for i = 1, #players do players2[i] = {} end
      decode_key(c_result, g2, players2, const_list)
      local ok_again, again = pcall(c_key, g2, players2, Timer, drop, host, table.unpack(ranks))
      if not ok_again or again ~= c_result then
        mismatches[#mismatches + 1] = ("position %d: decoded and encoded again: %q, first %q"):format(n, outcome(ok_again, again), c_result)
      end
      round_trips = round_trips + 1
    end
  end
  local kinds = {}
  for message in pairs(same_errors) do kinds[#kinds + 1] = message end
  table.sort(kinds)
  return compared, round_trips, kinds, mismatches
end

return compare
