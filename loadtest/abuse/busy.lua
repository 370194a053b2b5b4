-- The benchmark's game (loadtest/abuse.py): `roll` is what a healthy room plays;
-- `spin` runs to the instruction budget (and is rolled back), what an abusive room sends.
local r = rules { name = "Busy", players = {1, 2}, dice = "1d6" }
function r.roll(g, p, roll) g:say("rolled %d", roll.total) end
r.anytime = { "spin" }
r.actions = { spin = function(g, p) while true do end end }
return r
