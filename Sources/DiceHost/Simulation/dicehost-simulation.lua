local runtime, native, led, limits = ...
local Roll, G, set_sim, dice_values, raw_next = runtime.Roll, runtime.G, runtime.set_sim, runtime.dice_values, runtime.raw_next
local next_game, new_game, reset, raw_set, set_metatable, random =
  native.next_game, native.new_game, native.reset, native.rawset, native.setmetatable, native.random
local type, math_type, rawget, rawequal, error, tostring, select =
  type, math.type, rawget, rawequal, error, tostring, select
local find, huge, unpack, getmetatable, rawlen, utf8_len = string.find, math.huge, table.unpack, getmetatable, rawlen, utf8.len

-- What the host charges a host call and a turn pass, plus the instructions of the
-- host's own wrappers around them: charged here, so no game passes its budget here
-- that would not pass it in play.
local HOST = limits.host_call + 16
local TURN = limits.turn_pass + HOST
local PASSES = limits.turn_pass_limit
local MAX_DELAY, MAX_TIMERS = limits.timer_delay, limits.pending_timers
local MAX_MS, MAX_BLINKS, MAX_PRIORITY = limits.led_ms, limits.blink_count, limits.led_priority
-- The most dice a roll (p.dice) or a reveal may hold, and the largest die value revealed.
local MAX_DICE, MAX_VALUE = limits.max_dice, limits.max_die_value
-- Records per game kept here; a game that records more is left to the host, which
-- counts their memory against the game's limit. A call ends after the game that takes
-- the block's log past MAX_LOGGED records (the host counts the log, and calls again).
local MAX_RECORDS, MAX_LOGGED = 10000, 100000
-- LED commands and g:say: counted no-ops, their arguments checked (in C: simulation.c).
local sim_led = native.led_functions(limits.colours, HOST, MAX_MS, MAX_BLINKS, MAX_PRIORITY)

-- A game the fast path does not play: the host plays it move by move.
local function fallback() error("dicehost-simulation: this game is played move by move", 0) end

-- The game being played.
local charged, outcome, pending, turns, rolls, records = 0, nil, nil, 0, 0, 0
local n, names, seats, player_list, params, g, state = 0, nil, nil, nil, nil, nil, nil
local template_params, rules_table
local setup_hook, turn_hook, roll_hook, bot_hook, view_hook
local count, sides, modifier, notation, dice_text
local ascii = {}
local timers, timer_count, timer_id = {}, 0, 1
-- The block's log: per game (1 = the call's first), its outcome (a seat, 0 a draw, -1
-- unfinished), rolls, turns and where its records end in names/values.
local log = {outcome = {}, rolls = {}, turns = {}, records = {}, names = {}, values = {}, done = 0}
local log_outcome, log_rolls, log_turns, log_records, log_names, log_values =
  log.outcome, log.rolls, log.turns, log.records, log.names, log.values
local logged = 0

-- p's seat when p is one of the game's player tables, else nil.
local function player_seat(p)
  if type(p) ~= "table" then return nil end
  local seat = rawget(p, "seat")
  if math_type(seat) == "integer" and seat >= 1 and seat <= n and rawequal(seats[seat], p) then return seat end
end

local function seat_of(p)
  return player_seat(p) or fallback()
end

-- An audience (g:tell, g:emit) as the host checks it (Game.audienceArgument): nil
-- (everyone), a player, or a list of 1 to n players; anything else is the host's.
local function check_audience(to)
  if to == nil then return end
  if type(to) ~= "table" then fallback() end
  if player_seat(to) then return end
  local k = rawlen(to)
  if k == 0 or k > n then fallback() end
  for i = 1, k do seat_of(rawget(to, i)) end
end

-- g's methods, as the host does them.
-- getmetatable(g) is G, as in play; a script that changes g's metatable goes to the host.
local SimG = {__metatable = G}
SimG.__index = SimG
SimG.say = sim_led.say
sim_led.say = nil
function SimG:emit(name, data, to)
  -- (a table is rendered by the prelude, whose __tostring calls can do anything)
  if type(data) == "table" then fallback() end
  if data ~= nil then data = tostring(data) end
  charged = charged + HOST
  if type(name) ~= "string" then fallback() end
  check_audience(to)
