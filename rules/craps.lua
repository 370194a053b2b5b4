-- Craps (pass line). Each player has a balance ($200) and an ante ($5). The come-out
-- roll wins the ante on 7 or 11, loses it on 2, 3 or 12, and otherwise sets the point.
-- With the point on, rolling the point wins, a 7 loses, anything else rolls again.
-- The ante may change only while the point is off: above $0, at most the balance, a
-- multiple of $5 (an illegal request is adjusted to the nearest legal value).
-- A player whose balance reaches $0 is bankrupt until `reset` restores their $200 (a
-- player who is not bankrupt has no reset, and a reset leaves the point alone).
-- The game ends after `rounds` decisions (10 by default, so `play --auto` and `sim`
-- finish): a player ahead of the starting balance wins, otherwise the house does (a
-- draw). --set rounds=1 is one pass-line decision per game; --set rounds=0 plays on
-- until the players leave.
local craps = rules {
  name = "Craps", players = {1, 4}, dice = "2d6",
  params = { balance = 200, ante = 5, step = 5, rounds = 10 },
  param_info = {
    balance = {label = "Starting balance ($)", min = 10, max = 1000, step = 10},
    ante = {label = "Starting ante ($)", choices = {5, 10, 25, 50, 100}},
    step = {label = "Chip size ($)", choices = {1, 5, 10}},
    rounds = {label = "Decisions per game", description = "0 plays on until the players leave", min = 0, max = 50},
  },
}

local function legal_ante(g, p, wanted)
  local step = g.params.step
  local most = p.balance - p.balance % step
  local ante = math.floor(wanted / step + 0.5) * step
  if ante < step then ante = step end
  if ante > most then ante = most end
  return ante
end

local function settle(g, p, won)
  local state, params, ante = g.state, g.params, p.ante
  if won then
    p.balance = p.balance + ante
    g:say("%s wins $%d (balance $%d)", p.name, ante, p.balance)
    g:record("won", ante)
  else
    p.balance = p.balance - ante
    g:say("%s loses $%d (balance $%d)", p.name, ante, p.balance)
    g:record("lost", ante)
  end
  state.point = "off"
  local decisions = state.decisions + 1
  state.decisions = decisions
  if params.rounds > 0 and decisions >= params.rounds then
    local best, players = nil, g.players
    for i = 1, #players do
      local q = players[i]
      if q.balance > params.balance and (best == nil or q.balance > best.balance) then best = q end
    end
    if best then g:win(best) else g:draw() end
    return
  end
  if p.balance <= 0 then
    p.bankrupt = true
    g:say("%s is bankrupt: reset restores $%d", p.name, g.params.balance)
  elseif p.ante > p.balance then
    p.ante = legal_ante(g, p, p.ante)
    g:say("%s's ante lowered to $%d", p.name, p.ante)
  end
  g:next_turn()
end

function craps.setup(g)
  g.state.point = "off"
  g.state.decisions = 0
  for _, p in ipairs(g.players) do
    p.balance = g.params.balance
    p.ante = g.params.ante
    p.bankrupt = false
  end
end

function craps.turn(g, p)
  g:say("%s to roll, ante $%d, point %s", p.name, p.ante, g.state.point) -- %s formats any value
end

function craps.roll(g, p, r)
  if p.bankrupt then error(p.name .. " is bankrupt: reset restores $" .. g.params.balance, 0) end
  if not r.ok then
    g:say("the roll did not count (%s): roll again", r.flag)
    return
  end
  -- Read once into locals: each g.state.x is two table lookups. The dice themselves are
  -- not kept in g: the roll event shows them, and a position that remembered the last
  -- roll would be a different position for every roll (`dicehost odds` 65 times slower).
  local state, total = g.state, r.total
  local point = state.point
  if point == "off" then
    if total == 7 or total == 11 then
      settle(g, p, true)
    elseif total == 2 or total == 3 or total == 12 then
      settle(g, p, false)
    else
      state.point = total
      g:say("the point is %d", total)
    end
  elseif total == point then
    settle(g, p, true)
  elseif total == 7 then
    settle(g, p, false)
  else
    g:say("point %d, roll again", point)
  end
end

