-- Labyrinth: tilt the die to roll a ball through a maze to the goal. The rules
-- subscribe to the die's accelerometer (x: tilt right, y: tilt towards you, in g)
-- and run a 60 Hz loop on timer.every: tilt makes acceleration, friction slows the
-- ball, walls stop it along one axis (so it slides along them), a hole restarts the
-- level, the goal leads to the next level; the last goal wins. At the REPL:
-- `tilt 0.3 0` then `tick 1s`; from a recording: `sensor accelerometer FILE`.
-- A roll (shaking the die) restarts the level; one the die flags does not count. The
-- bot steers towards the goal.
local labyrinth = rules {
  name = "Labyrinth", players = 1, dice = "1d6",
  params = { tick_ms = 16, accel = 30, friction = 2, max_speed = 8, sensor_hz = 60 },
  param_info = {
    accel = {label = "Tilt strength", min = 5, max = 100},
    friction = {label = "Friction", min = 0, max = 10},
    max_speed = {label = "Top speed", min = 1, max = 20},
    tick_ms = {label = "Physics step (ms)", min = 8, max = 100},
    sensor_hz = {label = "Tilt samples per second", choices = {30, 60, 120}},
  },
}

-- '#' wall, '.' floor, 'S' start, 'O' hole, 'G' goal. Cells are 1 x 1; x grows to
-- the right, y downwards.
local levels = {
  {
    "#######",
    "#S...O#",
    "#.###.#",
    "#....G#",
    "#######",
  },
  {
    "#########",
    "#S..#...#",
    "#.#.#.#.#",
    "#.#...#.#",
    "#O#####.#",
    "#...O..G#",
    "#########",
  },
}

local RADIUS = 0.25

local function cell(level, cx, cy)
  local row = levels[level][cy + 1]
  if not row then return "#" end
  return row:sub(cx + 1, cx + 1)
end

local function find(level, mark)
  for cy, row in ipairs(levels[level]) do
    local cx = row:find(mark, 1, true)
    if cx then return cx - 1, cy - 1 end
  end
end

local function hits_wall(level, x, y)
  for cy = math.floor(y - RADIUS), math.floor(y + RADIUS) do
    for cx = math.floor(x - RADIUS), math.floor(x + RADIUS) do
      if cell(level, cx, cy) == "#" then return true end
    end
  end
  return false
end

-- Whether the ball lies against a wall on `side` (within 0.01).
local function against(level, x, y, side)
  local d = 0.01
  if side == "east" then return hits_wall(level, x + d, y) end
  if side == "west" then return hits_wall(level, x - d, y) end
  if side == "south" then return hits_wall(level, x, y + d) end
  return hits_wall(level, x, y - d)
end

local function start_level(g, level)
  local s = g.state
  local cx, cy = find(level, "S")
  s.level, s.x, s.y, s.vx, s.vy = level, cx + 0.5, cy + 0.5, 0, 0
  s.touching = nil
end

local function clamp(v, limit) return math.max(-limit, math.min(limit, v)) end

local function round2(v) return math.floor(v * 100 + 0.5) / 100 end

-- One step of the loop: dt seconds of physics.
local function step(g, dt)
  local s = g.state
  if g:is_over() then return end
  local max = g.params.max_speed
  local slow = math.max(0, 1 - g.params.friction * dt)
  s.vx = clamp((s.vx + s.tilt_x * g.params.accel * dt) * slow, max)
  s.vy = clamp((s.vy + s.tilt_y * g.params.accel * dt) * slow, max)
  -- Each axis on its own, so a wall stops one and the ball slides along it; a ball
  -- that hits comes to rest against the wall.
  local touching
  local nx = s.x + s.vx * dt
  if hits_wall(s.level, nx, s.y) then
    touching = s.vx > 0 and "east" or "west"
    s.x = s.vx > 0 and math.floor(nx + RADIUS) - RADIUS - 0.001 or math.floor(nx - RADIUS) + 1 + RADIUS + 0.001
    s.vx = 0
  else
    s.x = nx
  end
  local ny = s.y + s.vy * dt
  if hits_wall(s.level, s.x, ny) then
    touching = s.vy > 0 and "south" or "north"
    s.y = s.vy > 0 and math.floor(ny + RADIUS) - RADIUS - 0.001 or math.floor(ny - RADIUS) + 1 + RADIUS + 0.001
    s.vy = 0
  else
    s.y = ny
  end
  -- Still resting against the wall it hit (a slide along it): no new hit.
  if not touching and s.touching and against(s.level, s.x, s.y, s.touching) then touching = s.touching end
  if touching and touching ~= s.touching then
    g:say("the ball hits the %s wall at %.2f, %.2f", touching, s.x, s.y)
  end
  s.touching = touching
  local here = cell(s.level, math.floor(s.x), math.floor(s.y))
  if here == "O" then
    s.falls = s.falls + 1
    g:say("the ball falls into a hole at %.2f, %.2f: level %d restarts", s.x, s.y, s.level)
    start_level(g, s.level)
  elseif here == "G" then
    g:say("the ball reaches the goal of level %d at %d ms", s.level, g.now)
    if s.level == #levels then
      g:win(g.players[1])
    else
      start_level(g, s.level + 1)
      g:say("level %d", s.level)
    end
  end
