-- Race to Space, on a DICE+ style smart die. Players take turns with one die; the
-- first whose score reaches the target wins. A roll the die flags (tilt, too_short)
-- does not count: all faces blink red and the same player rolls again. A good roll
-- blinks the rolled face green and moves the player. While the game waits for a roll
-- the die pulses the current player's colour every 2 s, and after 30 s without a roll
-- the turn passes on. After a win, `restart` starts a new game. If the die
-- disconnects, the turn pauses (no pulse, no timeout) until it connects again.
-- min_roll_ms is the shortest throw a die timed by the host counts (a Pixels die
-- reports no times: the host times it from pick-up to landing); shorter is too_short.
local race = rules {
  name = "Race to Space", players = {2, 4}, dice = "1d6",
  params = { target = 25, pulse_ms = 2000, timeout_ms = 30000, min_roll_ms = 300 },
  param_info = {
    target = {label = "Target score", description = "the first to reach it wins", min = 5, max = 100},
    timeout_ms = {label = "Time before a turn passes (ms)", min = 5000, max = 120000, step = 5000},
    pulse_ms = {label = "Smart die's waiting blink (ms)", min = 500, max = 10000, step = 500},
    min_roll_ms = {label = "Shortest throw a smart die counts (ms)", min = 0, max = 2000, step = 50},
  },
}

local colours = {"blue", "yellow", "purple", "cyan"}
-- LED animations and timer callbacks, made once rather than in every roll or turn.
local PULSE = {on = 200, cycle = 400, count = 1}
local FLAGGED = {on = 100, cycle = 200, count = 4, priority = 1}
local MOVED = {on = 100, cycle = 50, count = 5}

local function pulse(g)
  led.blink(led.ALL, colours[g.current.seat], PULSE)
end

local function time_out(g)
  g:say("%s took too long: the turn passes", g.current.name)
  g:next_turn()
end

local function stop_waiting(g)
  if g.state.pulse then g.state.pulse:cancel() end
  if g.state.timeout then g.state.timeout:cancel() end
  g.state.pulse, g.state.timeout = nil, nil
end

local function wait_for_roll(g, p)
  stop_waiting(g)
  g.state.pulse = timer.every(g.params.pulse_ms, pulse)
  g.state.timeout = timer.after(g.params.timeout_ms, time_out)
end

function race.setup(g)
  for _, p in ipairs(g.players) do p.score = 0 end
end

function race.turn(g, p)
  g:say("%s to roll (score %d of %d)", p.name, p.score, g.params.target)
  wait_for_roll(g, p)
end

-- The move a good roll makes; variants pass their own to race.play_roll.
function race.move(g, p, r)
  return r.total
end

function race.roll(g, p, r)
  return race.play_roll(g, p, r, race.move)
end

function race.play_roll(g, p, r, move)
  if not r.ok then
    led.blink(led.ALL, "red", FLAGGED)
    g:say("%s: the roll did not count (%s), roll again", p.name, r.flag)
    wait_for_roll(g, p)
    return
  end
  stop_waiting(g)
  for _, v in ipairs(r.values) do
    led.blink(led.face(math.min(v, 6)), "green", MOVED)
  end
  p.score = p.score + move(g, p, r)
  local scores = {}
  for _, q in ipairs(g.players) do scores[#scores + 1] = q.name .. " " .. q.score end
  g:say("scores: %s", table.concat(scores, ", "))
  if p.score >= g.params.target then
    g:say("%s reaches space!", p.name)
    g:win(p)
  else
    g:next_turn()
  end
end

-- The smart die: a dropped connection pauses the turn, a reconnection resumes it; a
-- low battery is announced.
function race.on_device(g, event, value)
  if event == "disconnected" and not g.state.paused then
    g.state.paused = true
    stop_waiting(g)
    g:say("the die disconnected: %s's turn is paused", g.current.name)
  elseif event == "connected" and g.state.paused then
    g.state.paused = nil
    g:say("the die is back: %s to roll", g.current.name)
    wait_for_roll(g, g.current)
  elseif event == "battery" and value < 15 then
    g:say("the die's battery is low (%d%%)", value)
  end
end

-- The table each seat sees (the browser draws it). The race keeps no secrets (no view):
-- v is the whole game, t the seat's facts. Variants inherit it.
function race.table(v, t)
  local you, current = t.you, t.current
  local tab = {track = {target = t.params.target, label = "Race to space", marks = {}}}
  for i, p in ipairs(v.players) do
    tab.track.marks[i] = {name = p.name == you and p.name .. " (you)" or p.name, at = p.score}
  end
  if t.over then
    tab.result = t.winner == you and "You reached space first: you won" or (t.winner or "Nobody") .. " reached space first"
    tab.headline = tab.result
  elseif v.state.paused then
    tab.headline = "The die disconnected: " .. (current == you and "your" or current .. "'s") .. " turn waits for it"
  else
    tab.headline = current == you and "Your roll: every pip moves you closer to space"
      or current .. " to roll"
    tab.turn = current == you and "Your turn" or current .. "'s turn"
    local left = v.state.timeout and v.state.timeout:left()
    if left then
      tab.countdown = {text = current == you and "Your turn passes" or current .. "'s turn passes", ms = left}
    end
  end
  for i = #t.said, 1, -1 do
    local line = t.said[i]
    if not line:find(" to roll (score ", 1, true) and not line:find("^scores: ") then tab.last = line; break end
  end
  return tab
end

function race.bot(g, p) return "roll" end

return race
