-- The ceiling for any host of the Craps rules: the shipped rules/craps.lua (with
-- rounds=1, one player), driven by the thinnest stand-in for the host that still gives
-- the script what the scripting API promises - a fresh g, players, state and params
-- per game, and each roll as a table with its values - but keeps no log, no metrics,
-- no budget and no seeds. Compare `dicehost sim` with this, not only with the inline
-- loop (bench/craps_inline.lua), which plays a different, table-free program.
-- Usage: lua5.4 bench/craps_rules_bare.lua [GAMES]
local games = tonumber(arg[1]) or 1000000
local random = math.random
math.randomseed(1)

local declared
function rules(declaration) declared = declaration; return declaration end

local outcome, pending
local G = {}
G.__index = G
function G:say() end
function G:record() end
function G:win(p) outcome = p.name end
function G:draw() outcome = "draw" end
function G:next_turn() pending = true end

local Roll = {}
Roll.__index = Roll
local craps = dofile("rules/craps.lua")
local params = {rounds = 1, dice = "2d6"}
for k, v in pairs(declared.params) do if params[k] == nil then params[k] = v end end

local start = os.clock()
local wins, rolls = 0, 0
for _ = 1, games do
  local p = {name = "Ann", seat = 1, eliminated = false}
  local copy = {}
  for k, v in pairs(params) do copy[k] = v end
  local g = setmetatable({players = {p}, state = {}, params = copy, now = 0, current = p}, G)
  outcome, pending = nil, true
  craps.setup(g)
  while outcome == nil do
    if pending then pending = false; craps.turn(g, p) end
    craps.bot(g, p)
    local a, b = random(6), random(6)
    rolls = rolls + 1
    local r = setmetatable({values = {a, b}, value = a, total = a + b, flag = "ok", ok = true,
                            doubles = a == b, previous = rawget(p, "last_roll")}, Roll)
    craps.roll(g, p, r)
    r.previous = nil
    p.last_roll = r
  end
  if outcome == "Ann" then wins = wins + 1 end
end
local seconds = os.clock() - start
print(string.format("bare-host Lua craps: %d games in %.3f s, %.0f games/s (win rate %.5f, %.4f rolls/game)",
  games, seconds, games / seconds, wins / games, rolls / games))
