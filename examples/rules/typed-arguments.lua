-- Says what each argument of `call` is when it reaches the rules: its Lua type, its
-- math.type for a number, and its value. Rule tests and replays use it to check that
-- an input's arguments keep their types ("07" a string, 2.0 a float, 2 an integer).
local typed = rules {
  name = "Typed arguments", players = {1, 2}, dice = "1d6",
}

function typed.setup(g)
  g.state.calls = 0
end

-- A six wins, so the game ends (the fuzzer checks that every game can). A roll a smart
-- die flags (tilt, too_short) does not count: the same player rolls again.
function typed.roll(g, p, r)
  if not r.ok then return end
  g:say("%s rolled %d", p.name, r.total)
  if r.total == 6 then g:win(p) else g:next_turn() end
end

local function describe(value)
  if type(value) == "number" then return math.type(value) .. " " .. tostring(value) end
  if type(value) == "string" then return string.format("string %q", value) end
  return type(value) .. " " .. tostring(value)
end

typed.actions = {
  call = function(g, p, ...)
    g.state.calls = g.state.calls + 1
    local parts = {}
    for i = 1, select("#", ...) do parts[#parts + 1] = describe((select(i, ...))) end
    g:say("%s called with %s", p.name, #parts == 0 and "nothing" or table.concat(parts, ", "))
  end,
}

return typed
