-- Planted bug: a broken invariant. Chips move between the players and the pot and are
-- never made or lost: invariant(g) says so. A bet of 3 loses a chip on the way.
local chips = rules { name = "Broken invariant", players = {2, 4}, dice = "1d6" }

function chips.setup(g)
  for _, p in ipairs(g.players) do p.chips = 10 end
  g.state.pot = 0
end

function chips.roll(g, p, r)
  if not r.ok then return end
  if r.value == 6 then
    p.chips, g.state.pot = p.chips + g.state.pot, 0
    g:say("%s takes the pot (%d chips)", p.name, p.chips)
    if p.chips >= 10 * #g.players then return g:win(p) end
  end
  g:next_turn()
end

chips.actions = {
  bet = function(g, p, n)
    if math.type(n) ~= "integer" or n < 1 or n > 3 then error("bet 1 to 3 chips", 0) end
    if n > p.chips then error("you have " .. p.chips .. " chips", 0) end
    p.chips = p.chips - n
    g.state.pot = g.state.pot + (n == 3 and 2 or n) -- the bug: a bet of 3 pays 2 in
  end,
}
chips.choices = { bet = {1, 2, 3} }

function chips.invariant(g)
  local total = g.state.pot
  for _, p in ipairs(g.players) do total = total + p.chips end
  assert(total == 10 * #g.players, ("chips are not conserved: %d, not %d"):format(total, 10 * #g.players))
end

function chips.bot(g, p)
  if p.chips > 0 then return {"bet", 1} end
  return "roll"
end

return chips
