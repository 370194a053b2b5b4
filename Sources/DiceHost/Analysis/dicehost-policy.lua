-- key(g): a position as a bot can see it, in one string: g.state, the players' fields
-- (without last_roll) and the current seat, keys sorted, data only. dicehost solve
-- writes the best move of each key into a policy module and copies this function into
-- it, so the bot that requires the module computes the same keys. With keeps_dice (the
-- rules keep dice, `keep_dice = true`) each player's last roll values are part of the key:
-- the best dice to keep depend on them.
-- With of_view, the function keys what a seat sees instead: its view (as bot(v, p) gets it),
-- whole; the equilibrium of a game with secrets is written keyed by it.
-- statistics lists the rules' statistics fields (rules.statistics): solve's positions
-- hold their starting values, so a key leaves a field of such a name out wherever it is.
local keeps_dice, of_view, statistics = ...
local skipped = {}
if type(statistics) == "table" then for i = 1, #statistics do skipped[statistics[i]] = true end end
local type, next, rawget, tostring, format, sort, concat, mtype =
  type, next, rawget, tostring, string.format, table.sort, table.concat, math.type
local function key_less(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return ta < tb end
  if ta == "number" or ta == "string" then return a < b end
  return tostring(a) < tostring(b)
end
local function put(v, out, seen)
  local t = type(v)
  if t == "table" then
    if seen[v] then out[#out + 1] = "@"; return end
    seen[v] = true
    local keys = {}
    for k in next, v do
      if (of_view or k ~= "last_roll") and not skipped[k] then keys[#keys + 1] = k end
    end
    sort(keys, key_less)
    out[#out + 1] = "{"
    for i = 1, #keys do
      local k = keys[i]
      put(k, out, seen); out[#out + 1] = "="; put(rawget(v, k), out, seen); out[#out + 1] = ","
    end
    out[#out + 1] = "}"
    seen[v] = nil
  elseif t == "string" then out[#out + 1] = format("%q", v)
  elseif t == "number" then out[#out + 1] = mtype(v) == "integer" and tostring(v) or format("%.17g", v)
  elseif t == "boolean" or t == "nil" then out[#out + 1] = tostring(v)
  else out[#out + 1] = t end
end
local function key(g)
  local out = {}
  local current = rawget(g, "current")
  out[1] = type(current) == "table" and tostring(rawget(current, "seat")) or "-"
  out[2] = "|"
  put(rawget(g, "state"), out, {})
  local players = rawget(g, "players")
  for i = 1, #players do
    out[#out + 1] = "|"; put(players[i], out, {})
    local last = keeps_dice and rawget(players[i], "last_roll")
    if type(last) == "table" and type(rawget(last, "values")) == "table" then
      out[#out + 1] = "r"; put(rawget(last, "values"), out, {})
    end
  end
  return concat(out)
end
if of_view then
  return function(v)
    local out = {}
    put(v, out, {})
    return concat(out)
  end
end
return key
