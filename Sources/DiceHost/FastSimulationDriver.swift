/// The Lua half of a fast simulation (`FastSimulation`): it plays a block of games in one
/// call, with no crossing into Swift per move. Each game is the one `dicehost play
/// --seed … --auto` plays: the generator seeded as the host seeds it, the dice drawn
/// the same way, the bot asked and its move made as the host makes it, and the same
/// results counted. What the host does for a hook (`g:next_turn`, `g:win`, `g:record`,
/// timers, LED commands) the driver does in Lua, checking arguments as far as the fast
/// path needs: anything it does not handle, or anything the host would refuse, stops the
/// game with an error, and the host plays that game again move by move (the reference),
/// so a fast game either equals the reference or is replaced by it.
///
/// Text (`g:say`, `g:emit`) and LED commands are counted no-ops: no simulation reads them,
/// but their cost is still charged, so a game passes its budget as it would in play.
/// The tables of a game (g, players, state, params) are made once per worker and emptied
/// for each game; roll tables are reused as the prelude reuses them in play (two per
/// player, see `deliver_roll`). The hot path calls no C function it can avoid: checks
/// are table lookups and integer operations (`x | 0` raises for anything that is not a
/// whole number, which sends the game to the host). It reads `g.current`, a player's
/// `seat` and `last_roll` with plain indexing where the host reads raw: the same unless a
/// script deletes such a field and gives the table a metatable whose __index supplies it.
///
/// It runs in the sandbox with chunk name "dicehost-simulation".
enum FastSimulationDriver {
    static let chunkName = "dicehost-simulation"
    static let source = #"""
    local runtime, native, led, limits = ...
    local Roll, G, set_sim, dice_values, raw_next = runtime.Roll, runtime.G, runtime.set_sim, runtime.dice_values, runtime.raw_next
    local begin_game, end_game, draw, reset, tally = native.begin_game, native.end_game, native.roll, native.reset, native.tally
    local fill = runtime.fill_roll
    local type, math_type, rawget, rawset, rawequal, setmetatable, error, tostring, select, ipairs =
      type, math.type, rawget, rawset, rawequal, setmetatable, error, tostring, select, ipairs
    local find, huge = string.find, math.huge

    -- What the host charges a host call and a turn pass, plus the instructions of the
    -- host's own wrappers around them: charged here, so no game passes its budget here
    -- that would not pass it in play.
    local HOST = limits.host_call + 16
    local TURN = limits.turn_pass + HOST
    local PASSES = limits.turn_pass_limit
    local MAX_DELAY, MAX_TIMERS = limits.timer_delay, limits.pending_timers
    local MAX_MS, MAX_BLINKS, MAX_PRIORITY = limits.led_ms, limits.blink_count, limits.led_priority
    -- Records per game kept here; a game that records more is left to the host, which
    -- counts their memory against the game's limit.
    local MAX_RECORDS = 10000
    local colours = limits.colours
    local FACE = {1, 2, 4, 8, 16, 32}
    local MASK = {}
    for m = 0, 63 do MASK[m] = true end

    -- A game the fast path does not play: the host plays it move by move.
    local function fallback() error("dicehost-simulation: this game is played move by move", 0) end

    -- The game being played.
    local charged, outcome, pending, turns, rolls = 0, nil, nil, 0, 0
    local n, names, seats, player_list, params, g, state = 0, nil, nil, nil, nil, nil, nil
    local template_params, rules_table
    local setup_hook, turn_hook, roll_hook, bot_hook
    local count, sides, modifier, notation
    local record_names, record_values, records = {}, {}, 0
    local ascii = {}
    local timers, timer_count, timer_id = {}, 0, 1
    local result

