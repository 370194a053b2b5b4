-- Runs pieces of Lua's own test suite inside DiceHost's sandbox (see README.md beside
-- this file). Each piece is a module beside this script; `run NAME` requires it at
-- input time, as a rule script's chunk loaded during play, under one input's budget
-- and the sandbox's rules (read-only globals and libraries, no io/os/debug).
-- `done NAME` marks the end of the piece's output for the harness.
local driver = rules { name = "Lua's tests in the sandbox", players = 1, dice = "1d6" }

function driver.roll(g, p, r) end -- (every rule set takes rolls; this one has no use for them)

driver.actions = {
  run = function(g, p, name)
    local ok, problem = pcall(require, name)
    if ok then
      g:say("@@ pass %s", name)
    else
      g:say("@@ fail %s: %s", name, tostring(problem))
    end
  end,
  done = function(g, p, name)
    g:say("@@ done %s", name)
  end,
}

return driver
