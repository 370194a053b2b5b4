-- Planted bug: a hook error in a rare position. A race to 20; on exactly 13, a roll
-- of 5 reads a bonus table that was never made.
local race = rules { name = "Rare hook error", players = {2, 4}, dice = "1d6" }

function race.setup(g)
  for _, p in ipairs(g.players) do p.score = 0 end
end

function race.roll(g, p, r)
  if not r.ok then return end
  if p.score == 13 and r.value == 5 then
    p.score = p.score + g.state.bonus.unlucky -- the bug: g.state.bonus is nil
  end
  p.score = p.score + r.value
  if p.score >= 20 then g:win(p) else g:next_turn() end
end

function race.bot(g, p) return "roll" end

return race
