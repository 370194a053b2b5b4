-- Planted bug: one that appears only after a restart (or an undo). The script counts
-- games and rolls in its own locals instead of in g: a restart or an undo does not
-- put them back, and from the second game on the turn hook reads a table setup no
-- longer makes.
local race = rules { name = "After restart", players = {2, 4}, dice = "1d6" }

local games = 0 -- the bug: state outside g

function race.setup(g)
  games = games + 1
  for _, p in ipairs(g.players) do p.score = 0 end
  if games == 1 then g.state.rules_shown = {} end
end

function race.turn(g, p)
  g.state.rules_shown[p.name] = true
end

function race.roll(g, p, r)
  if not r.ok then return end
  p.score = p.score + r.value
  if p.score >= 20 then g:win(p) else g:next_turn() end
end

function race.bot(g, p) return "roll" end

return race
