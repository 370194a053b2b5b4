-- Planted bug: a game that can never end. A race to 20; two 1s in a row freeze the
-- scores (meant as a penalty turn), and nothing ever thaws them.
local race = rules { name = "Livelock", players = {2, 4}, dice = "1d6" }

function race.setup(g)
  for _, p in ipairs(g.players) do p.score = 0 end
end

function race.roll(g, p, r)
  if not r.ok then return end
  if g.state.frozen then g:next_turn() return end -- the bug: frozen for ever
  if r.value == 1 and g.state.last == 1 then g.state.frozen = true end
  g.state.last = r.value
  p.score = p.score + r.value
  if p.score >= 20 then g:win(p) else g:next_turn() end
end

function race.bot(g, p) return "roll" end

return race