end
function SimG:next_turn(p)
  charged = charged + HOST
  local seat
  if p == nil then
    local current = 0
    local c = g.current -- (raw: g's metatable is SimG, which has no `current`)
    if type(c) == "table" then
      local s = rawget(c, "seat")
      if math_type(s) == "integer" then
        if s >= 1 and s <= n then current = s end
      elseif math_type(s) == "float" then
        fallback()
      end
    end
    local first, after
    for s = 1, n do
      if not rawget(seats[s], "eliminated") then
        if first == nil then first = s end
        if after == nil and s > current then after = s end
      end
    end
    if first == nil then fallback() end
    seat = after or first
  else
    seat = seat_of(p)
  end
  g.current = seats[seat]
  pending = seat
end
-- A second outcome is an error the host raises: such a game is the host's.
function SimG:win(p)
  if outcome ~= nil then fallback() end
  charged = charged + HOST
  outcome = seat_of(p)
end
function SimG:draw()
  if outcome ~= nil then fallback() end
  charged = charged + HOST
  outcome = 0
end
local function knock_out(p)
  if outcome ~= nil then fallback() end
  charged = charged + HOST
  raw_set(seats[seat_of(p)], "eliminated", true)
  local left, active = nil, 0
  for s = 1, n do
    if not rawget(seats[s], "eliminated") then
      active = active + 1
      if left == nil then left = s end
    end
  end
  if active == 1 then outcome = left elseif active == 0 then outcome = 0 end
end
SimG.eliminate = function(_, p) knock_out(p) end
SimG.lose = function(_, p) knock_out(p) end
function SimG:record(metric, value)
  charged = charged + HOST
  -- Only numbers equal themselves plus 0.0 (strings convert, then compare unequal).
  if value ~= value + 0.0 or value == huge or value == -huge then fallback() end
  if not ascii[metric] then
    -- Names the host would read differently (not text, or not plain ASCII) go to it.
    if type(metric) ~= "string" or find(metric, "[\128-\255]") then fallback() end
    ascii[metric] = true
  end
  records = records + 1
  if records > MAX_RECORDS then fallback() end
  local at = logged + records
  log_names[at] = metric
  log_values[at] = value
end
function SimG:is_over() return outcome ~= nil end
-- g:tell: g:say for some players only. While a simulation plays, the host shows no text
-- but checks the audience (G:tell in quiet mode); charged as a say.
function SimG:tell(to)
  if to == nil then fallback() end
  charged = charged + HOST
  check_audience(to)
end
SimG.player = G.player

-- Timers: the clock never moves while bots play, so none fires; what the host checks
-- when one is set or cancelled is checked here.
local sim = {}
function sim.after(ms, fn, repeating)
  charged = charged + HOST
  if math_type(ms) ~= "integer" or ms < 0 or ms > MAX_DELAY or (repeating and ms == 0)
    or type(fn) ~= "function" or timer_count >= MAX_TIMERS then
    fallback()
  end
  local id = timer_id
  timer_id = id + 1
  timers[id] = true
  timer_count = timer_count + 1
  return id
end
function sim.cancel(id)
  charged = charged + HOST
  if math_type(id) ~= "integer" then fallback() end
  if timers[id] then
    timers[id] = nil
    timer_count = timer_count - 1
  end
end

local host_led = {}

-- The turn hook for each g:next_turn a hook asked for.
local function drain()
  local passes = 0
  while pending and not outcome do
    local seat = pending
    pending = nil
    -- A turn passed to a player who is out goes on to the next one still in: the host's
    -- (Game.takePendingTurn).
    if rawget(seats[seat], "eliminated") then fallback() end
    passes = passes + 1
    if passes > PASSES then fallback() end
    charged = charged + TURN
    turns = turns + 1
    if turn_hook then turn_hook(g, seats[seat]) end
  end
end

-- Roll tables: two per player (spare_rolls[2 * seat - 1] and [2 * seat]), each with its
-- values table. Their metatables watch for fields a hook adds (see the top): `touched`
-- holds the tables to empty before their next fill, and touched[1] is true once any is.
local touched = {}
local function watch(t, k, v)
  -- Setting an absent field to nil changes nothing (play raises for a nil or NaN key).
  if v == nil and k ~= nil and k == k then return end
  touched[t] = true
  touched[1] = true
  raw_set(t, k, v)
end
local RollWatch = {__index = Roll, __tostring = Roll.__tostring, __newindex = watch}
local ValuesWatch = {__newindex = watch}
native.watch(RollWatch, touched, Roll)
native.watch(ValuesWatch, touched, nil)
-- Roll, the prelude's metatable of rolls, is reachable (getmetatable(r) gives it) and a
-- script that changes it changes every roll in play. While the driver plays, Roll
-- carries a watching metatable too (shown as none), so a field added to it is seen, and
-- its own two fields are compared after each game: a game that changed Roll goes to the
-- host, and so does every game after it.
local ROLL_INDEX, ROLL_TOSTRING = Roll.__index, Roll.__tostring
local ROLL_MADE = {__index = ROLL_INDEX, __tostring = ROLL_TOSTRING}
local RollGuard = {__newindex = watch}
native.watch(RollGuard, touched, nil)
-- After each game: nothing added to Roll, its own two fields as they were.
local function roll_unchanged()
  return not touched[Roll] and Roll.__index == ROLL_INDEX and Roll.__tostring == ROLL_TOSTRING
end
local spare_rolls, spare_values = {}, {}

-- g:reveal(p [, r]): shows nothing in a simulation, but the host checks what it would
-- show (Game.revealedRoll): p a player; r (p's last roll by default) a roll or a list of
-- at most MAX_DICE die values from 1 to MAX_VALUE. What it might refuse is the host's.
function SimG:reveal(p, r)
  charged = charged + HOST
  seat_of(p)
  if r == nil then
    if getmetatable(p) ~= nil then fallback() end
    r = rawget(p, "last_roll")
  end
  if type(r) ~= "table" then fallback() end
  local mt = getmetatable(r)
  if mt ~= nil and mt ~= Roll and mt ~= RollWatch then fallback() end
  local list = rawget(r, "values")
  if type(list) == "table" then
    mt = getmetatable(list)
    if mt ~= nil and mt ~= ValuesWatch then fallback() end
  else
    list = r
  end
  local k = rawlen(list)
  if k > MAX_DICE then fallback() end
  for i = 1, k do
    local v = rawget(list, i)
    if math_type(v) ~= "integer" or v < 1 or v > MAX_VALUE then fallback() end
  end
end
-- A roll table as a fresh fill leaves it: every own field present (so refills write in
-- place), `previous` absent.
local function make_fresh(r, values)
  reset(r)
  reset(values)
  for i = 1, count do raw_set(values, i, 0) end
  raw_set(r, "values", values)
  raw_set(r, "value", 0)
  raw_set(r, "total", 0)
  raw_set(r, "flag", "ok")
  raw_set(r, "ok", true)
  raw_set(r, "doubles", false)
  set_metatable(r, RollWatch)
  set_metatable(values, ValuesWatch)
  touched[r] = nil
  touched[values] = nil
end

-- The host's roll for dice it draws itself (kept or exploding dice: their number varies):
-- values and total.
local function fill_from(r, values, drawn, total)
  local k = #drawn
  reset(values)
  for i = 1, k do raw_set(values, i, drawn[i]) end
  set_metatable(values, ValuesWatch)
  local first = drawn[1]
  local doubles = k > 1
  for i = 2, k do if drawn[i] ~= first then doubles = false end end
  r.value = first
  r.total = total
  r.doubles = doubles
end

-- A bot's {"roll", keep = {...}} as the host's roll(keeping:) makes it: the kept dice
-- from the player's last roll, the others drawn in position order, a fresh roll table
-- (make_roll's) with r.kept (the positions, sorted) and r.previous, the roll hook, then
-- it is the player's last roll. Whatever the host would refuse or do otherwise (dice
-- notation, a malformed keep or last roll) goes to the host.
local function kept_roll(g, p, keep)
  if notation or getmetatable(keep) ~= nil then fallback() end
  local last = rawget(p, "last_roll")
  if type(last) ~= "table" then fallback() end
  local old = rawget(last, "values")
  if type(old) ~= "table" or rawlen(old) ~= count then fallback() end
  local kept = {}
  for i = 1, rawlen(keep) do
    local k = rawget(keep, i)
    if math_type(k) ~= "integer" or k < 1 or k > count or kept[k] then fallback() end
    kept[k] = true
  end
  local values, positions = {}, {}
  for i = 1, count do
    local v = rawget(old, i)
    if math_type(v) ~= "integer" or v < 1 or v > sides then fallback() end
    values[i] = v
  end
  local total, doubles = modifier, count > 1
  for i = 1, count do
    if kept[i] then positions[#positions + 1] = i else values[i] = random(sides) end
    total = total + values[i]
    if values[i] ~= values[1] then doubles = false end
  end
  local r = {values = values, value = values[1], total = total, flag = "ok", ok = true,
             doubles = doubles, previous = last, kept = positions}
  set_metatable(r, Roll)
  roll_hook(g, p, r)
  r.previous = nil
  p.last_roll = r
  if pending then drain() end
end

-- Plays one game (its generator already seeded) to its end or the move limit: each
-- move the bot's choice, and the roll or action it chose, for the player in the seat
-- of g.current (the host's playerValue(currentSeat())). Written out in one loop: a
-- function call per move is a measurable part of a game.
local function play_game(move_limit)
  charged, outcome, pending, turns, rolls, records = 0, nil, nil, 0, 0, 0
  if timer_id > 1 then
    reset(timers)
    timer_count, timer_id = 0, 1
  end
  new_game(g, state, params, template_params, player_list, seats, names, SimG)
  if setup_hook then setup_hook(g) end
  if not pending and not outcome then
    local current = rawget(g, "current")
    local seat = nil
    if type(current) == "table" then seat = rawget(current, "seat") end
    if math_type(seat) == "integer" then
      if seat < 1 or seat > n then fallback() end
      pending = seat
    elseif math_type(seat) == "float" then
      fallback()
    end
    -- (the host takes a whole float as its integer; rare enough to leave to it)
  end
  if pending then drain() end
  -- The loop's upvalues as locals: a register costs less than an upvalue read.
  local g, seats, spare_rolls, spare_values, touched = g, seats, spare_rolls, spare_values, touched
  local bot_hook, roll_hook, random, raw_set = bot_hook, roll_hook, random, raw_set
  local count, sides, modifier, notation = count, sides, modifier, notation
  local moves, rolled = 0, 0
  while not outcome and moves < move_limit do
    moves = moves + 1
    local seat = g.current.seat
    local p = seats[seat]
    -- (a turn left with a player who is out the host passes on: Game.takePendingTurn)
    if not p or rawget(p, "eliminated") then fallback() end
    if bot_hook then
      -- In a game with a view the bot sees its player's view, made as the host makes it
      -- (Game.botSubject: view(g, p), its first result).
      local subject = g
      if view_hook then
        charged = charged + HOST
        subject = view_hook(g, p)
        if outcome then fallback() end
      end
      local choice = bot_hook(subject, p)
      if outcome then fallback() end
      if choice ~= "roll" and choice ~= nil then
        local name, arguments = choice, nil
        if type(choice) == "table" then
          -- {action, arguments...}, as the host reads it (choice[1..#choice]); a keep, a
          -- roll with values, a wait or a table with a metatable go to the host.
          if getmetatable(choice) ~= nil then fallback() end
          name, arguments = rawget(choice, 1), choice
          local keep = rawget(choice, "keep")
          if name == "roll" and type(keep) == "table" then
            p = seats[g.current.seat]
            -- (the host's roll: the seat's own dice must be the declared ones)
            if not p or rawget(p, "dice") ~= nil or rawget(g.params, "dice") ~= dice_text then fallback() end
            rolled = rolled + 1
            kept_roll(g, p, keep)
            goto next_move
          end
          if keep ~= nil or name == "roll" or name == "wait" then fallback() end
        end
        local actions = rawget(rules_table, "actions")
        local action = type(actions) == "table" and type(name) == "string" and rawget(actions, name) or nil
        if type(action) ~= "function" then fallback() end
        -- The host reads the name and string arguments as UTF-8 text (a bad byte becomes
        -- U+FFFD): such a choice goes to the host.
        if not utf8_len(name) then fallback() end
        if arguments then
          for i = 2, #arguments do
            local a = rawget(arguments, i)
            if type(a) == "string" and not utf8_len(a) then fallback() end
          end
        end
        p = seats[g.current.seat]
        if not p then fallback() end
        if arguments then action(g, p, unpack(arguments, 2, #arguments)) else action(g, p) end
        if pending then drain() end
        goto next_move
      end
      seat = g.current.seat   -- (a bot may have changed it: play reads it again)
      p = seats[seat]
      if not p then fallback() end
    end
    -- The player's dice as the host reads them (Game.dice(forSeat:)): p.dice, a number of
    -- the declared dice (Liar's Dice loses dice), else the declared dice. Other dice
    -- (notation in p.dice or g.params.dice, no dice, dice with notation) are the host's.
    local ndice = count
    local own = rawget(p, "dice")
    if own ~= nil then
      if math_type(own) ~= "integer" or own < 1 or own > MAX_DICE or notation then fallback() end
      ndice = own
    end
    if rawget(g.params, "dice") ~= dice_text then fallback() end
    do
      -- The roll: into the one of the player's two roll tables that is not their last
      -- roll (as the prelude's deliver_roll does), its own fields written in place.
      local previous = p.last_roll
      local k = seat + seat - 1
      local r = spare_rolls[k]
      if previous == r then
        k = k + 1
        r = spare_rolls[k]
      elseif previous ~= nil and previous ~= spare_rolls[k + 1] then
        -- Play reads it raw: a plain read differs only for a player whose metatable
        -- supplies last_roll, and then it is not one of the player's own two rolls.
        previous = rawget(p, "last_roll")
      end
      local values = spare_values[k]
      if touched[1] and (touched[r] or touched[values]) then make_fresh(r, values) end
      if ndice ~= count then
        -- Another number of dice than the tables are made for: the values past ndice go,
        -- and the table is made fresh before its next fill.
        for i = ndice + 1, count do raw_set(values, i, nil) end
        touched[values], touched[1] = true, true
      end
      if ndice == 1 and not notation then
        local v = random(sides)
        values[1] = v
        r.value = v
        r.total = v + modifier
        r.doubles = false
      elseif notation then
        local drawn, total = dice_values(notation)
        fill_from(r, values, drawn, total)
      else
        local first = random(sides)
        values[1] = first
        local total, doubles = first + modifier, true
        for i = 2, ndice do
          local v = random(sides)
          values[i] = v
          total = total + v
          if v ~= first then doubles = false end
        end
        r.value = first
        r.total = total
        r.doubles = doubles
      end
      r.values = values
      r.flag = "ok"
      r.ok = true
      -- previous is absent here unless a hook left it (then r is in `touched`, below);
      -- a script may have made a player's last_roll false, which play passes on.
      if previous then
        raw_set(r, "previous", previous)
      elseif previous == false then
        raw_set(r, "previous", false)
        touched[r], touched[1] = true, true
      end
      rolled = rolled + 1
      roll_hook(g, p, r)
      if r.ok then
        if previous or touched[1] then r.previous = nil end
        p.last_roll = r
      else
        touched[r], touched[1] = true, true -- its previous stays: emptied before its next fill
      end
      if pending then drain() end
    end
    ::next_move::
  end
  rolls = rolled
end

-- What a script may have changed that the driver replaces while it plays: G's methods
-- (getmetatable(g) gives G; the driver calls its own) and the led functions (the
-- driver puts its own in the led table). Either changed - before a call, or during
-- one - and the host plays the games.
local G_made, led_made = runtime.G_made, runtime.led_made
-- Whether table t holds exactly the fields of `made` (raw).
local function holds_only(t, made)
  local fields = 0
  for k, v in raw_next, t do
    if made[k] ~= v then return false end
    fields = fields + 1
  end
  for _ in raw_next, made do fields = fields - 1 end
  return fields == 0
end
local function led_is(functions)
  for name in raw_next, sim_led do
    if rawget(led, name) ~= functions[name] then return false end
  end
  return true
end

local function enter()
  set_sim(sim)
  set_metatable(Roll, RollGuard)
  for name, f in raw_next, sim_led do
    host_led[name] = rawget(led, name)
    raw_set(led, name, f)
  end
end

local function leave()
  set_sim(nil)
  set_metatable(Roll, nil)
  -- (a function a script put in the led table while the driver played stays)
  for name, f in raw_next, host_led do
    if rawget(led, name) == sim_led[name] then raw_set(led, name, f) end
  end
  host_led = {}
  -- A roll a script kept past the study is a plain roll again (as in play).
  for k = 1, #spare_rolls do
    set_metatable(spare_rolls[k], Roll)
    set_metatable(spare_values[k], nil)
  end
end

-- play(plan, first, last) -> log: plays games first..last-1 into the block's log, and
-- returns when they are played or the log is full. log.done says how many are logged;
-- when log.stopped is true, or the call raised, game first + log.done is the host's.
local function play(plan, first, last)
  if seats == nil then
    -- Made once, in the order the host's new_game makes them.
    n, names = #plan.names, plan.names
    player_list = {}
    seats = {}
    for i = 1, n do seats[i] = {} end
    params = {}
    g = {}
    state = {}
    count, sides, modifier, notation, dice_text = plan.count, plan.sides, plan.modifier, plan.notation, plan.dice_text
    for k = 1, 2 * n do
      spare_rolls[k] = {}
      spare_values[k] = {}
    end
  end
  -- Fresh roll tables: a call a game stopped may have left one half written.
  for k = 1, 2 * n do make_fresh(spare_rolls[k], spare_values[k]) end
  if not touched[Roll] then reset(touched) end
  template_params, rules_table = plan.params, plan.rules
  setup_hook, turn_hook, roll_hook, bot_hook, view_hook = plan.setup, plan.turn, plan.roll, plan.bot, plan.view
  log.done, log.stopped, logged = 0, false, 0
  -- A script that gave Roll more (a __len, an __eq, a field) changed every roll in
  -- play; RollWatch has only Roll's own two: such a study is played by the host.
  if type(roll_hook) ~= "function" or touched[Roll] or not holds_only(Roll, ROLL_MADE)
    or not holds_only(G, G_made) or not led_is(led_made) then
    fallback()
  end
  enter()
  local seed, move_limit = plan.seed, plan.move_limit
  local _, started = next_game(-1, 0, seed, first)
  local done = 0
  for index = first, last - 1 do
    play_game(move_limit)
    if not roll_unchanged() then fallback() end
    -- This game's bound on its budget, and the next game's generator and budget.
    local ok
    ok, started = next_game(started, charged, seed, index + 1)
    if not ok then log.stopped = true; break end
    local at = done + 1
    log_outcome[at] = outcome or -1
    log_rolls[at] = rolls
    log_turns[at] = turns
    logged = logged + records
    log_records[at] = logged
    done = at
    log.done = at
    if logged > MAX_LOGGED then break end
  end
  -- G or the led functions changed during the call: its games are the host's.
  if not holds_only(G, G_made) or not led_is(sim_led) then log.done, log.stopped = 0, true end
  leave()
  return log
end

return {play = play, leave = leave, log = log}
