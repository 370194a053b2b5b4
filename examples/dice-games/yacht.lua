-- Yacht (short): five dice, up to three rolls a turn. The first roll is `roll`; after
-- it, `roll keep 1 3` keeps those dice and rolls the others (twice at most); `score`
-- banks the turn: the sum of the dice, or 50 for a yacht (all five equal). After
-- `rounds` turns each, the highest score wins (equal scores: a draw).
local yacht = rules {
  name = "Yacht", players = {1, 4}, dice = "5d6", keep_dice = true,
  params = { rounds = 3 },
}

function yacht.setup(g)
  for _, p in ipairs(g.players) do p.score = 0; p.turns = 0 end
end

function yacht.turn(g, p)
  g.state.rolls = 0
  p.last_roll = nil -- each turn starts with a fresh roll
  g:say("%s to roll (score %d, turn %d of %d)", p.name, p.score, p.turns + 1, g.params.rounds)
end

function yacht.roll(g, p, r)
  if g.state.rolls >= 3 then error("three rolls a turn: score now", 0) end
  if not r.ok then -- a smart die's flagged roll has no dice: it is not one of the three
    g:say("%s: the roll did not count (%s), roll again", p.name, r.flag)
    return
  end
  if g.state.rolls > 0 and not r.kept then error("roll again with 'roll keep ...' (or keep none: 'roll keep')", 0) end
  g.state.rolls = g.state.rolls + 1
  g:say("roll %d of 3", g.state.rolls)
end

local function finish(g)
  local best, tied = nil, false
  for _, q in ipairs(g.players) do
    if best == nil or q.score > best.score then best, tied = q, false
    elseif q.score == best.score then tied = true end
  end
  if tied then g:draw() else g:win(best) end
end

yacht.actions = {
  score = function(g, p)
    local r = p.last_roll
    if not r then error("roll first", 0) end
    local points = r.doubles and 50 or r.total
    p.score = p.score + points
    p.turns = p.turns + 1
    g:say("%s scores %d (total %d)", p.name, points, p.score)
    local last = g.players[#g.players]
    if p == last and p.turns >= g.params.rounds then finish(g) else g:next_turn() end
  end,
}

-- Keep the dice showing the most common value (ties: the higher); score after three rolls.
function yacht.bot(g, p)
  if g.state.rolls == 0 then return "roll" end
  if g.state.rolls == 3 then return "score" end
  local count = {}
  for _, v in ipairs(p.last_roll.values) do count[v] = (count[v] or 0) + 1 end
  local best = 6
  for v = 6, 1, -1 do if (count[v] or 0) > (count[best] or 0) then best = v end end
  local keep = {}
  for i, v in ipairs(p.last_roll.values) do if v == best then keep[#keep + 1] = i end end
  return {"roll", keep = keep}
end

return yacht
