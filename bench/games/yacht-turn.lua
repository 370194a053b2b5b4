-- One turn of Yacht, for one player: roll five dice, then up to twice keep some
-- (`roll keep 1 3`) and roll the others, then `score`. A yacht (five equal) wins, anything
-- else loses: P(a yacht within one turn) = 347897/7558272 with best keeping. It declares
-- no `unordered_dice`: `r.value` (the first die rolled) and `r.kept` stay as rolled, so
-- `odds` and `solve` play every ordered tuple; yacht-turn-sets.lua is the same turn written
-- so each set of values is played once.
local yacht = rules {
  name = "Yacht turn", players = 1, dice = "5d6", keep_dice = true,
}

function yacht.setup(g) g.state.rolls = 0 end

function yacht.roll(g, p, r)
  if not r.ok then g:say("%s: the roll did not count (%s), roll again", p.name, r.flag); return end
  if g.state.rolls >= 3 then error("three rolls a turn: score now", 0) end
  if g.state.rolls > 0 and not r.kept then error("roll again with 'roll keep ...'", 0) end
  if g.state.rolls == 0 and r.kept then error("roll all five first", 0) end
  g.state.rolls = g.state.rolls + 1
  -- Sorted in place (the last roll is part of a position: keeping reads it), so the
  -- position is the set of values whatever order they came in.
  table.sort(r.values)
  g.state.dice = {table.unpack(r.values)}
end

yacht.actions = {
  score = function(g, p)
    if g.state.rolls == 0 then error("roll first", 0) end
    local d = g.state.dice
    if d[1] == d[5] then g:win(p) else g:lose(p) end
  end,
}

-- Keep the dice showing the most common value (ties: the higher); score after three rolls
-- or on a yacht.
function yacht.bot(g, p)
  local rolls = g.state.rolls
  if rolls == 0 then return "roll" end
  local d = g.state.dice
  if rolls == 3 or d[1] == d[5] then return "score" end
  local count = {}
  for _, v in ipairs(p.last_roll.values) do count[v] = (count[v] or 0) + 1 end
  local best = 6
  for v = 6, 1, -1 do if (count[v] or 0) > (count[best] or 0) then best = v end end
  local keep = {}
  for i, v in ipairs(p.last_roll.values) do if v == best then keep[#keep + 1] = i end end
  return {"roll", keep = keep}
end

return yacht
