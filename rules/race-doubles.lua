-- Race to Space with doubles. Rolling a double (with one die: the same number twice
-- in a row by the same player; with several dice, e.g. --set dice=2d6: all dice
-- equal) triggers the Warp: the player moves twice the roll and rolls again.
local race = require "race"
local doubles = rules.extend(race, { name = "Race to Space (doubles)", params = { dice = "1d6" } })

local function is_double(r)
  if #r.values > 1 then return r.doubles end
  return r.previous ~= nil and r.previous.value == r.value
end

function doubles.move(g, p, r)
  if is_double(r) then
    g:say("%s rolled a double: warp! (moves %d and rolls again)", p.name, 2 * r.total)
    g.state.warp = p.seat
    return 2 * r.total
  end
  return r.total
end

function doubles.roll(g, p, r)
  g.state.warp = nil
  race.play_roll(g, p, r, doubles.move)
  -- (cleared once read: a warp kept in g would make every position after one differ
  -- from the same position without, and `dicehost odds` roll both)
  local warped = g.state.warp == p.seat
  g.state.warp = nil
  if warped and not g:is_over() then g:next_turn(p) end
end

return doubles
