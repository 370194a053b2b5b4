-- The floor under any Craps game played through the scripting API: only the tables the
-- API promises (per game a fresh g, players, the player, state and params; per roll a
-- roll table and its values, here 3.37 rolls a game as in Craps' pass line) and the dice
-- draws, with no rules at all. Compare with bench/craps_inline.lua: this much work
-- already bounds what a host running rule scripts can reach.
-- Usage: lua5.4 bench/craps_api_floor.lua [GAMES]
local games = tonumber(arg[1]) or 1000000
local random = math.random
math.randomseed(1)
local params = {balance = 200, ante = 5, step = 5, rounds = 1, dice = "2d6"}
local meta = {}

local start = os.clock()
local rolls = 0
for game = 1, games do
  local p = {name = "Ann", seat = 1, eliminated = false}
  local copy = {}
  for k, v in pairs(params) do copy[k] = v end
  local g = setmetatable({players = {p}, state = {}, params = copy, now = 0, current = p}, meta)
  -- 557/165 rolls on average: 3 rolls, and a 4th in 37.6% of games
  local n = (game * 0.37576) % 1 < 0.37576 and 4 or 3
  for _ = 1, n do
    local a, b = random(6), random(6)
    p.last_roll = setmetatable({values = {a, b}, value = a, total = a + b, flag = "ok", ok = true,
                                doubles = a == b, previous = nil}, meta)
  end
  rolls = rolls + n
end
local seconds = os.clock() - start
print(string.format("API tables only: %d games in %.3f s, %.0f games/s (%.4f rolls/game)",
  games, seconds, games / seconds, rolls / games))
