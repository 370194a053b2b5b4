-- Planted bug: an anytime action that breaks turn order. Anyone may `cheer` at any
-- time; a cheer is meant to say something, but it also passes the turn on. The rules'
-- invariant: the turn goes round in seat order (g.state.next_seat is whose turn it is).
local race = rules { name = "Anytime turn order", players = {2, 4}, dice = "1d6" }

function race.setup(g)
  for _, p in ipairs(g.players) do p.score = 0 end
  g.state.next_seat = 1
end

function race.roll(g, p, r)
  if not r.ok then return end
  p.score = p.score + r.value
  if p.score >= 20 then return g:win(p) end
  g.state.next_seat = p.seat % #g.players + 1
  g:next_turn()
end

race.anytime = {"cheer"}
race.actions = {
  cheer = function(g, p)
    g:say("%s cheers", p.name)
    if p ~= g.current then g:next_turn() end -- the bug: a cheer out of turn moves the turn
  end,
}

function race.invariant(g)
  if g.current then
    assert(g.current.seat == g.state.next_seat, ("turn order broken: %s has the turn, seat %d should"):format(g.current.name, g.state.next_seat))
  end
end

function race.bot(g, p) return "roll" end

return race
