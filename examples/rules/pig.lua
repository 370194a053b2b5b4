-- Pig, with a twist: roll to add to your turn total, "hold" to bank it; a 1 loses
-- the turn total. First to the target wins. Written from docs/scripting.md alone.
-- The bot holds at a turn total of `hold` (reaching the target wins at once).
local pig = rules {
  name = "Pig", players = {2, 4}, dice = "1d6",
  params = { target = 20, hold = 10 },
}

-- LED animations, made once (a table built in every roll is work a simulation repeats
-- millions of times).
local LOST = {on = 100, cycle = 200, count = 2, priority = 1}
local GAINED = {on = 100, cycle = 50, count = 3}

function pig.setup(g)
  g.state.turn_total = 0
  for _, p in ipairs(g.players) do p.score = 0 end
end

function pig.turn(g, p)
  g.state.turn_total = 0
  g:say("%s to roll (score %d)", p.name, p.score)
end

function pig.roll(g, p, r)
  if not r.ok then -- a smart die's flagged roll (tilt, too_short) has no value
    g:say("%s: the roll did not count (%s), roll again", p.name, r.flag)
    return
  end
  local state, value = g.state, r.value -- read once: each g.state.x is two lookups
  if value == 1 then
    g:say("%s rolled %s and loses %d", p.name, r, state.turn_total)
    led.blink(led.ALL, "red", LOST)
    g:next_turn()
    return
  end
  local total = state.turn_total + value
  state.turn_total = total
  led.blink(led.face(value), "green", GAINED)
  if p.score + total >= g.params.target then
    p.score = p.score + total
    g:win(p)
  end
end

pig.actions = {
  hold = function(g, p)
    if p ~= g.current then error("it is not " .. p.name .. "'s turn", 2) end
    p.score = p.score + g.state.turn_total
    g:say("%s holds at %d", p.name, p.score)
    g:record("held", g.state.turn_total)
    g:next_turn()
  end,
}

function pig.bot(g, p)
  if g.state.turn_total >= g.params.hold then return "hold" end
  return "roll"
end

return pig
