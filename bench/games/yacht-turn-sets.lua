-- One turn of Yacht as yacht-turn.lua, written so a position is the set of dice and the
-- rolls made: it declares `unordered_dice` (odds and solve play each set of values once,
-- weighted by its orders), keeps `r.value` with the sorted values, and clears `r.kept`
-- once read (the roll becomes `p.last_roll`, and a position holds all of it: which
-- places were kept would tell apart positions the rules treat alike). Same value:
-- P(a yacht within one turn) = 347897/7558272 with best keeping.
local yacht = rules {
  name = "Yacht turn (sets)", players = 1, dice = "5d6", keep_dice = true, unordered_dice = true,
}

function yacht.setup(g) g.state.rolls = 0 end

function yacht.roll(g, p, r)
  if not r.ok then g:say("%s: the roll did not count (%s), roll again", p.name, r.flag); return end
  if g.state.rolls >= 3 then error("three rolls a turn: score now", 0) end
  if g.state.rolls > 0 and not r.kept then error("roll again with 'roll keep ...'", 0) end
  if g.state.rolls == 0 and r.kept then error("roll all five first", 0) end
  g.state.rolls = g.state.rolls + 1
  table.sort(r.values)
  r.value = r.values[1]
  r.kept = nil
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
  for _, v in ipairs(d) do count[v] = (count[v] or 0) + 1 end
  local best = 6
  for v = 6, 1, -1 do if (count[v] or 0) > (count[best] or 0) then best = v end end
  local keep = {}
  for i, v in ipairs(d) do if v == best then keep[#keep + 1] = i end end
  return {"roll", keep = keep}
end

return yacht
