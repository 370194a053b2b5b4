-- A small dice game whose rules are drawn from its params: the property test of
-- unordered dice (Tests/DiceHostTests/UnorderedDiceWeightTests.swift) draws many of them
-- and compares every figure of `dicehost odds` with the ordered form's
-- (random-game-ordered.lua). Every rule reads a roll as a set of values, so the
-- declaration below holds whatever the params say.
--
-- Each roll gains points into the turn; a bust loses the turn's points and passes; the
-- bot holds (banks the turn) at `hold_at` points (0: never holds, the turn banks as it
-- goes); the first to `target` wins.
--   gain: 1 the total, 2 the highest die, 3 the lowest, 4 the number of distinct values,
--         5 how many dice show the highest face
--   bust: 0 never, 1 a die shows 1, 2 all dice equal (r.doubles), 3 the total is a multiple of 3
--   pass: 0 never (only a bust or a hold passes), 1 after every roll, 2 after a roll with a 2
local game = rules {
  name = "Random game", players = {1, 3}, dice = "2d3", unordered_dice = true,
  params = { target = 5, gain = 1, bust = 0, hold_at = 0, pass = 0 },
}

function game.setup(g)
  for _, p in ipairs(g.players) do p.score = 0 end
  g.state.turn = 0
end

local function gain(g, r)
  local kind = g.params.gain
  if kind == 1 then return r.total end
  local high, low, seen, distinct = 0, math.huge, {}, 0
  for _, v in ipairs(r.values) do
    if v > high then high = v end
    if v < low then low = v end
    if not seen[v] then seen[v] = true; distinct = distinct + 1 end
  end
  if kind == 2 then return high end
  if kind == 3 then return low end
  if kind == 4 then return distinct end
  local n = 0
  for _, v in ipairs(r.values) do if v == high then n = n + 1 end end
  return n
end

local function busts(g, r)
  local kind = g.params.bust
  if kind == 1 then
    for _, v in ipairs(r.values) do if v == 1 then return true end end
    return false
  end
  if kind == 2 then return r.doubles end
  if kind == 3 then return r.total % 3 == 0 end
  return false
end

local function passes(g, r)
  local kind = g.params.pass
  if kind == 1 then return true end
  if kind == 2 then
    for _, v in ipairs(r.values) do if v == 2 then return true end end
  end
  return false
end

local function bank(g, p)
  p.score = p.score + g.state.turn
  g:record("banked", g.state.turn)
  g.state.turn = 0
end

function game.roll(g, p, r)
  if busts(g, r) then
    g:record("busts", 1)
    g.state.turn = 0
    g:next_turn()
    return
  end
  local points = gain(g, r)
  g:record("gain", points)
  g.state.turn = g.state.turn + points
  if p.score + g.state.turn >= g.params.target then
    bank(g, p)
    g:win(p)
    return
  end
  if g.params.hold_at == 0 then bank(g, p) end
  if passes(g, r) then
    bank(g, p)
    g:next_turn()
  end
end

game.actions = {
  hold = function(g, p)
    if g.state.turn == 0 then error("nothing to hold", 0) end
    bank(g, p)
    g:next_turn()
  end,
}

function game.bot(g, p)
  if g.params.hold_at > 0 and g.state.turn >= g.params.hold_at then return "hold" end
  return "roll"
end

return game
