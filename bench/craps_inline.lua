-- The baseline for `dicehost sim rules/craps.lua --set rounds=1`: the same game (one
-- player, $200 balance, $5 ante, one pass-line decision per game) played inline in
-- plain Lua 5.4 with math.random, no host. Usage: lua5.4 bench/craps_inline.lua [GAMES]
local games = tonumber(arg[1]) or 1000000
local random = math.random
math.randomseed(1)

local function play()
  local p = {name = "Ann", balance = 200, ante = 5, bankrupt = false}
  local point, rolls = "off", 0
  while true do
    local total = random(6) + random(6)
    rolls = rolls + 1
    local won
    if point == "off" then
      if total == 7 or total == 11 then won = true
      elseif total == 2 or total == 3 or total == 12 then won = false
      else point = total end
    elseif total == point then won = true
    elseif total == 7 then won = false end
    if won ~= nil then
      if won then p.balance = p.balance + p.ante else p.balance = p.balance - p.ante end
      return p.balance > 200, rolls
    end
  end
end

local start = os.clock()
local wins, rolls = 0, 0
for _ = 1, games do
  local won, n = play()
  if won then wins = wins + 1 end
  rolls = rolls + n
end
local seconds = os.clock() - start
print(string.format("inline Lua craps: %d games in %.3f s, %.0f games/s (win rate %.5f, %.4f rolls/game)",
  games, seconds, games / seconds, wins / games, rolls / games))
