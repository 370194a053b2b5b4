-- Knucklebones for two: each player has a board of `columns` columns of `rows` places.
-- On your turn roll one die (1d`sides`), then `place COLUMN` it in a column of your board
-- that has room; every die of the same value in the opponent's column of that number is
-- destroyed. A column scores each value times its count, times its count again (two 4s
-- score 16, three 4s 36). When a board is full the game ends: the higher total wins,
-- equal totals draw. Destroying dice brings boards back to where they were, so the
-- positions lead to one another in large cycles.
local kb = rules {
  name = "Knucklebones", players = 2, dice = "1d4",
  params = { columns = 2, rows = 3 },
}

function kb.setup(g)
  if g.params.columns < 1 or g.params.columns > 3 then error("columns must be 1 to 3", 0) end
  if g.params.rows < 1 or g.params.rows > 3 then error("rows must be 1 to 3", 0) end
  for _, p in ipairs(g.players) do
    p.board = {}
    for c = 1, g.params.columns do p.board[c] = {} end
  end
  g.state.die = 0 -- the value rolled, waiting to be placed (0: roll first)
end

local function other(g, p) return g.players[1] == p and g.players[2] or g.players[1] end

local function column_score(col)
  local counts, score = {}, 0
  for _, v in ipairs(col) do counts[v] = (counts[v] or 0) + 1 end
  for v, n in pairs(counts) do score = score + v * n * n end
  return score
end

local function score(p)
  local total = 0
  for _, col in ipairs(p.board) do total = total + column_score(col) end
  return total
end

local function full(g, p)
  for _, col in ipairs(p.board) do if #col < g.params.rows then return false end end
  return true
end

function kb.roll(g, p, r)
  if not r.ok then g:say("%s: the roll did not count (%s), roll again", p.name, r.flag); return end
  if g.state.die ~= 0 then error("place the die you rolled first", 0) end
  g.state.die = r.value
end

kb.choices = { place = function(g, p)
  local list = {}
  for c = 1, g.params.columns do list[#list + 1] = c end
  return list
end }

kb.actions = {
  place = function(g, p, c)
    local v = g.state.die
    if v == 0 then error("roll first", 0) end
    if math.type(c) ~= "integer" or c < 1 or c > g.params.columns then error("usage: place COLUMN (1 to " .. g.params.columns .. ")", 0) end
    local col = p.board[c]
    if #col >= g.params.rows then error("column " .. c .. " is full", 0) end
    col[#col + 1] = v
    table.sort(col) -- the order within a column never matters
    local theirs, kept = other(g, p).board[c], {}
    for _, x in ipairs(theirs) do if x ~= v then kept[#kept + 1] = x end end
    other(g, p).board[c] = kept
    g.state.die = 0
    if full(g, p) then
      local mine, yours = score(p), score(other(g, p))
      if mine > yours then g:win(p) elseif yours > mine then g:win(other(g, p)) else g:draw() end
      return
    end
    g:next_turn()
  end,
}

-- Destroy the most points, else stack a matching value, else the emptiest column.
function kb.bot(g, p)
  local v = g.state.die
  if v == 0 then return "roll" end
  local best, best_value
  for c = 1, g.params.columns do
    local col = p.board[c]
    if #col < g.params.rows then
      local value = 0
      for _, x in ipairs(other(g, p).board[c]) do if x == v then value = value + 10 end end
      for _, x in ipairs(col) do if x == v then value = value + 5 end end
      value = value - #col
      if best == nil or value > best_value then best, best_value = c, value end
    end
  end
  return {"place", best}
end

return kb