-- Each player sets their own ante whenever the point is off (and, bankrupt, resets their balance),
-- whoever's turn it is.
craps.anytime = {"ante", "reset"}
-- The antes a player may set now (the table's chips, what tab completes after `ante `):
-- only while the point is off, and no more than the balance.
local CHIPS = {5, 10, 25, 50, 100}
craps.choices = {
  ante = function(g, p)
    local list = {}
    if g.state.point ~= "off" or p.bankrupt then return list end
    for _, amount in ipairs(CHIPS) do
      if amount <= p.balance and amount % g.params.step == 0 then list[#list + 1] = amount end
    end
    return list
  end,
  reset = function(g, p) return p.bankrupt and {{}} or {} end,
}

craps.actions = {
  ante = function(g, p, amount)
    if type(amount) ~= "number" then error("usage: ante AMOUNT, e.g. ante 25", 0) end
    if g.state.point ~= "off" then error("the ante may change only while the point is off", 0) end
    local ante = legal_ante(g, p, amount)
    if ante ~= amount then g:say("an ante of $%s is not allowed: adjusted to $%d", tostring(amount), ante) end
    p.ante = ante
    g:say("%s's ante is $%d", p.name, ante)
  end,
  -- Only a bankrupt player's own balance: the point (another player's bet, or the
  -- shooter's) stays where it is, and a player with money has no reset.
  reset = function(g, p)
    if not p.bankrupt then error(p.name .. " is not bankrupt: reset only restores a bankrupt player's balance", 0) end
    p.balance = g.params.balance
    p.ante = g.params.ante
    p.bankrupt = false
    g:say("%s's balance is restored to $%d", p.name, p.balance)
  end,
}

-- The prompt's status line: the point and every balance.
function craps.status(g)
  local parts = {"point " .. tostring(g.state.point)}
  for _, p in ipairs(g.players) do
    parts[#parts + 1] = string.format("%s $%d%s", p.name, p.balance, p.bankrupt and " (bankrupt)" or "")
  end
  return table.concat(parts, " · ")
end

-- The table each seat sees (the browser draws it). Craps keeps no secrets (no view):
-- v is the whole game, t the facts of the seat (whose turn, the outcome, what was said).
local function money(n) return (n < 0 and "-$" or "$") .. math.abs(n) end

local function finish(p, start)
  local d = p.balance - start
  if d == 0 then return "even" end
  return money(math.abs(d)) .. (d > 0 and " up" or " down")
end

function craps.table(v, t)
  local you, current, start = t.you, t.current, t.params.balance
  local tab = {balances = {}}
  local point = v.state.point
  local me
  for i, p in ipairs(v.players) do
    if p.name == you then me = p end
    tab.balances[i] = {name = p.name == you and p.name .. " (you)" or p.name, value = money(p.balance),
                       note = p.bankrupt and "bankrupt: reset restores " .. money(start) or "ante " .. money(p.ante)}
  end
  if t.over then
    if t.winner then
      tab.result = t.winner == you and "You won: you finish " .. finish(me, start)
        or t.winner .. " won" .. (me and " (you finish " .. finish(me, start) .. ")" or "")
    elseif me and #v.players == 1 then
      tab.result = "You finish " .. finish(me, start)
    else
      tab.result = "Nobody beat the house" .. (me and ": you finish " .. finish(me, start) or "")
    end
    tab.headline = tab.result
  elseif point == "off" then
    tab.headline = (current == you and "Your come-out roll" or current .. "'s come-out roll") .. ": 7 or 11 wins, 2, 3 or 12 loses"
  else
    tab.headline = ("The point is %d: %s %d to win, a 7 loses"):format(point, current == you and "roll" or current .. " rolls", point)
  end
  if current then
    tab.turn = current == you and "Your roll" or current .. "'s roll"
    for _, p in ipairs(v.players) do
      if p.name == current then tab.pot = {label = "Ante on the table", value = money(p.ante)} end
    end
  end
  for i = #t.said, 1, -1 do
    local line = t.said[i]
    if not line:find(" to roll, ante ", 1, true) then tab.last = line; break end
  end
  return tab
end

function craps.bot(g, p)
  if p.bankrupt then return "reset" end
  return "roll"
end

return craps
