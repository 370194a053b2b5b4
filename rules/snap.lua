-- Snap. A shuffled 52-card deck is dealt face down, as evenly as it goes. In turn,
-- clockwise, each player turns over the top card of their stack onto their open pile
-- (`flip`, or `roll` on a smart die). Anyone may call `snap` at any time: if the top
-- open cards of two players match in rank, the caller wins both open piles (to the
-- bottom of their stack); a wrong call costs the caller one card to each other
-- player. A player with no cards left is out; the last player holding cards wins. A
-- player who does not turn over a card within 5 s has it turned automatically. An
-- open pile turned over to become the stack is shuffled first, so a game cannot
-- cycle forever.
-- Each stack is face down: a view shows only how many cards it holds (the open piles are
-- face up). The game has no dice (`dice = false`: a table draws none); a smart die's
-- roll still turns a card over (one it flags, tilt or too_short, does not).
local snap = rules {
  name = "Snap", players = {2, 4}, dice = false,
  params = { flip_ms = 5000 },
  param_info = {
    flip_ms = {label = "Time before a card turns itself (ms)", min = 1000, max = 600000, step = 1000},
  },
}

local function cards_left(p) return #p.stack + #p.pile end

local function top(p) return p.pile[#p.pile] end

local function knock_out(g)
  for _, p in ipairs(g.players) do
    if not p.eliminated and cards_left(p) == 0 then
      g:say("%s has no cards left and is out", p.name)
      g:eliminate(p)
    end
  end
end

local function flip(g, p)
  if g.state.auto then g.state.auto:cancel(); g.state.auto = nil end
  if #p.stack == 0 then
    -- The open pile, turned over, becomes the stack.
    for i = #p.pile, 1, -1 do p.stack[#p.stack + 1] = p.pile[i] end
    p.pile = {}
    cards.shuffle(p.stack)
    g:say("%s shuffles their pile into a new stack", p.name)
  end
  local card = table.remove(p.stack)
  p.pile[#p.pile + 1] = card
  g:say("%s turns over %s (%d in stack)", p.name, tostring(card), #p.stack)
  g:next_turn()
end

function snap.setup(g)
  for _, p in ipairs(g.players) do p.stack, p.pile = {}, {} end
  local deck = cards.shuffle(cards.deck())
  for i, card in ipairs(deck) do
    local p = g.players[(i - 1) % #g.players + 1]
    p.stack[#p.stack + 1] = card
  end
end

function snap.turn(g, p)
  -- A turn can begin without a flip (the host passes it on from a player knocked out):
  -- the last turn's timer must not turn this player's card early.
  if g.state.auto then g.state.auto:cancel() end
  g.state.auto = timer.after(g.params.flip_ms, function(g)
    g:say("%s was too slow: the card turns itself", g.current.name)
    flip(g, g.current)
  end)
end

function snap.roll(g, p, r)
  if r and not r.ok then -- a die knocked over or barely moved turns no card
    g:say("%s: the roll did not count (%s), roll again", p.name, r.flag)
    return
  end
  flip(g, p) -- the host refuses a flip out of turn ("it is Ann's turn, not Bob's")
end

local function matching_pair(g)
  for i, a in ipairs(g.players) do
    for j = i + 1, #g.players do
      local b = g.players[j]
      if top(a) and top(b) and top(a).rank == top(b).rank then return a, b end
    end
  end
end

-- Anyone may call snap (or look at the table) at any time; flips wait for their turn.
snap.anytime = {"snap", "show"}
-- `show` prints every stack for the designer: a table offers it only in designer mode.
snap.designer_actions = {"show"}

snap.actions = {
  flip = function(g, p) snap.roll(g, p, nil) end,
  snap = function(g, p)
    local a, b = matching_pair(g)
    if a then
      local won = 0
      for _, q in ipairs({a, b}) do
        for _, card in ipairs(q.pile) do table.insert(p.stack, 1, card); won = won + 1 end
        q.pile = {}
      end
      g:say("Snap! %s wins %d cards (%d in stack)", p.name, won, #p.stack)
    else
      g:say("%s called snap wrongly and pays a card to each player", p.name)
      for _, q in ipairs(g.players) do
        if q ~= p and not q.eliminated and cards_left(p) > 0 then
          if #p.stack == 0 then for i = #p.pile, 1, -1 do p.stack[#p.stack + 1] = p.pile[i] end p.pile = {} end
          table.insert(q.stack, 1, table.remove(p.stack))
        end
      end
    end
    knock_out(g)
  end,
  show = function(g)
    for _, p in ipairs(g.players) do
      g:say("%s: top %s, %d in stack, %d in pile", p.name, top(p) and tostring(top(p)) or "none", #p.stack, #p.pile)
    end
  end,
}

-- Everyone sees the same: stacks face down (a count), the open piles' top cards. No
-- viewer parameter: a server makes this view once for all the seats (docs/scripting.md).
function snap.view(g)
  local v = {turn = g.current and g.current.name, players = {},
             flip_in = g.state.auto and g.state.auto:left()} -- the slow player's card turns itself
  for i, p in ipairs(g.players) do
    v.players[i] = {name = p.name, out = p.eliminated, stack = hidden("cards", #p.stack),
                    top = top(p), pile = #p.pile}
  end
  return v
end

-- The table each seat sees (the browser draws it), from the view v: every stack face
-- down, every open pile's top card, whose flip, and when the slow player's card turns.
function snap.table(v, t)
  local you, current = t.you, t.current
  local tab = {cards = {}}
  for i, p in ipairs(v.players) do
    tab.cards[i] = {name = p.name == you and p.name .. " (you)" or p.name, open = p.top, facedown = p.stack,
                    note = p.out and "out" or (p.pile .. " open, " .. p.stack.count .. " face down")}
  end
  if t.over then
    tab.result = t.winner == you and "You won: you hold every card" or (t.winner or "Nobody") .. " won"
    tab.headline = tab.result
  else
    tab.headline = (current == you and "Your flip" or current .. " flips")
      .. " — call Snap! when two open cards match"
    tab.turn = current == you and "Your turn" or current .. "'s turn"
    if v.flip_in then
      tab.countdown = {text = current == you and "Your card turns itself" or current .. "'s card turns itself", ms = v.flip_in}
    end
  end
  tab.last = t.said[#t.said]
  return tab
end

-- The bot sees the view: a pair of equal top cards is a snap.
function snap.bot(v, p)
  local seen = {}
  for _, q in ipairs(v.players) do
    if q.top then
      if seen[q.top.rank] then return "snap" end
      seen[q.top.rank] = true
    end
  end
  return "roll"
end

return snap
