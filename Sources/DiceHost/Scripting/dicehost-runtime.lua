local host = ...
local format, concat, select, type, tostring, next, setmetatable, getmetatable, rawget, rawset, random, integer_type =
  string.format, table.concat, select, type, tostring, next, setmetatable, getmetatable, rawget, rawset, math.random, math.type
-- Whole-table copies use Lua's own next: the order cannot show in a copy, and the
-- sandbox's ordered next sorts the keys each time.
local raw_next = host.raw_next
local quiet = false
-- While a fast simulation plays (FastSimulationDriver): its own versions of the host
-- calls that keep game state (timers), so no step crosses into the host.
local sim = nil

local render_data -- g:emit's table form, defined below
-- g: the game, passed to every hook. Data lives in its fields; methods here.
local G = {}
G.__index = G
function G:say(fmt, ...)
  if quiet then return end
  if select("#", ...) > 0 then fmt = format(fmt, ...) end
  host.say(tostring(fmt))
end
-- g:tell(p, fmt, ...): text for one player (or a list of players) only.
function G:tell(to, fmt, ...)
  if to == nil then error("bad argument #1 to 'tell' (player or list of players expected, got nil)", 2) end
  -- (quiet - a simulation - shows no text, but the audience is checked as in play)
  if quiet then return host.say("", to) end
  if select("#", ...) > 0 then fmt = format(fmt, ...) end
  host.say(tostring(fmt), to)
end
-- g:emit(name, data [, to]): a custom event, for everyone or for `to` only.
function G:emit(name, data, to)
  if type(data) == "table" then data = render_data(data, 0) end
  host.emit(name, data ~= nil and tostring(data) or nil, to)
