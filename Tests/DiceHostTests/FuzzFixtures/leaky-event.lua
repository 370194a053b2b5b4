-- Planted bug: an event that leaks a cup. Each player rolls one die under a cup; then
-- the last to roll calls, the cups are shown and the higher die scores. First to 3
-- points wins. A six makes its roller grin, and everyone is told.
local high = rules { name = "Leaky event", players = {2, 3}, dice = "1d6", secret_rolls = true }

function high.setup(g)
  for _, p in ipairs(g.players) do p.points = 0 end
  g.state.phase = "rolling"
end

function high.roll(g, p, r)
  if g.state.phase ~= "rolling" then error("the cups are rolled: call", 0) end
  if not r.ok then return end
  p.cup = r.value
  if r.value == 6 then g:say("%s grins", p.name) end -- the bug: everyone learns of the six
  for _, q in ipairs(g.players) do
    if not q.cup then return g:next_turn(q) end
  end
  g.state.phase = "calling"
end

high.actions = {
  call = function(g, p)
    if g.state.phase ~= "calling" then error("roll first", 0) end
    local best
    for _, q in ipairs(g.players) do
      g:reveal(q, {q.cup})
      if not best or q.cup > best.cup then best = q end
    end
    best.points = best.points + 1
    g:say("%s scores (%d)", best.name, best.points)
    for _, q in ipairs(g.players) do q.cup = nil end
    if best.points >= 3 then return g:win(best) end
    g.state.phase = "rolling"
    g:next_turn(g.players[1])
  end,
}

function high.view(g, viewer)
  local v = {phase = g.state.phase, cups = {}, points = {}}
  for _, q in ipairs(g.players) do
    v.points[q.name] = q.points
    local mine = viewer and viewer == q
    v.cups[q.name] = mine and q.cup or (q.cup and "hidden")
  end
  return v
end

function high.bot(v, p)
  if v.phase == "calling" then return "call" end
  return "roll"
end

return high
