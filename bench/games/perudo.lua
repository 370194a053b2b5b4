-- Perudo for two: Liar's Dice (rules/liars-dice.lua) with calza. Each player hides
-- `start_dice` dice under a cup; a round begins with both cups rolled (`roll`, in turn),
-- then each player raises the bid (`bid QUANTITY FACE`: more dice, or as many of a higher
-- face; ones count as every face), calls it a lie (`dudo`: the bidder loses a die if the
-- cups hold fewer, else the caller does) or calls it exact (`calza`: if the cups hold
-- exactly that many the caller wins a die back, up to `start_dice`, else loses one). The
-- player who lost or won a die starts the next round; a player without dice loses.
-- Nothing counts rounds: a calza won gives a die back, so positions recur, and `odds`
-- and `solve` meet large cycles. Bots bid from their own cup and bluff never.
local perudo = rules {
  name = "Perudo", players = 2, dice = "5d6", secret_rolls = true, unordered_dice = true,
  params = { start_dice = 5 },
}

local function other(g, p) return g.players[1] == p and g.players[2] or g.players[1] end
local function dice_in_play(g) return g.players[1].dice + g.players[2].dice end

local function new_round(g, starter)
  for _, p in ipairs(g.players) do p.cup = nil end
  g.state.phase, g.state.bid, g.state.starter = "rolling", nil, starter.name
  g:next_turn(starter)
end

function perudo.setup(g)
  if g.params.start_dice < 1 or g.params.start_dice > 10 then error("start_dice must be 1 to 10", 0) end
  for _, p in ipairs(g.players) do p.dice = g.params.start_dice end
  new_round(g, g.players[1])
end

function perudo.roll(g, p, r)
  if g.state.phase ~= "rolling" then error("the cups are rolled; bid, dudo or calza", 0) end
  if p.cup then error(p.name .. " has rolled this round", 0) end
  if not r.ok then g:say("%s: the roll did not count (%s), roll again", p.name, r.flag); return end
  local cup = {}
  for i, v in ipairs(r.values) do cup[i] = v end
  table.sort(cup)
  p.cup = cup
  g:tell(p, "your cup: %s", tostring(r))
  if not other(g, p).cup then g:next_turn(other(g, p)); return end
  g.state.phase = "bidding"
  g:next_turn(g:player(g.state.starter))
end

local function count_face(g, face)
  local n = 0
  for _, p in ipairs(g.players) do
    for _, v in ipairs(p.cup) do if v == face or (v == 1 and face ~= 1) then n = n + 1 end end
  end
  return n
end

local function whole(v) return math.type(v) == "integer" end

-- A call settled: `p` gains or loses a die; the game ends when someone has none.
local function settle(g, p, delta, why)
  for _, q in ipairs(g.players) do g:reveal(q, q.cup) end
  p.dice = math.min(g.params.start_dice, p.dice + delta)
  g:say("%s: %s %s a die (%d left)", why, p.name, delta > 0 and "wins" or "loses", p.dice)
  if p.dice == 0 then g:win(other(g, p)); return end
  new_round(g, p)
end

local function standing(g, p)
  local bid = g.state.bid
  if g.state.phase ~= "bidding" or not bid then error("there is no bid to call", 0) end
  if bid.by == p.name then error("you cannot call your own bid", 0) end
  return bid
end

perudo.actions = {
  bid = function(g, p, quantity, face)
    if g.state.phase ~= "bidding" then error("roll your cup first", 0) end
    if not whole(quantity) or not whole(face) then error("usage: bid QUANTITY FACE, e.g. bid 3 5", 0) end
    if face < 1 or face > 6 then error("a face is 1 to 6, got " .. face, 0) end
    if quantity < 1 or quantity > dice_in_play(g) then error("the quantity is 1 to the dice in play", 0) end
    local bid = g.state.bid
    if bid and not (quantity > bid.quantity or (quantity == bid.quantity and face > bid.face)) then
      error("a bid must raise the standing bid", 0)
    end
    g.state.bid = {quantity = quantity, face = face, by = p.name}
    g:next_turn()
  end,
  dudo = function(g, p)
    local bid = standing(g, p)
    local found = count_face(g, bid.face)
    if found >= bid.quantity then settle(g, p, -1, "dudo fails") else settle(g, g:player(bid.by), -1, "dudo succeeds") end
  end,
  calza = function(g, p)
    local bid = standing(g, p)
    if count_face(g, bid.face) == bid.quantity then settle(g, p, 1, "calza") else settle(g, p, -1, "calza fails") end
  end,
}

perudo.choices = {
  bid = function(g, p)
    local list, bid = {}, g.state.bid
    if g.state.phase ~= "bidding" then return list end
    for quantity = 1, dice_in_play(g) do
      for face = 1, 6 do
        if not bid or quantity > bid.quantity or (quantity == bid.quantity and face > bid.face) then
          list[#list + 1] = {quantity, face}
        end
      end
    end
    return list
  end,
  dudo = function(g, p)
    local bid = g.state.bid
    if g.state.phase == "bidding" and bid and bid.by ~= p.name then return {{}} end
    return {}
  end,
  calza = function(g, p)
    local bid = g.state.bid
    if g.state.phase == "bidding" and bid and bid.by ~= p.name then return {{}} end
    return {}
  end,
}

-- Each seat sees its own cup, the dice the other hides, and the bid.
function perudo.view(g, viewer)
  local v = {phase = g.state.phase, bid = g.state.bid, you = viewer and viewer.name,
             dice_in_play = dice_in_play(g), players = {}}
  for i, p in ipairs(g.players) do
    local cup
    if p == viewer and p.cup then cup = {values = p.cup} elseif p.cup then cup = hidden("dice", p.dice) end
    v.players[i] = {name = p.name, dice = p.dice, cup = cup}
  end
  return v
end

-- Expects each hidden die to show a face with chance 1/3 (1/6 for ones); calls calza
-- when the bid is within a quarter die of what it expects, dudo when the bid is more
-- than half a die over it, else bids the face it holds most of.
function perudo.bot(v, p)
  if v.phase == "rolling" then return "roll" end
  local mine
  for _, q in ipairs(v.players) do if q.name == v.you then mine = q.cup end end
  local values = mine and mine.values or {}
  local hidden_dice = v.dice_in_play - #values
  local function expected(face)
    local n = 0
    for _, x in ipairs(values) do if x == face or (x == 1 and face ~= 1) then n = n + 1 end end
    return n + hidden_dice * (face ~= 1 and 1 / 3 or 1 / 6)
  end
  local bid = v.bid
  if bid and bid.by ~= v.you then
    local e = expected(bid.face)
    if math.abs(e - bid.quantity) < 0.25 then return "calza" end
    if e < bid.quantity - 0.5 then return "dudo" end
  end
  local face, best = 2, -1
  for f = 1, 6 do
    local e = expected(f)
    if e > best then face, best = f, e end
  end
  local quantity = math.max(1, math.floor(expected(face)))
  if bid then
    local least = face > bid.face and bid.quantity or bid.quantity + 1
    if quantity < least then quantity = least end
    if quantity > v.dice_in_play then return "dudo" end
  end
  return {"bid", quantity, face}
end

return perudo
