-- The ceiling for any host of the Pig rules: the shipped examples/rules/pig.lua (goal
-- 100, hold at 20, two players), driven by the thinnest stand-in for the host that still
-- gives the script what the scripting API promises - a fresh g, players, state and params
-- per game, each roll as a table with its values, the bot asked before each move and its
-- "hold" made as an action, LED commands and g:say as empty functions - but keeps no
-- log, no metrics, no budget, no argument checks and no seeds. Compare `dicehost sim`
-- with this, not only with the inline loop (bench/pig_inline.lua), which plays a
-- different, table-free program.
-- Usage: lua5.4 bench/pig_rules_bare.lua [GAMES]
local games = tonumber(arg[1]) or 100000
local random = math.random
math.randomseed(1)

local declared
function rules(declaration) declared = declaration; return declaration end
local function nothing() end
led = {ALL = 63, face = function(f) return 1 << (f - 1) end, blink = nothing, set = nothing, off = nothing, fade = nothing}

local outcome, pending
local G = {}
G.__index = G
G.say = nothing
G.record = nothing
function G:win(p) outcome = p end
function G:next_turn()
  local c = self.current
  pending = self.players[c.seat % #self.players + 1]
  self.current = pending
end

local Roll = {}
Roll.__index = Roll
local pig = dofile("examples/rules/pig.lua")
local params = {target = 100, hold = 20}

local start = os.clock()
local wins, rolls = 0, 0
for _ = 1, games do
  local ann, bob = {name = "Ann", seat = 1, eliminated = false}, {name = "Bob", seat = 2, eliminated = false}
  local g = setmetatable({players = {ann, bob}, state = {}, params = {target = params.target, hold = params.hold},
                          now = 0, current = ann}, G)
  outcome, pending = nil, ann
  pig.setup(g)
  while outcome == nil do
    if pending then local p = pending; pending = nil; pig.turn(g, p) end
    local p = g.current
    if pig.bot(g, p) == "hold" then
      pig.actions.hold(g, p)
    else
      local v = random(6)
      rolls = rolls + 1
      local r = setmetatable({values = {v}, value = v, total = v, flag = "ok", ok = true, doubles = false,
                              previous = rawget(p, "last_roll")}, Roll)
      pig.roll(g, p, r)
      r.previous = nil
      p.last_roll = r
    end
  end
  if outcome == ann then wins = wins + 1 end
end
local seconds = os.clock() - start
print(string.format("bare-host Lua pig: %d games in %.3f s, %.0f games/s (first player wins %.5f, %.3f rolls/game)",
  games, seconds, games / seconds, wins / games, rolls / games))
