-- Liar's Dice as OpenSpiel's `liars_dice` plays it: two players, one six-sided die each
-- rolled under a cup, sixes wild. Ann and Bob each roll (`roll`), then bid in turn,
-- starting with Ann: a bid is a quantity and a face, "at least 2 threes between the two
-- cups" (`bid 2 3`), ranked 1×⚀ < 1×⚁ < … < 1×⚅ < 2×⚀ < … < 2×⚅, and each bid must rank
-- above the last. Instead of bidding, a player may call the last bid a lie (`liar`): the
-- cups are shown; if they hold at least that many of the face (a six counting as any
-- face) the caller loses, else the bidder does. After 2×⚅ only `liar` is left.
--
-- `dicehost solve` finds its equilibrium: Ann wins 251/516 = 0.486434 (a value of
-- -7/258 on ±1 payoffs, as Neller & Lanctot and OpenSpiel's LP give). The game keeps
-- only the last bid: the bids before it are in the events every player received, which
-- is what best play with secrets remembers for each seat (perfect recall), so positions
-- stay few (a position per cups, last bid and turn) while each seat recalls every bid.
local game = rules {
  name = "Liar's Dice (OpenSpiel)", players = {2, 2}, dice = "1d6", secret_rolls = true,
  params = { faces = 6 },  -- a smaller game for tests: --set faces=3 (the highest face is wild)
}

local function other(g, p) return g.players[3 - p.seat] end

-- Bids by rank: 1 to 2 × faces, quantity 1 then 2.
local function rank(g, quantity, face) return (quantity - 1) * g.params.faces + face end

function game.setup(g)
  if math.type(g.params.faces) ~= "integer" or g.params.faces < 2 or g.params.faces > 6 then error("faces must be 2 to 6", 0) end
  for _, p in ipairs(g.players) do p.dice = "1d" .. g.params.faces end
  g.state.phase = "rolling"
  g:next_turn(g.players[1])
end

function game.roll(g, p, r)
  if g.state.phase ~= "rolling" or p.die then error("the cups are rolled: bid or call liar", 0) end
  if not r.ok then error("the die did not land flat: roll again", 0) end
  p.die = r.value
  g:tell(p, "your die: %s", dice.glyph(r.value))
  if other(g, p).die then
    g.state.phase = "bidding"
    g:next_turn(g.players[1])
  else
    g:next_turn(other(g, p))
  end
end

game.actions = {
  bid = function(g, p, quantity, face)
    if g.state.phase ~= "bidding" then error("roll first: bids come when both cups are rolled", 0) end
    if math.type(quantity) ~= "integer" or math.type(face) ~= "integer" then error("usage: bid QUANTITY FACE, e.g. bid 1 4", 0) end
    if quantity < 1 or quantity > 2 or face < 1 or face > g.params.faces then
      error(("a bid is 1 or 2 dice of a face 1 to %d"):format(g.params.faces), 0)
    end
    local last = g.state.bid
    if last and rank(g, quantity, face) <= rank(g, last.quantity, last.face) then
      error(("a bid must rank above %d × %s"):format(last.quantity, dice.glyph(last.face)), 0)
    end
    g.state.bid = {quantity = quantity, face = face, by = p.name}
    g:say("%s bids %d × %s", p.name, quantity, dice.glyph(face))
    g:next_turn(other(g, p))
  end,
  liar = function(g, p)
    local last = g.state.bid
    if g.state.phase ~= "bidding" or not last then error("there is no bid to call", 0) end
    local found = 0
    for _, q in ipairs(g.players) do
      g:reveal(q, {q.die})
      if q.die == last.face or q.die == g.params.faces then found = found + 1 end
    end
    local bidder = g:player(last.by)
    local winner = found >= last.quantity and bidder or p
    g:say("%s calls liar: %d × %s on the table, the bid was %d", p.name, found, dice.glyph(last.face), last.quantity)
    g:win(winner)
  end,
}

-- The bids that rank above the last one (every bid while none is made).
game.choices = {
  bid = function(g, p)
    local last = g.state.bid
    local above = last and rank(g, last.quantity, last.face) or 0
    local list = {}
    for quantity = 1, 2 do
      for face = 1, g.params.faces do
        if rank(g, quantity, face) > above then list[#list + 1] = {quantity, face} end
      end
    end
    return list
  end,
}

function game.status(g)
  local last = g.state.bid
  return last and ("bid %d × %s by %s"):format(last.quantity, dice.glyph(last.face), last.by) or g.state.phase
end

-- What `viewer` sees: their own die, whether each cup is rolled, and the last bid (the
-- earlier ones were said to everyone).
function game.view(g, viewer)
  local b = g.state.bid
  local v = {phase = g.state.phase, you = viewer and viewer.name, turn = g.current and g.current.name, rolled = {}, faces = g.params.faces,
             bid = b and {quantity = b.quantity, face = b.face, by = b.by}}
  for i, p in ipairs(g.players) do v.rolled[i] = p.die ~= nil end
  if viewer and viewer.die then v.die = viewer.die end
  return v
end

-- A plain bot: calls a bid of two it cannot see half of, else makes the lowest raise,
-- naming its own face when it can.
function game.bot(v, p)
  if v.phase == "rolling" then return "roll" end
  local faces = v.faces
  local function rank_of(quantity, face) return (quantity - 1) * faces + face end
  local last = v.bid
  local above = last and rank_of(last.quantity, last.face) or 0
  if last and last.quantity == 2 and v.die ~= last.face and v.die ~= faces then return "liar" end
  for quantity = 1, 2 do
    if rank_of(quantity, v.die) > above then return {"bid", quantity, v.die} end
  end
  if above < 2 * faces then return {"bid", 2, faces} end
  return "liar"
end

return game
