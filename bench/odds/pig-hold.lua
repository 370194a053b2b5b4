-- Pig for the odds benchmark: roll to add to your turn total, hold to bank it, a 1
-- loses the turn total; first to `target` wins. The bots hold at `hold` (the classic
-- hold-at-20 strategy by default). Unlike examples/rules/pig.lua it says nothing and
-- blinks nothing: only the game.
local pig = rules {
  name = "Pig (hold at N)", players = {2, 4}, dice = "1d6",
  params = { target = 100, hold = 20 },
}

function pig.setup(g)
  g.state.turn_total = 0
  for _, p in ipairs(g.players) do p.score = 0 end
end

function pig.turn(g, p)
  g.state.turn_total = 0
end

function pig.roll(g, p, r)
  if r.value == 1 then
    g:next_turn()
    return
  end
  g.state.turn_total = g.state.turn_total + r.value
  if p.score + g.state.turn_total >= g.params.target then
    p.score = p.score + g.state.turn_total
    g:win(p)
  end
end

pig.actions = {
  hold = function(g, p)
    p.score = p.score + g.state.turn_total
    g:next_turn()
  end,
}

function pig.bot(g, p)
  if g.state.turn_total >= g.params.hold then return "hold" end
  return "roll"
end

return pig