end
-- g:reveal(p [, r]): a secret roll (p's last roll by default) shown to everyone.
function G:reveal(p, r) host.reveal(p, r) end
function G:next_turn(p) host.next_turn(p) end
function G:win(p) host.finish("win", p) end
function G:lose(p) host.finish("lose", p) end
function G:draw() host.finish("draw") end
function G:eliminate(p) host.finish("eliminate", p) end
function G:record(metric, value) host.record(metric, value) end
function G:player(name) for _, p in ipairs(self.players) do if p.name == name then return p end end end
function G:is_over() return host.is_over() end

-- Rolls print with die glyphs: "⚂ ⚄ = 8".
local glyphs = {"⚀", "⚁", "⚂", "⚃", "⚄", "⚅"}
local function glyph(n) return glyphs[n] or ("[" .. tostring(n) .. "]") end
local Roll = {}
Roll.__index = Roll
Roll.__tostring = function(r)
  if not r.ok then return r.flag end
  local faces = {}
  for i, v in ipairs(r.values) do faces[i] = glyph(v) end
  if #r.values == 1 and r.total == r.values[1] then return faces[1] end
  return concat(faces, " ") .. " = " .. r.total
end
local function make_roll(values, total, flag, previous)
  local doubles = #values > 1
  for i = 2, #values do if values[i] ~= values[1] then doubles = false end end
  return setmetatable({values = values, value = values[1], total = total, flag = flag,
                       ok = flag == "ok", doubles = doubles, previous = previous}, Roll)
end

-- Dice: rolls drawn from the game's generator, printable like the host's.
local dice = {
  roll = function(notation)
    local values, total = host.dice_values(notation)
    return make_roll(values, total, "ok")
  end,
  glyph = glyph,
}

-- Timers: handles with :cancel().
local Timer = {}
Timer.__index = Timer
Timer.__name = "dicehost.timer"  -- how `state` knows a handle (StateRenderer.swift) and leaves it out
function Timer:cancel()
  if sim then return sim.cancel(self.id) end
  host.cancel(self.id)
end
-- The milliseconds until the timer fires next (nil once it fired or was cancelled): what
-- a table's countdown shows.
function Timer:left()
  if sim then return nil end
  return host.left(self.id)
end
local timer = {
  after = function(ms, fn)
    if sim then return setmetatable({id = sim.after(ms, fn, false)}, Timer) end
    return setmetatable({id = host.after(ms, fn, false)}, Timer)
  end,
  every = function(ms, fn)
    if sim then return setmetatable({id = sim.after(ms, fn, true)}, Timer) end
    return setmetatable({id = host.after(ms, fn, true)}, Timer)
  end,
}

-- Cards: a 52-card deck, shuffled by the game's generator.
local Card = {}
Card.__index = Card
local rank_names = {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"}
Card.__tostring = function(c) return rank_names[c.rank] .. c.suit end
Card.__eq = function(a, b) return a.rank == b.rank and a.suit == b.suit end
local cards = {}

-- hidden(what, count): a thing shown as hidden with its public facts, for views:
-- hidden("cards", 12) (a face-down stack), hidden("dice", 5) (a cup). Front ends draw
-- it as backs with a count.
local Hidden = {}
Hidden.__index = Hidden
Hidden.__tostring = function(h) return "(" .. tostring(h.count) .. " " .. tostring(h.what) .. " hidden)" end
local function hidden(what, count)
  if type(what) ~= "string" then error("bad argument #1 to 'hidden' (what is hidden, e.g. \"dice\" or \"cards\", expected, got " .. type(what) .. ")", 2) end
  if integer_type(count) ~= "integer" or count < 0 then error("bad argument #2 to 'hidden' (a count from 0 expected, got " .. tostring(count) .. ")", 2) end
  return setmetatable({hidden = true, what = what, count = count}, Hidden)
end

-- The view of a game with secret_rolls and no view hook (the host reads the rules'
-- view as this, so play, a served seat, fair bots, the fast simulation's bots and best
-- play all see the same): g.state and the players, as without secrets, but another
-- player's last roll is a cup, hidden("dice", n); the viewer's own stays a roll (a
-- spectator sees every cup hidden). Only the host's record of a roll is hidden: what
-- the rules keep of it elsewhere in g needs a view hook of their own.
local function secret_rolls_view(g, viewer)
  local players, seen = {}, rawget(g, "players")
  if type(seen) ~= "table" then seen = {} end
  for i = 1, rawlen(seen) do
    local p = rawget(seen, i)
    local last = type(p) == "table" and rawget(p, "last_roll") or nil
    if type(last) == "table" and not rawequal(p, viewer) then
      local copy = {}
      for k, v in raw_next, p do copy[k] = v end
      local values = rawget(last, "values")
      copy.last_roll = hidden("dice", type(values) == "table" and rawlen(values) or 0)
      p = copy
    end
    players[i] = p
  end
  return {state = rawget(g, "state"), players = players}
end
function cards.deck()
  local deck = {}
  for _, suit in ipairs({"♠", "♥", "♦", "♣"}) do
    for rank = 1, 13 do deck[#deck + 1] = setmetatable({rank = rank, suit = suit}, Card) end
  end
  return deck
end
function cards.shuffle(t)
  for i = #t, 2, -1 do
    local j = math.random(i)
    t[i], t[j] = t[j], t[i]
  end
  return t
end
function cards.name(c) return tostring(c) end

-- g:emit(name, t): a table's contents, keys in pairs order (numbers ascending, then
-- strings), as the REPL's `state` shows them: {a=1, hand={A♠, 10♥}}, "{…}" past 4
-- levels. Rolls, cards and tables with __tostring print as tostring does.
local getmetatable = getmetatable
function render_data(v, depth)
  local kind = type(v)
  if kind == "string" then return depth > 0 and ('"' .. v .. '"') or v end
  if kind ~= "table" then return tostring(v) end
  local mt = getmetatable(v)
  if type(mt) == "table" and rawget(mt, "__tostring") ~= nil then return tostring(v) end
  if depth >= 4 then return "{…}" end
  local keys, n, array = {}, 0, true
  for k in next, v do
    n = n + 1
    keys[n] = k
    if k ~= n then array = false end
  end
  local items = {}
  for i = 1, n do
    local k = keys[i]
    local shown = render_data(rawget(v, k), depth + 1)
    if array then items[i] = shown
    elseif type(k) == "string" then items[i] = k .. "=" .. shown
    else items[i] = "[" .. render_data(k, depth + 1) .. "]=" .. shown end
  end
  return "{" .. concat(items, ", ") .. "}"
end

-- rules{...} declares a rule set; rules.extend(base, {...}) makes a variant.
local rules = setmetatable({}, {__call = function(_, declaration) return host.declare(declaration) end})
function rules.extend(base, changes)
  if type(base) ~= "table" then error("bad argument #1 to 'extend' (rule table expected, got " .. type(base) .. ")", 2) end
  local variant = {}
  for k, v in raw_next, base do variant[k] = v end
  local params = {}
  for k, v in raw_next, base.params or {} do params[k] = v end
  for k, v in raw_next, (changes or {}).params or {} do params[k] = v end
  local actions = {}
  for k, v in raw_next, base.actions or {} do actions[k] = v end
  variant.actions = actions
  for k, v in raw_next, changes or {} do if k ~= "params" then variant[k] = v end end
  variant.params = params
  variant.base = base
  return host.declare(variant)
end

-- Roll tables are reused: each player has two, and a roll goes into the one that is
-- not the player's last roll (which stays its `previous`), emptied first. So a
-- hook may read a roll, change it, and see it again as the next roll's previous, but
-- a roll it keeps elsewhere is overwritten two rolls later: scripts keep numbers, not
-- rolls. (A simulation makes no table per roll this way; FastSimulationDriver does the
-- same, writing a roll's own fields in place.)
local spare_rolls = setmetatable({}, {__mode = "k"})
local function fill_roll(r, into, values, total, flag, previous)
  if getmetatable(r) ~= nil and getmetatable(r) ~= Roll then error("a roll table's metatable was changed", 0) end
  for k in raw_next, r do rawset(r, k, nil) end
  for k in raw_next, into do rawset(into, k, nil) end
  for i = 1, #values do rawset(into, i, values[i]) end
  local doubles = #values > 1
  for i = 2, #values do if values[i] ~= values[1] then doubles = false end end
  rawset(r, "values", into)
  rawset(r, "value", values[1])
  rawset(r, "total", total)
  rawset(r, "flag", flag)
  rawset(r, "ok", flag == "ok")
  rawset(r, "doubles", doubles)
  rawset(r, "previous", previous)
  setmetatable(r, Roll)
end

-- A roll reaches the rules: fill it in, run the hook, keep it as the player's last.
local function deliver_roll(hook, g, p, values, total, flag)
  local previous = rawget(p, "last_roll")
  local pair = spare_rolls[p]
  if pair == nil then
    pair = {{}, {}, {}, {}}
    spare_rolls[p] = pair
  end
  local k = 1
  if pair[1] == previous then k = 2 end
  local r = pair[k]
  fill_roll(r, pair[k + 2], values, total, flag, previous)
  hook(g, p, r)
  if r.ok then r.previous = nil; p.last_roll = r end
end
-- One Lua call per roll from the host.
local function roll_input(hook, g, p, total, flag, ...)
  deliver_roll(hook, g, p, {...}, total, flag)
end
-- A roll that kept some dice of the last one: r.kept lists their positions.
local function roll_input_kept(hook, g, p, total, flag, kept, ...)
  local r = make_roll({...}, total, flag, rawget(p, "last_roll"))
  r.kept = kept
  hook(g, p, r)
  r.previous = nil
  p.last_roll = r
end

-- Simulations: a game starts, and its bots play move after move, in one call from
-- the host each, which is what makes a million games affordable. Each step does what
-- the host's input path does (setup, a bot's choice, a roll, a turn hook) and begins
-- A move (a bot's choice, its roll and the turns it passes) is one input: it begins
-- with begin_step (a fresh budget, and progress a watchdog sees), as the host gives
-- each input one budget.
local passes_allowed = host.turn_pass_limit
local is_over, take_turn, begin_step = host.is_over, host.take_turn, host.begin_step
-- The turn hook for each g:next_turn a hook asked for (the host's drainPendingTurns);
-- returns whether the game is over.
local function drain_turns(g, turn_hook)
  local passes = 0
  local q, over = take_turn()
  while q do
    passes = passes + 1
    if passes > passes_allowed then
      error("the turn hook passed the turn " .. passes_allowed .. " times without waiting for input", 0)
    end
    if turn_hook then turn_hook(g, q) end
    q, over = take_turn()
  end
  return over
end

-- A fresh g: a player table per name (first to play), and a copy of the params.
local function new_game(names, params)
  local players = {}
  for i = 1, #names do
    players[i] = {name = names[i], seat = i, eliminated = false}
    -- The player's roll tables, made now: made at a first roll instead, an undone
    -- first roll would leave them made, and later tables would number differently.
    spare_rolls[players[i]] = {{}, {}, {}, {}}
  end
  local copy = {}
  for k, v in raw_next, params do copy[k] = v end
  return setmetatable({players = players, state = {}, params = copy, now = 0, current = players[1]}, G), players
end

-- A simulation's new game in one call: g, setup, and the first turn.
local function start_game(names, params, setup, turn_hook)
  local g, players = new_game(names, params)
  host.adopt(g, players)
  begin_step()
  if setup then setup(g) end
  local current = g.current
  host.first_turn(type(current) == "table" and current.seat or nil)
  drain_turns(g, turn_hook)
end

-- Bots' moves until the game ends or `limit` moves. Dice come from the game's
-- generator one draw per die, as the host draws them (or from the host for kept or
-- exploding dice), so the game is the one `dicehost play --seed ... --auto` plays.
-- A move that is not a plain roll goes back to the host. Returns moves made, rolls
-- made, and then either nothing (over, or the limit reached), "move" and the bot's
-- choice, or "host" (the host makes the whole move: there is no current player).
local function bot_moves(g, bot, roll_hook, turn_hook, limit, count, sides, modifier, notation, dice_text)
  local moves, rolls = 0, 0
  local over = is_over()
  while moves < limit and not over do
    local p = rawget(g, "current")
    if type(p) ~= "table" or integer_type(rawget(p, "seat")) ~= "integer" then return moves, rolls, "host" end
    -- A player whose dice differ from the declared ones (p.dice, g.params.dice): the host rolls.
    if rawget(p, "dice") ~= nil or rawget(rawget(g, "params"), "dice") ~= dice_text then return moves, rolls, "host" end
    begin_step()
    if bot then
      local choice = bot(g, p)
      if choice ~= nil and choice ~= "roll" then return moves, rolls, "move", choice end
    end
    local values, total
    if notation then
      values, total = host.dice_values(notation)
    else
      values, total = {}, modifier
      for i = 1, count do
        local v = random(sides)
        values[i] = v
        total = total + v
      end
    end
    rolls = rolls + 1
    deliver_roll(roll_hook, g, p, values, total, "ok")
    over = drain_turns(g, turn_hook)
    moves = moves + 1
  end
  return moves, rolls
end

local function set_quiet(q) quiet = q end
local function set_sim(s) sim = s end

return {
  rules = rules, timer = timer, cards = cards, dice = dice, hidden = hidden, secret_rolls_view = secret_rolls_view,
  new_game = new_game, make_roll = make_roll, roll_input = roll_input, roll_input_kept = roll_input_kept, start_game = start_game, bot_moves = bot_moves,
  set_quiet = set_quiet,
  -- for the fast simulation driver
  set_sim = set_sim, G = G, Roll = Roll, Timer = Timer, dice_values = host.dice_values, raw_next = raw_next,
  -- G as the prelude made it, before any script could change it (getmetatable(g) gives G)
  G_made = (function() local copy = {} for k, v in raw_next, G do copy[k] = v end return copy end)(),
}
