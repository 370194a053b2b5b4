-- Pig (as examples/rules/pig.lua) with a per-turn roll counter kept only to report on
-- the game: each turn records how many rolls it took. Positions that differ only in the
-- counter are told apart, so `odds` and `solve` find far more of them than Pig has; the
-- look at what grows when they stop names g.state.rolls, and suggests declaring it a
-- statistic (play never reads it).
local pig = rules {
  name = "Pig with a roll counter", players = {2, 4}, dice = "1d6",
  params = { target = 20, hold = 10 },
}

function pig.setup(g)
  g.state.turn_total = 0
  g.state.rolls = 0
  for _, p in ipairs(g.players) do p.score = 0 end
end

function pig.turn(g, p)
  g.state.turn_total = 0
  g.state.rolls = 0
end

function pig.roll(g, p, r)
  g.state.rolls = g.state.rolls + 1
  if r.value == 1 then
    g:record("rolls_per_turn", g.state.rolls)
    g:next_turn()
    return
  end
  g.state.turn_total = g.state.turn_total + r.value
  if p.score + g.state.turn_total >= g.params.target then
    p.score = p.score + g.state.turn_total
    g:record("rolls_per_turn", g.state.rolls)
    g:win(p)
  end
end

pig.actions = {
  hold = function(g, p)
    if g.state.turn_total == 0 then error("nothing to hold", 0) end
    p.score = p.score + g.state.turn_total
    g:record("rolls_per_turn", g.state.rolls)
    g:next_turn()
  end,
}

function pig.bot(g, p)
  if g.state.turn_total >= g.params.hold then return "hold" end
  return "roll"
end

return pig
