local raw_next, new_position_encoder, new_position_index = ...
-- new_position_encoder makes the walk below in C, the index's decode its way back
-- (position_codec.c); both see a table's true metatable (past __metatable).
-- new_position_index numbers the keys (position_index.c): they are kept in C, outside
-- the Lua heap, so the collector never walks them and the game's memory cap holds for
-- the script alone beside every position found.

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

-- The runtime's own metatables (g's, Roll, Timer, Card, the last roll's stand-in) stay
-- the same objects in every position: constants, their contents checked unchanged
-- wherever a position reaches them. Every other metatable is data like any table.
local fixed, fixed_count = {}, {}
local stand_in_of = {}
local observed = function() return false end
local build_key = nil
local function fixed_changed(k)
  error("not analysable: the script changed one of the runtime's metatables (field " .. tostring(k) .. "), which positions do not hold", 0)
end
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
  build_key = new_position_encoder(fixed_list, fixed, fixed_count, stand_in_of, consts, const_list, fixed_changed)
end

local positions = new_position_index()
local number_key, decode_number = positions.number, positions.decode

-- A position is a string of tokens joined by "|": the number of tables, then per
-- table (breadth first from g and the players) its metatable (0: none, c3: a fixed
-- metatable by number, t4: a table of the position),
-- its number of keys, and key, value pairs in pairs order. A value is a tag and its
-- text: i 42 (integer), f <8 raw bytes> (float), s 5 <5 raw bytes> (string), T, F,
-- t 3 (table number), c 2 (a function, coroutine, userdata or metatable by number).
-- Keys are sorted numbers first, then strings, then booleans (false before true), each
-- type by Lua's <. A runtime metatable is checked unchanged (field by field, raw) once
-- per position that reaches it; a metatable with __gc or __mode is refused.
-- The walk is C (build_key, position_codec.c: one call per position, the same bytes
-- as the Lua encoder it replaced); the tables it numbers constants in, the runtime
-- metatables and the stand-ins are the ones here.
-- With drop_last_roll, each player's last_roll is left out (a stand-in holds its place,
-- see dicehost-odds-watch.lua); meeting it anywhere else means a hook can reach it:
-- the error "restart: ..." asks for the analysis again with last rolls kept.
-- encode(g, players, timer_meta, drop_last_roll, host_key, terminal, ranked ids...) -> state number, is new
-- Statistics (rules.statistics): fields of g.state and of the players that later play
-- never depends on (a roll counter read only by g:record). Once remember_statistics has
-- taken their values at the start, every position holds those starting values in their
-- place (forget_statistics, before the walk), so positions that differ only there are
-- one. The values are copied (a table among them too), never shared between positions.
local statistic_names, statistic_start = nil, nil
local function copy_data(v, seen)
  if type(v) ~= "table" then return v end
  local made = seen[v]
  if made then return made end
  made = {}
  seen[v] = made
  for k, x in raw_next, v do made[copy_data(k, seen)] = copy_data(x, seen) end
  return made
end

local function remember_statistics(g, players, names)
  local state = rawget(g, "state")
  local start = {state = {}, players = {}}
  for i = 1, #names do
    local name = names[i]
    if type(state) == "table" then start.state[name] = copy_data(rawget(state, name), {}) end
    for seat = 1, #players do
      start.players[seat] = start.players[seat] or {}
      start.players[seat][name] = copy_data(rawget(players[seat], name), {})
    end
  end
  statistic_names, statistic_start = names, start
end

local function forget_statistics(g, players)
  local names = statistic_names
  if not names then return end
  local state = rawget(g, "state")
  for i = 1, #names do
    local name = names[i]
    if type(state) == "table" then rawset(state, name, copy_data(statistic_start.state[name], {})) end
    for seat = 1, #players do
      local start = statistic_start.players[seat]
      rawset(players[seat], name, copy_data(start and start[name], {}))
    end
  end
end

-- The position's key as encode makes it (statistics forgotten first), without numbering it.
local function key_of(g, players, timer_meta, drop_last_roll, host_key, terminal, ...)
  if terminal then return "T" .. host_key end
  forget_statistics(g, players)
  return build_key(g, players, timer_meta, drop_last_roll, host_key, ...)
end

local function encode(g, players, timer_meta, drop_last_roll, host_key, terminal, ...)
  if drop_last_roll and observed() then error("restart: a hook looked into a player's last roll", 0) end
  return number_key(key_of(g, players, timer_meta, drop_last_roll, host_key, terminal, ...))
end

-- decode(number, g, players): the position back into g and the players, in place
-- (the index's decode, position_codec.c's decoder reading the key where the index keeps
-- it): every other table made anew, metatables set raw.
local function decode(number, g, players)
  decode_number(number, g, players, const_list)
end

local state_count = positions.count

return {encode = encode, decode = decode, state_count = state_count, configure = configure,
        key_of = key_of, remember_statistics = remember_statistics, forget_statistics = forget_statistics}