end

function labyrinth.setup(g)
  local s = g.state
  s.tilt_x, s.tilt_y, s.falls = 0, 0, 0
  start_level(g, 1)
  s.tilt = sensor.every("accelerometer", g.params.sensor_hz, function(g, x, y, z)
    g.state.tilt_x, g.state.tilt_y = x, y
  end)
  s.loop = timer.every(g.params.tick_ms, function(g) step(g, g.params.tick_ms / 1000) end)
  g:say("level 1: tilt the die to roll the ball to the goal")
end

-- The REPL's prompt: where the ball is.
function labyrinth.status(g)
  local s = g.state
  return string.format("level %d · ball %.1f,%.1f · falls %d", s.level, s.x, s.y, s.falls)
end

-- Shaking the die restarts the level.
function labyrinth.roll(g, p, r)
  if not r.ok then -- as in every game, a roll the die flags does not count
    g:say("the shake did not count (%s): shake again to restart level %d", r.flag, g.state.level)
    return
  end
  g:say("the board is shaken: level %d restarts", g.state.level)
  start_level(g, g.state.level)
end

labyrinth.actions = {
  -- steer X Y [STEPS]: tilt without a sensor; with STEPS, also run that many loop steps
  -- at once (what the bot does, since a simulation does not move the clock).
  steer = function(g, p, x, y, steps)
    g.state.tilt_x, g.state.tilt_y = clamp(tonumber(x) or 0, 2), clamp(tonumber(y) or 0, 2)
    for _ = 1, math.min(tonumber(steps) or 0, 600) do step(g, g.params.tick_ms / 1000) end
  end,
  where = function(g, p)
    local s = g.state
    g:say("level %d: ball at %.2f, %.2f moving %.2f, %.2f", s.level, s.x, s.y, s.vx, s.vy)
  end,
}

-- The table (the browser draws it): the level, the falls, what just happened. One
-- player, nothing secret: v is the whole game.
function labyrinth.table(v, t)
  local s = v.state
  local tab = {track = {target = #levels, label = "Levels", marks = {{name = "Goals reached", at = s.level - 1}}},
               balances = {{name = "Falls into a hole", value = s.falls}}, roll = "Shake: restart the level"}
  local line = t.said[#t.said]
  if line and not line:find("^level %d+: tilt") then tab.last = line end
  if t.over then
    tab.track.marks[1].at = #levels
    tab.result = "You reached the last goal"
    tab.headline = tab.result
  else
    tab.headline = ("Level %d of %d: tilt the die to roll the ball to the goal"):format(s.level, #levels)
  end
  return tab
end

-- The bot: the next cell on the shortest safe path to the goal (no walls, no holes),
-- and a tilt towards its centre that brakes as the ball gets there.
local function next_cell(level, sx, sy)
  local gx, gy = find(level, "G")
  local from, queue, head = {[sy * 100 + sx] = false}, {{sx, sy}}, 1
  while queue[head] do
    local cx, cy = queue[head][1], queue[head][2]
    head = head + 1
    if cx == gx and cy == gy then
      while from[cy * 100 + cx] and from[cy * 100 + cx] ~= sy * 100 + sx do
        local k = from[cy * 100 + cx]
        cx, cy = k % 100, k // 100
      end
      return cx, cy
    end
    for _, d in ipairs({{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) do
      local nx, ny = cx + d[1], cy + d[2]
      local c = cell(level, nx, ny)
      if c ~= "#" and c ~= "O" and from[ny * 100 + nx] == nil then
        from[ny * 100 + nx] = cy * 100 + cx
        queue[#queue + 1] = {nx, ny}
      end
    end
  end
  return sx, sy
end

function labyrinth.bot(g, p)
  local s = g.state
  local tx, ty = next_cell(s.level, math.floor(s.x), math.floor(s.y))
  local ax = clamp((tx + 0.5 - s.x) * 0.8 - s.vx * 0.3, 0.5)
  local ay = clamp((ty + 0.5 - s.y) * 0.8 - s.vy * 0.3, 0.5)
  return {"steer", round2(ax), round2(ay), 6}
end

return labyrinth
