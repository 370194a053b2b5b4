-- Pig (examples/rules/pig.lua, copied beside this file by bench/solve-pig.sh) with a
-- per-turn roll counter kept for statistics only: recorded when a player holds, read by
-- nothing else. `statistics = {"rolls"}` keeps it out of solve's positions; without
-- the declaration (the bench runs a copy without it) the counter multiplies them.
local pig = require("pig")
local counted = rules.extend(pig, {name = "Pig (a roll counter)", statistics = {"rolls"}})

function counted.setup(g)
  pig.setup(g)
  g.state.rolls = 0
end

function counted.turn(g, p)
  pig.turn(g, p)
  g.state.rolls = 0
end

function counted.roll(g, p, r)
  if r.ok then g.state.rolls = g.state.rolls + 1 end
  return pig.roll(g, p, r)
end

counted.actions = {
  hold = function(g, p)
    g:record("rolls", g.state.rolls)
    return pig.actions.hold(g, p)
  end,
}

return counted
