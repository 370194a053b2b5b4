-- A game whose load-time code and setup hook try to build strings of about 100 MB,
-- each under pcall: the game's memory cap (64 MiB) must refuse both inside the script,
-- whichever command runs it (play, check, odds, solve, fuzz, sim). If a cap did not
-- hold, the script raises with "memory cap did not hold", which the commands report.

local function probes(where)
  -- 100 short strings joined by a 1 MB separator: 99,000,100 bytes.
  local joined = pcall(function()
    local parts = {}
    for i = 1, 100 do parts[i] = "ab" end
    return #table.concat(parts, string.rep("x", 1000000))
  end)
  -- Each of a million bytes replaced by 100: 100 MB.
  local replaced = pcall(function()
    return #string.rep("x", 1000000):gsub(".", string.rep("y", 100))
  end)
  if joined or replaced then
    error("memory cap did not hold " .. where .. " (concat " .. tostring(joined) .. ", gsub " .. tostring(replaced) .. ")", 0)
  end
end

probes("at load")

local game = rules { name = "Memory cap probe", players = {2, 2}, dice = "1d6" }

function game.setup(g)
  probes("in setup")
  for _, p in ipairs(g.players) do p.score = 0 end
end

function game.roll(g, p, r)
  if not r.ok then return end
  p.score = p.score + r.value
  if p.score >= 6 then g:win(p) else g:next_turn() end
end

function game.bot(g, p) return "roll" end

return game
