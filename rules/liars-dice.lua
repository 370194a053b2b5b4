-- Liar's Dice (Perudo). Each player has five dice under a cup that only they see. A
-- round begins with every player rolling their cup (`roll`, in turn). Then, in turn,
-- each player raises the bid - a quantity and a face, "at least 4 fives among all the
-- cups" (`bid 4 5`) - or calls the last bid a lie (`liar`). A raise has a higher
-- quantity, or the same quantity of a higher face. With `ones_wild` (the default) ones
-- count as every face. On `liar` every cup is shown: if the bid was short the bidder
-- loses a die, else the caller does. The loser starts the next round; a player without
-- dice is out, and the last player with dice wins. Bots bid from what they see (their
-- own cup and the number of dice hidden elsewhere) and bluff at the rate `bluff`.
--
-- The cups shown at a call are not kept in `g`: the `reveal` events carry them (a table
-- draws them until the next roll). History kept in `g` would make every
-- position after a call differ by the last round's cups, and `dicehost odds` would roll
-- each of them again: 19 million rolls at five dice each instead of 0.9 million.
local liars = rules {
  name = "Liar's Dice", players = {2, 6}, dice = "5d6", secret_rolls = true, unordered_dice = true,
  params = { start_dice = 5, ones_wild = true, bluff = 0.15 },
  param_info = {
    start_dice = {label = "Dice per player", min = 1, max = 10},
    ones_wild = {label = "Ones are wild", description = "a one counts as any face bid"},
    bluff = {label = "How often bots bluff", bot = true, min = 0, max = 1, step = 0.05},
  },
}