    -- The player whose turn it is (the host's playerValue(currentSeat())); a float seat
    -- with a whole value finds its player as the host's does.
    local function current_player()
      local seat = g.current.seat
      local p = seats[seat]
      if p == nil then fallback() end
      return p, seat
    end

    local function seat_of(p)
      if type(p) ~= "table" then fallback() end
      local seat = rawget(p, "seat")
      if math_type(seat) ~= "integer" or seat < 1 or seat > n or not rawequal(seats[seat], p) then fallback() end
      return seat
    end

    -- g's methods, as the host does them.
    -- getmetatable(g) is G, as in play; a script that changes g's metatable goes to the host.
    local SimG = {__metatable = G}
    SimG.__index = SimG
    function SimG:say() charged = charged + HOST end
    function SimG:emit(name, data)
      if data ~= nil then data = tostring(data) end
      charged = charged + HOST
      if type(name) ~= "string" then fallback() end
    end
    function SimG:next_turn(p)
      charged = charged + HOST
      local seat
      if p == nil then
        local current = 0
        local c = rawget(g, "current")
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
      rawset(g, "current", seats[seat])
      pending = seat
    end
    function SimG:win(p)
      charged = charged + HOST
      outcome = seat_of(p)
    end
    function SimG:draw()
      charged = charged + HOST
      outcome = 0
    end
    local function knock_out(p)
      charged = charged + HOST
      rawset(seats[seat_of(p)], "eliminated", true)
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
      record_names[records] = metric
      record_values[records] = value
    end
    function SimG:is_over() return outcome ~= nil end
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

    -- LED commands: nothing to show, so only their arguments are checked.
    local function face_mask(f)
      local mask = FACE[f]
      if mask == nil then fallback() end
      return mask
    end
    local function check_mask(mask)
      if not MASK[mask] then fallback() end
    end
    local function check_colour(c)
      if colours[c] then return end
      if type(c) ~= "string" or #c ~= 7 or not find(c, "^#%x%x%x%x%x%x$") then fallback() end
    end
    -- Plain indexing: where it differs from the host's raw read, an LED command's
    -- arguments can only be checked more strictly, and LED commands change no result.
    local function check_option(options, key, low, high)
      local v = options[key]
      if v ~= nil then
        v = v | 0
        if v < low or v > high then fallback() end
      end
    end
    local sim_led = {
      face = function(f)
        charged = charged + HOST
        local mask = FACE[f]
        if mask == nil then fallback() end
        return mask
      end,
      faces = function(...)
        charged = charged + HOST
        local k = select("#", ...)
        if k == 0 then fallback() end
        local mask = 0
        for i = 1, k do mask = mask | face_mask((select(i, ...))) end
        return mask
      end,
      set = function(mask, colour)
        charged = charged + HOST
        check_mask(mask)
        check_colour(colour)
      end,
      off = function(mask)
        charged = charged + HOST
        if mask ~= nil then check_mask(mask) end
      end,
      blink = function(mask, colour, options)
        -- The checks inline: this is the call rule scripts make in every roll.
        charged = charged + HOST
        if not MASK[mask] then fallback() end
        if not colours[colour] then check_colour(colour) end
        if options ~= nil then
          local on, cycle, count, priority = options.on, options.cycle, options.count, options.priority
          if on ~= nil then on = on | 0; if on < 0 or on > MAX_MS then fallback() end end
          if cycle ~= nil then cycle = cycle | 0; if cycle < 0 or cycle > MAX_MS then fallback() end end
          if count ~= nil then count = count | 0; if count < 1 or count > MAX_BLINKS then fallback() end end
          if priority ~= nil then priority = priority | 0; if priority < 0 or priority > MAX_PRIORITY then fallback() end end
        end
      end,
      fade = function(mask, colour, ms)
        charged = charged + HOST
        check_mask(mask)
        check_colour(colour)
        if type(ms) == "table" then
          check_option(ms, "ms", 0, MAX_MS)
        elseif ms ~= nil then
          ms = ms | 0
          if ms < 0 or ms > MAX_MS then fallback() end
        end
      end,
    }
    local host_led = {}

    -- The turn hook for each g:next_turn a hook asked for.
    local function drain()
      local passes = 0
      while pending ~= nil and outcome == nil do
        local seat = pending
        pending = nil
        passes = passes + 1
        if passes > PASSES then fallback() end
        charged = charged + TURN
        turns = turns + 1
        if turn_hook then turn_hook(g, seats[seat]) end
      end
    end

    -- A roll of the declared dice for the current player, into the one of the player's
    -- two roll tables that is not their last roll (as the prelude's deliver_roll does).
    local spare_rolls, spare_values = {}, {}
    local function roll_move()
      if outcome ~= nil then fallback() end
      local p, seat = current_player()
      local previous = p.last_roll
      local k = 2 * seat - 1
      if spare_rolls[k] == previous then k = k + 1 end
      local r = spare_rolls[k]
      if notation then
        local values, total = dice_values(notation)
        fill(r, spare_values[k], values, total, previous)
      else
        draw(r, spare_values[k], count, sides, modifier, previous, Roll)
      end
      rolls = rolls + 1
      roll_hook(g, p, r)
      if r.ok then r.previous = nil; p.last_roll = r end
      drain()
    end

    -- One bot move: its choice, and the roll or action it chose.
    local function bot_move()
      if not bot_hook then return roll_move() end
      local choice = bot_hook(g, (current_player()))
      if choice == nil or choice == "roll" then return roll_move() end
      if outcome ~= nil then fallback() end
      local actions = rawget(rules_table, "actions")
      local action = type(actions) == "table" and type(choice) == "string" and rawget(actions, choice) or nil
      if type(action) ~= "function" then fallback() end
      action(g, (current_player()))
      drain()
    end

    -- A fresh game in the block's tables: as the host's new_game makes it.
    local function new_game()
      reset(player_list)
      for i = 1, n do
        local p = seats[i]
        reset(p)
        p.name = names[i]
        p.seat = i
        p.eliminated = false
        player_list[i] = p
      end
      reset(params)
      for k, v in raw_next, template_params do params[k] = v end
      reset(state)
      reset(g)
      g.players = player_list
      g.state = state
      g.params = params
      g.now = 0
      g.current = seats[1]
      setmetatable(g, SimG)
    end

    local function play_game(study_seed, index, move_limit)
      local started = begin_game(study_seed, index)
      charged, outcome, pending, turns, rolls, records = 0, nil, nil, 0, 0, 0
      if timer_id > 1 then
        reset(timers)
        timer_count, timer_id = 0, 1
      end
      new_game()
      if setup_hook then setup_hook(g) end
      if pending == nil and outcome == nil then
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
      drain()
      local moves = 0
      while moves < move_limit and outcome == nil do
        bot_move()
        moves = moves + 1
      end
      -- A game that may have passed an input's budget is played again under it.
      if not end_game(started, charged) then fallback() end
      tally(result, outcome or -1, rolls, turns, record_names, record_values, records, index)
    end

    local function enter()
      set_sim(sim)
      for name, f in raw_next, sim_led do
        host_led[name] = rawget(led, name)
        rawset(led, name, f)
      end
    end

    local function leave()
      set_sim(nil)
      for name, f in raw_next, host_led do rawset(led, name, f) end
    end

    -- play(plan, result, first, last): games first..last-1, counted into `result` (whose
    -- `next` says how far it got: the game a failure stopped in is `result.next`).
    local function play(plan, into, first, last)
      result = into
      if seats == nil then
        -- Made once, in the order the host's new_game makes them.
        n, names = #plan.names, plan.names
        player_list = {}
        seats = {}
        for i = 1, n do seats[i] = {} end
        params = {}
        g = {}
        state = {}
        for k = 1, 2 * n do
          spare_rolls[k] = {}
          spare_values[k] = {}
        end
      end
      template_params, rules_table = plan.params, plan.rules
      setup_hook, turn_hook, roll_hook, bot_hook = plan.setup, plan.turn, plan.roll, plan.bot
      count, sides, modifier, notation = plan.count, plan.sides, plan.modifier, plan.notation
      if type(roll_hook) ~= "function" then fallback() end
      enter()
      local seed, move_limit = plan.seed, plan.move_limit
      for index = first, last - 1 do play_game(seed, index, move_limit) end
      leave()
    end

    return {play = play, leave = leave}
    """#
}
