-- Planted bug: one that appears only after an undo. The script numbers the rolls in
-- a local instead of in g, so an undo does not take the count back: the roll played
-- again after `undo` (`redo`) is announced with another number.
local race = rules { name = "After undo", players = {2, 4}, dice = "1d6" }

local rolls = 0 -- the bug: state outside g

function race.setup(g)
  for _, p in ipairs(g.players) do p.score = 0 end
end

function race.roll(g, p, r)
  if not r.ok then return end
  rolls = rolls + 1
  g:say("roll number %d", rolls)
  p.score = p.score + r.value
  if p.score >= 20 then g:win(p) else g:next_turn() end
end

function race.bot(g, p) return "roll" end

return race