local function active(g)
  local list = {}
  for _, p in ipairs(g.players) do if not p.eliminated then list[#list + 1] = p end end
  return list
end

local function dice_in_play(g)
  local n = 0
  for _, p in ipairs(active(g)) do n = n + p.dice end
  return n
end

-- The next player after p (in seat order) who is still in and has not rolled this round.
local function next_to_roll(g, p)
  local n = #g.players
  for step = 1, n do
    local q = g.players[(p.seat + step - 1) % n + 1]
    if not q.eliminated and not q.cup then return q end
  end
end

local function new_round(g, starter)
  for _, p in ipairs(g.players) do p.cup = nil end
  g.state.phase, g.state.bid, g.state.starter = "rolling", nil, starter.name
  g.state.round = (g.state.round or 0) + 1
  g:say("round %d: %s starts; every cup is rolled", g.state.round, starter.name)
  g:next_turn(starter)
end

function liars.setup(g)
  if g.params.start_dice < 1 or g.params.start_dice > 20 then error("start_dice must be 1 to 20", 0) end
  for _, p in ipairs(g.players) do p.dice = g.params.start_dice end
  new_round(g, g.players[1])
end

function liars.roll(g, p, r)
  if g.state.phase ~= "rolling" then error("the cups are rolled; bid or call liar", 0) end
  if p.cup then error(p.name .. " has rolled this round", 0) end
  if not r.ok then -- a smart die's flagged roll has no dice: not a cup
    g:say("%s: the roll did not count (%s), roll again", p.name, r.flag)
    return
  end
  local cup = {}
  for i, v in ipairs(r.values) do cup[i] = v end
  table.sort(cup)
  p.cup = cup
  local faces = {}
  for i, v in ipairs(cup) do faces[i] = dice.glyph(v) end
  g:tell(p, "your cup: %s", table.concat(faces, " ")) -- the faces: their sum means nothing here
  local q = next_to_roll(g, p)
  if q then
    g:next_turn(q)
  else
    g.state.phase = "bidding"
    g:say("bidding starts with %s (%d dice in play)", g.state.starter, dice_in_play(g))
    g:next_turn(g:player(g.state.starter))
  end
end

-- How many dice of `face` the cups hold (ones counting as any face when wild).
local function count_face(g, face)
  local n = 0
  for _, p in ipairs(active(g)) do
    for _, v in ipairs(p.cup or {}) do
      if v == face or (g.params.ones_wild and v == 1 and face ~= 1) then n = n + 1 end
    end
  end
  return n
end

local function whole(v) return math.type(v) == "integer" end

liars.actions = {
  bid = function(g, p, quantity, face)
    if g.state.phase ~= "bidding" then error("roll your cup first: bids come when every cup is rolled", 0) end
    if not whole(quantity) or not whole(face) then error("usage: bid QUANTITY FACE, e.g. bid 3 5", 0) end
    if face < 1 or face > 6 then error("a face is 1 to 6, got " .. face, 0) end
    local total = dice_in_play(g)
    if quantity < 1 or quantity > total then error(("the quantity is 1 to %d (the dice in play), got %d"):format(total, quantity), 0) end
    local bid = g.state.bid
    if bid and not (quantity > bid.quantity or (quantity == bid.quantity and face > bid.face)) then
      error(("a bid must raise %d × %s: more dice, or as many of a higher face"):format(bid.quantity, dice.glyph(bid.face)), 0)
    end
    g.state.bid = {quantity = quantity, face = face, by = p.name}
    g:say("%s bids %d × %s", p.name, quantity, dice.glyph(face))
    g:next_turn()
  end,
  liar = function(g, p)
    local bid = g.state.bid
    if g.state.phase ~= "bidding" or not bid then error("there is no bid to call", 0) end
    if bid.by == p.name then error("you cannot call your own bid", 0) end
    for _, q in ipairs(active(g)) do g:reveal(q, q.cup) end
    local found = count_face(g, bid.face)
    local bidder = g:player(bid.by)
    local loser = found >= bid.quantity and p or bidder
    g:say("%s calls liar: %d × %s on the table, the bid was %d: %s loses a die",
      p.name, found, dice.glyph(bid.face), bid.quantity, loser.name)
    g:record("challenges_won_by_caller", loser == p and 0 or 1)
    loser.dice = loser.dice - 1
    if loser.dice == 0 then
      g:say("%s has no dice left and is out", loser.name)
      local nxt = loser
      g:eliminate(loser)
      if g:is_over() then return end
      repeat nxt = g.players[nxt.seat % #g.players + 1] until not nxt.eliminated
      new_round(g, nxt)
    else
      new_round(g, loser)
    end
  end,
}

-- The bids a player may make now: every raise of the standing bid (quantity, face) up
-- to the dice in play. `dicehost solve`, the prompt's tab completion and the table's
-- bid picker list moves from here; `bid` itself still checks each one.
liars.choices = {
  bid = function(g, p)
    local list, bid, total = {}, g.state.bid, dice_in_play(g)
    if g.state.phase ~= "bidding" then return list end
    for quantity = 1, total do
      for face = 1, 6 do
        if not bid or quantity > bid.quantity or (quantity == bid.quantity and face > bid.face) then
          list[#list + 1] = {quantity, face}
        end
      end
    end
    return list
  end,
  -- A call needs a standing bid that is not the caller's.
  liar = function(g, p)
    local bid = g.state.bid
    if g.state.phase == "bidding" and bid and bid.by ~= p.name then return {{}} end
    return {}
  end,
}

function liars.status(g)
  local bid = g.state.bid
  local counts = {}
  for _, p in ipairs(g.players) do counts[#counts + 1] = p.name .. " " .. p.dice end
  return (bid and ("bid %d × %s by %s · "):format(bid.quantity, dice.glyph(bid.face), bid.by) or "")
    .. g.state.phase .. " · " .. table.concat(counts, ", ")
end

-- A cup as a roll (so a front end draws dice): the values and their total.
local function cup_roll(values)
  local total = 0
  for _, v in ipairs(values) do total = total + v end
  return {values = values, total = total, flag = "ok", ok = true}
end

-- What `viewer` may see: their own cup, the number of dice under every other cup, the
-- bid. A spectator (nil) sees no cup; the `reveal` events of a call show them all.
function liars.view(g, viewer)
  local v = {phase = g.state.phase, round = g.state.round, turn = g.current and g.current.name,
             bid = g.state.bid, players = {},
             params = {ones_wild = g.params.ones_wild, bluff = g.params.bluff},
             you = viewer and viewer.name, dice_in_play = dice_in_play(g)}
  for i, p in ipairs(g.players) do
    local cup
    if p == viewer and p.cup then
      cup = cup_roll(p.cup)
    elseif p.cup then
      cup = hidden("dice", p.dice)
    end
    v.players[i] = {name = p.name, dice = p.dice, out = p.eliminated, cup = cup, rolled = p.cup ~= nil}
  end
  return v
end

-- The table each seat sees (the browser draws it): made from the seat's view v alone, with
-- t's public facts (whose turn, the outcome) and what this seat was told (t.said, the
-- cups t.shown at a call).
local words = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
local function bid_words(bid)
  return ("%s %d%s"):format(words[bid.quantity] or tostring(bid.quantity), bid.face, bid.quantity == 1 and "" or "s")
end

-- The call that ended the last round, read from what was said (the face as its glyph):
-- the caller, the face and quantity bid, how many were found, who lost a die. Not kept in
-- `g` (see the top of this file).
local face_of = {}
for face = 1, 6 do face_of[dice.glyph(face)] = face end
local function last_call(said)
  for i = #said, 1, -1 do
    local caller, found, glyph, quantity, loser =
      said[i]:match("^(.-) calls liar: (%d+) × (.-) on the table, the bid was (%d+): (.-) loses a die$")
    if caller then
      return {line = said[i], caller = caller, found = tonumber(found), face = face_of[glyph],
              quantity = tonumber(quantity), loser = loser}
    end
  end
end

function liars.table(v, t)
  local you, current = t.you, t.current
  local tab = {cups = {}}
  if t.over then
    tab.headline = t.winner and (t.winner == you and "You won" or t.winner .. " won") or "Game over"
    tab.result = tab.headline
  elseif v.phase == "rolling" then
    tab.headline = current == you and "Roll your dice under the cup" or ("Round %d: %s to roll"):format(v.round, current)
  elseif v.bid then
    local by = v.bid.by == you and "You" or v.bid.by
    tab.headline = ("%s bid %s — %s"):format(by, bid_words(v.bid),
      current == you and "your move: raise or call liar" or current .. " to move")
  else
    tab.headline = current == you and "Open the bidding" or current .. " opens the bidding"
  end
  if current then tab.turn = current == you and "Your turn" or current .. "'s turn" end
  tab.roll = v.phase == "rolling" and "Roll the cup" or false
  -- `t.shown` holds this round's reveal only: the cups of the call, until the next roll.
  -- The call is told while they lie on the table, and cleared with them.
  local call = next(t.shown) ~= nil and last_call(t.said) or nil
  if call then tab.last = call.line end
  for i, p in ipairs(v.players) do
    local shown = t.shown[p.name]
    local note = p.out and "out" or (p.dice .. (p.dice == 1 and " die" or " dice"))
    local row = {name = p.name == you and p.name .. " (you)" or p.name}
    if shown and call then
      local counted = 0
      for _, x in ipairs(shown) do
        if x == call.face or (v.params.ones_wild and x == 1 and call.face ~= 1) then counted = counted + 1 end
      end
      note = ("showed %d %s · %d counted"):format(#shown, #shown == 1 and "die" or "dice", counted)
      if call.loser == p.name then
        note = note .. (p.out and " · lost the last die: out" or (" · lost a die (%d left)"):format(p.dice))
      end
      row.counted = {call.face}
      if v.params.ones_wild and call.face ~= 1 then row.wild = {1} end
    elseif shown then
      note = "showed"
    elseif not p.out and not p.rolled then
      note = note .. " · to roll"
    end
    row.note = note
    row.dice = shown or p.cup or hidden("dice", p.out and 0 or p.dice)
    tab.cups[i] = row
  end
  return tab
end

-- The bot sees only its view (v): its own cup, how many dice the others hide, the bid.
-- It expects each hidden die to show a face with chance 1/6 (1/3 with ones wild), bids
-- the face it holds most of, calls a bid it expects to be short, and bluffs at the rate
-- v.params.bluff (bids a face it does not hold).
function liars.bot(v, p)
  if v.phase == "rolling" then return "roll" end
  local mine
  for _, q in ipairs(v.players) do if q.name == v.you then mine = q.cup end end
  local values = mine and mine.values or {}
  local hidden_dice = v.dice_in_play - #values
  local function expected(face)
    local n = 0
    for _, x in ipairs(values) do
      if x == face or (v.params.ones_wild and x == 1 and face ~= 1) then n = n + 1 end
    end
    local chance = (v.params.ones_wild and face ~= 1) and 1 / 3 or 1 / 6
    return n + hidden_dice * chance
  end
  local bid = v.bid
  if bid and bid.by ~= v.you and expected(bid.face) < bid.quantity - 0.5 then return "liar" end
  local face, best = 2, -1
  -- (bluff = 0 draws nothing, so `dicehost odds` can follow the bot exactly)
  local bluffing = v.params.bluff > 0 and math.random() < v.params.bluff
  for f = 1, 6 do
    local e = expected(f)
    if bluffing then e = math.random() end
    if e > best then face, best = f, e end
  end
  local quantity = math.max(1, math.floor(expected(face)))
  if bid then
    local least = face > bid.face and bid.quantity or bid.quantity + 1
    if quantity < least then quantity = least end
    if quantity > v.dice_in_play or (not bluffing and expected(face) < quantity - 1) then
      if bid.by ~= v.you then return "liar" end
    end
    quantity = math.min(quantity, v.dice_in_play)
    if quantity < least then return "liar" end
  end
  return {"bid", quantity, face}
end

return liars
