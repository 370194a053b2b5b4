-- The baseline for `dicehost sim examples/rules/pig.lua --set target=100 --set hold=20`:
-- the same game (two players, goal 100; roll, and hold at a turn total of 20 or when
-- holding reaches the goal; a 1 loses the turn total) played inline in plain Lua 5.4
-- with math.random, no host. Usage: lua5.4 bench/pig_inline.lua [GAMES]
local games = tonumber(arg[1]) or 200000
local random = math.random
math.randomseed(1)
local GOAL, HOLD = 100, 20

local function play()
  local scores = {0, 0}
  local player, turn_total, rolls = 1, 0, 0
  while true do
    local score = scores[player]
    if turn_total >= HOLD or score + turn_total >= GOAL then
      scores[player] = score + turn_total
      if scores[player] >= GOAL then return player, rolls end
      player, turn_total = 3 - player, 0
    else
      local v = random(6)
      rolls = rolls + 1
      if v == 1 then
        player, turn_total = 3 - player, 0
      else
        turn_total = turn_total + v
      end
    end
  end
end

local start = os.clock()
local wins, rolls = 0, 0
for _ = 1, games do
  local winner, n = play()
  if winner == 1 then wins = wins + 1 end
  rolls = rolls + n
end
local seconds = os.clock() - start
print(string.format("inline Lua pig: %d games in %.3f s, %.0f games/s (first player wins %.5f, %.3f rolls/game)",
  games, seconds, games / seconds, wins / games, rolls / games))
