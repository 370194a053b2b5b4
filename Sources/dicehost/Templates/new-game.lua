-- {{TITLE}}: a dice race from the `dicehost new` template. Each roll adds to your
-- turn total; `hold` banks it and passes the turn; a 1 loses the turn total. The
-- first to `target` points wins. Edit freely: `dicehost play {{NAME}}.lua --watch`
-- reloads on every save; docs/tutorial.md walks through a first game and
-- docs/scripting.md describes every hook and function.
local game = rules {
  name = "{{TITLE}}", players = {2, 4}, dice = "1d6",
  params = { target = 20 },            -- try: dicehost play {{NAME}}.lua --set target=30
}

function game.setup(g)
  for _, p in ipairs(g.players) do p.score = 0 end
  g.state.turn_total = 0
end

function game.turn(g, p)
  g.state.turn_total = 0
  g:say("%s to roll (score %d of %d)", p.name, p.score, g.params.target)
end

function game.roll(g, p, r)
  -- A smart die flags a roll that landed tilted or was too short: it has no values
  -- and does not count. Say so and return; the same player rolls again.
  if not r.ok then
    g:say("%s: the roll did not count (%s), roll again", p.name, r.flag)
    return
  end
  if r.value == 1 then
    g:say("%s rolled a 1 and loses %d", p.name, g.state.turn_total)
    g:next_turn()
    return
  end
  g.state.turn_total = g.state.turn_total + r.value
  if p.score + g.state.turn_total >= g.params.target then
    p.score = p.score + g.state.turn_total
    g:win(p)
  else
    g:say("turn total %d", g.state.turn_total)
  end
end

game.actions = {
  -- `hold` at the prompt; only the player whose turn it is may hold.
  hold = function(g, p)
    p.score = p.score + g.state.turn_total
    g:say("%s banks %d (score %d)", p.name, g.state.turn_total, p.score)
    g:next_turn()
  end,
}

-- The prompt's status line.
function game.status(g) return string.format("turn total %d", g.state.turn_total) end

-- What a player does in `dicehost play --auto` and `dicehost sim`.
function game.bot(g, p)
  if g.state.turn_total >= 8 then return "hold" end
  return "roll"
end

return game
