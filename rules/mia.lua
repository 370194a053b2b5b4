-- Mia (Mäxchen). Two dice under a cup, seen only by the roller. A roll reads as a
-- two-digit number, the higher die first: 21 ("Mia") is the highest, then the doubles
-- (66 down to 11), then the rest (65 down to 31). After rolling, the roller announces a
-- value (`announce 54`) that must beat the last announcement, true or not. The next
-- player either believes it (`believe`) and rolls, having to beat it in turn (believing
-- a Mia loses a life at once: nothing beats it), or calls
-- (`call`): the cup is shown, and if it holds less than announced the announcer loses a
-- life, else the caller does. The loser starts a fresh round; a player without lives is
-- out, and the last one in wins. Bots decide from what they see, and lie at the rate
-- `bluff` even when the truth would do.
-- The view holds all a player needs to decide: the standing announcement, and while
-- answering it the one it beat (what the announcer had to beat tells what their cup
-- likely holds), their own cup, the lives. A believed cup is thrown away, so earlier events tell nothing more,
-- and `view_is_complete` lets `dicehost solve` take each view as an information set.
local mia = rules {
  name = "Mia", players = {2, 6}, dice = "2d6", secret_rolls = true, view_is_complete = true,
  params = { lives = 3, bluff = 0.2 },
  param_info = {
    lives = {label = "Lives", description = "a player with none left is out", min = 1, max = 9},
    bluff = {label = "How often bots lie", bot = true, min = 0, max = 1, step = 0.05},
  },
}

-- The reading of two dice: 21, 11..66 for doubles, else higher then lower.
local function reading(a, b)
  if a < b then a, b = b, a end
  return a * 10 + b
end

-- The order of readings: Mia above the doubles above the rest.
local function rank(value)
  if value == 21 then return 1000 end
  local hi, lo = value // 10, value % 10
  if hi == lo then return 100 + hi end
  return value
end

local function valid(value)
  if math.type(value) ~= "integer" then return false end
  local hi, lo = value // 10, value % 10
  return hi >= 1 and hi <= 6 and lo >= 1 and lo <= 6 and hi >= lo
end

