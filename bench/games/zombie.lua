-- Zombie Dice for two: 13 dice in a cup (6 green, 4 yellow, 3 red), drawn three at a
-- time. A brain scores, a shotgun hurts, footsteps run away: those dice are rolled again
-- in the next throw with fresh ones drawn to make three. `stop` banks the turn's brains;
-- three shotguns end the turn with nothing (a bust). When the cup runs out, the turn's
-- brains go back into it. First to `target` brains wins.
--
-- Drawing is part of the roll (a rule script draws no random numbers of its own): each
-- die of a throw is one roll, of 1d6 for a footstep die rolled again, or of 1d(6 × the
-- dice in the cup) for a die drawn: the value picks the die (green ones first) and its
-- face, each of the cup's dice and faces alike likely. `stop` is refused in mid-throw.
local zombie = rules {
  name = "Zombie Dice", players = 2, dice = "1d6",
  params = { target = 13 },
}

-- Faces 1..6 of each colour.
local FACES = {
  green  = {"brain", "brain", "brain", "feet", "feet", "shot"},
  yellow = {"brain", "brain", "feet", "feet", "shot", "shot"},
  red    = {"brain", "feet", "feet", "shot", "shot", "shot"},
}
local COLOURS = {"green", "yellow", "red"}
local START = {green = 6, yellow = 4, red = 3}

local function count(t) return t.green + t.yellow + t.red end

local function fresh_turn(g)
  local s = g.state
  s.cup = {green = START.green, yellow = START.yellow, red = START.red}
  s.brains = {green = 0, yellow = 0, red = 0}   -- set aside this turn, by colour
  s.feet = {green = 0, yellow = 0, red = 0}     -- to roll again in the next throw
  s.again = {green = 0, yellow = 0, red = 0}    -- footsteps still to roll in this throw
  s.draw = 0                                    -- dice still to draw in this throw
  s.shots = 0
end

local function in_throw(s) return count(s.again) + s.draw > 0 end

-- The dice of the next roll: a footstep die again (1d6), or a draw from the cup.
local function next_dice(g, p)
  local s = g.state
  local again = in_throw(s) and s.again or s.feet
  if count(again) > 0 then p.dice = "1d6"; return end
  if count(s.cup) == 0 then -- the cup is empty: the turn's brains go back into it
    for _, c in ipairs(COLOURS) do s.cup[c] = s.brains[c]; s.brains[c] = 0 end
  end
  p.dice = "1d" .. (6 * count(s.cup))
end

function zombie.setup(g)
  for _, p in ipairs(g.players) do p.score = 0; p.dice = "1d78" end
  fresh_turn(g)
end

function zombie.turn(g, p)
  fresh_turn(g)
  next_dice(g, p)
end

local function brains(s) return count(s.brains) end

local function end_turn(g, p)
  p.dice = "1d78" -- the same as every waiting player's
  g:next_turn()
end

function zombie.roll(g, p, r)
  if not r.ok then g:say("%s: the roll did not count (%s), roll again", p.name, r.flag); return end
  local s = g.state
  if not in_throw(s) then -- a new throw: the footsteps again, and fresh dice to make three
    for _, c in ipairs(COLOURS) do s.again[c] = s.feet[c]; s.feet[c] = 0 end
    s.draw = 3 - count(s.again)
  end
  local colour, face
  for _, c in ipairs(COLOURS) do
    if s.again[c] > 0 then colour = c; s.again[c] = s.again[c] - 1; face = r.value; break end
  end
  if not colour then
    if count(s.cup) == 0 then
      for _, c in ipairs(COLOURS) do s.cup[c] = s.brains[c]; s.brains[c] = 0 end
    end
    local index, n = (r.value - 1) // 6, 0
    face = (r.value - 1) % 6 + 1
    for _, c in ipairs(COLOURS) do
      n = n + s.cup[c]
      if index < n then colour = c; break end
    end
    s.cup[colour] = s.cup[colour] - 1
    s.draw = s.draw - 1
  end
  local what = FACES[colour][face]
  if what == "brain" then s.brains[colour] = s.brains[colour] + 1
  elseif what == "feet" then s.feet[colour] = s.feet[colour] + 1
  else s.shots = s.shots + 1 end
  if not in_throw(s) and s.shots >= 3 then
    g:say("%s is shot three times and loses %d brains", p.name, brains(s))
    g:record("busts", 1)
    end_turn(g, p)
    return
  end
  next_dice(g, p)
end

zombie.actions = {
  stop = function(g, p)
    local s = g.state
    if in_throw(s) then error("finish the throw first: roll", 0) end
    if brains(s) == 0 then error("no brains to bank: roll", 0) end
    p.score = p.score + brains(s)
    g:say("%s stops with %d brains (score %d)", p.name, brains(s), p.score)
    if p.score >= g.params.target then g:win(p) else end_turn(g, p) end
  end,
}

-- Roll on in mid-throw; stop at two shotguns, at three brains, or when the brains win.
function zombie.bot(g, p)
  local s = g.state
  if in_throw(s) then return "roll" end
  local b = brains(s)
  if b > 0 and (s.shots >= 2 or b >= 3 or p.score + b >= g.params.target) then return "stop" end
  return "roll"
end

return zombie