-- Every reading, lowest first (for bots and messages).
local ladder = {}
for hi = 1, 6 do for lo = 1, hi do ladder[#ladder + 1] = hi * 10 + lo end end
table.sort(ladder, function(x, y) return rank(x) < rank(y) end)

local function next_player(g, p)
  local q = p
  repeat q = g.players[q.seat % #g.players + 1] until not q.eliminated
  return q
end

local function fresh_round(g, starter)
  g.state.phase, g.state.announced, g.state.by, g.state.cup, g.state.beaten = "roll", nil, nil, nil, nil
  g:say("%s starts a fresh round", starter.name)
  g:next_turn(starter)
end

function mia.setup(g)
  for _, p in ipairs(g.players) do p.lives = g.params.lives end
  g.state.phase = "roll"
end

function mia.roll(g, p, r)
  if g.state.phase ~= "roll" then error("announce a value, or believe or call, first", 0) end
  if not r.ok then -- a smart die's flagged roll has no dice: nothing under the cup
    g:say("%s: the roll did not count (%s), roll again", p.name, r.flag)
    return
  end
  g.state.cup = {owner = p.name, values = {r.values[1], r.values[2]}, value = reading(r.values[1], r.values[2])}
  g.state.phase = "announce"
  g:tell(p, "under your cup: %d", g.state.cup.value)
end

local function lose_life(g, p)
  p.lives = p.lives - 1
  if p.lives <= 0 then
    g:say("%s has no lives left and is out", p.name)
    local nxt = next_player(g, p)
    g:eliminate(p)
    if not g:is_over() then fresh_round(g, nxt) end
  else
    g:say("%s loses a life (%d left)", p.name, p.lives)
    fresh_round(g, p)
  end
end

mia.actions = {
  announce = function(g, p, value)
    if g.state.phase ~= "announce" then error("roll first, then announce", 0) end
    if not valid(value) then error("announce a reading: 21, a double like 55, or two dice higher first like 64; got " .. tostring(value), 0) end
    local last = g.state.announced
    if last and rank(value) <= rank(last) then error(("%d does not beat %d"):format(value, last), 0) end
    g.state.announced, g.state.by, g.state.phase, g.state.beaten = value, p.name, "respond", last
    g:say("%s announces %d%s", p.name, value, value == 21 and " (Mia!)" or "")
    g:next_turn(next_player(g, p))
  end,
  believe = function(g, p)
    if g.state.phase ~= "respond" then error("there is no announcement to believe", 0) end
    if g.state.announced == 21 then
      g:say("%s believes the Mia: nothing beats it", p.name)
      return lose_life(g, p)
    end
    g:say("%s believes %d and rolls", p.name, g.state.announced)
    g.state.cup, g.state.phase = nil, "roll"
  end,
  call = function(g, p)
    if g.state.phase ~= "respond" or not g.state.cup then error("there is no announcement to call", 0) end
    local cup, announced = g.state.cup, g.state.announced
    local announcer = g:player(cup.owner)
    g:reveal(announcer, cup.values) -- shown by the event, not kept in g (see liars-dice.lua)
    local liar = rank(cup.value) < rank(announced)
    g:say("%s calls: the cup shows %d, %s announced %d: %s", p.name, cup.value, announcer.name, announced,
      liar and "a lie" or "true")
    g:record("lies_caught", liar and 1 or 0)
    lose_life(g, liar and announcer or p)
  end,
}
-- The moves of the position (the table's buttons, `solve`): an announcement beats the
-- last one; believing and calling answer one.
mia.choices = {
  announce = function(g, p)
    local list, last = {}, g.state.announced
    if g.state.phase ~= "announce" then return list end
    for _, x in ipairs(ladder) do
      if not last or rank(x) > rank(last) then list[#list + 1] = x end
    end
    return list
  end,
  believe = function(g, p) return g.state.phase == "respond" and {{}} or {} end,
  call = function(g, p) return g.state.phase == "respond" and g.state.cup and {{}} or {} end,
}

function mia.status(g)
  local lives = {}
  for _, p in ipairs(g.players) do lives[#lives + 1] = p.name .. " " .. p.lives end
  return (g.state.announced and ("announced %d · "):format(g.state.announced) or "") .. g.state.phase .. " · " .. table.concat(lives, ", ")
end

-- What `viewer` sees: the announcement, every player's lives, the cup as hidden dice -
-- its values only for the one who rolled it (a call shows it to all by a `reveal` event).
function mia.view(g, viewer)
  local v = {phase = g.state.phase, announced = g.state.announced, by = g.state.by,
             beaten = g.state.phase == "respond" and g.state.beaten or nil,
             turn = g.current and g.current.name,
             you = viewer and viewer.name, params = {bluff = g.params.bluff}, players = {}}
  for i, p in ipairs(g.players) do v.players[i] = {name = p.name, lives = p.lives, out = p.eliminated} end
  local cup = g.state.cup
  if cup then
    local values = {cup.values[1], cup.values[2]}
    local roll = {values = values, total = values[1] + values[2], flag = "ok", ok = true}
    local seen = viewer ~= nil and viewer.name == cup.owner
    v.cup = {owner = cup.owner, dice = seen and roll or hidden("dice", 2), value = seen and cup.value or nil}
  end
  return v
end

-- The table each seat sees (the browser draws it), from the seat's view v and t's facts:
-- the standing announcement, the cup (its dice only for its owner), every player's
-- lives. `t.shown` is the reveal of this round's call only (the host empties it at the
-- next roll): a live cup is never drawn from it, only the cup shown at the call, before
-- the next round's first roll, and at the end.
function mia.table(v, t)
  local you, current = t.you, t.current
  local tab = {balances = {}}
  for i, p in ipairs(v.players) do
    tab.balances[i] = {name = p.name == you and p.name .. " (you)" or p.name,
                       value = p.out and "out" or (p.lives .. (p.lives == 1 and " life" or " lives"))}
  end
  local mia_text = function(x) return x == 21 and "21 (Mia!)" or tostring(x) end
  local function whose(name) return name == you and "your" or name .. "'s" end
  if t.over then
    tab.result = t.winner == you and "You won" or (t.winner or "Nobody") .. " won"
    tab.headline = tab.result
  elseif v.phase == "roll" then
    tab.headline = (current == you and "Your roll" or current .. " rolls")
      .. (v.announced and ": beat " .. whose(v.by) .. " " .. mia_text(v.announced) or ": a fresh round")
  elseif v.phase == "announce" then
    tab.headline = current == you and ("Under your cup: %s — announce%s"):format(mia_text(v.cup.value),
        v.announced and " more than " .. mia_text(v.announced) or "")
      or current .. " looks under the cup and announces"
  else
    tab.headline = (v.by == you and "You" or v.by) .. " announced " .. mia_text(v.announced) .. " — "
      .. (current == you and "believe it and roll, or call" or current .. " believes or calls")
  end
  if current then tab.turn = current == you and "Your turn" or current .. "'s turn" end
  tab.roll = v.phase == "roll" and "Roll under the cup" or false
  -- The reveal of the call that ended the last round (or the game): until the next roll.
  local revealing = t.over or (v.phase == "roll" and not v.announced and not v.cup)
  if v.cup and not (t.over and t.shown[v.cup.owner]) then
    local owner = v.cup.owner
    local note
    if v.phase == "respond" and v.by == owner then
      note = (owner == you and "you" or owner) .. " announced " .. mia_text(v.announced)
    elseif v.announced then
      note = "to beat " .. whose(v.by) .. " " .. mia_text(v.announced)
    else
      note = "rolled"
    end
    tab.cups = {{name = owner == you and owner .. " (you)" or owner, dice = v.cup.dice, note = note}}
  elseif revealing then
    for name, values in pairs(t.shown) do
      tab.cups = {{name = name == you and name .. " (you)" or name, dice = values, note = "showed at the call"}}
    end
  end
  if revealing then
    for i = #t.said, 1, -1 do
      local line = t.said[i]
      if line:find(" calls: ", 1, true) or line:find(" believes the Mia", 1, true) then tab.last = line; break end
    end
  end
  return tab
end

-- The chance that a fresh roll reads at least `value` (of 36).
local function chance_at_least(value)
  local n = 0
  for a = 1, 6 do for b = 1, 6 do if rank(reading(a, b)) >= rank(value) then n = n + 1 end end end
  return n / 36
end

-- The bot, from its view: it calls an announcement a fresh roll would rarely reach,
-- tells the truth when the truth beats the last announcement (lying anyway at the rate
-- v.params.bluff), and otherwise announces the next reading up.
function mia.bot(v, p)
  if v.phase == "roll" then return "roll" end
  if v.phase == "respond" then
    if v.announced and chance_at_least(v.announced) < 0.4 then return "call" end
    return "believe"
  end
  local mine = v.cup and v.cup.value
  local last = v.announced
  local function beats(x) return last == nil or rank(x) > rank(last) end
  if mine and beats(mine) and (v.params.bluff <= 0 or math.random() >= v.params.bluff) then return {"announce", mine} end
  for _, x in ipairs(ladder) do
    if beats(x) and (not mine or rank(x) > rank(mine)) then return {"announce", x} end
  end
  return {"announce", 21}
end

return mia
