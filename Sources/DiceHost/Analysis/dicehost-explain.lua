-- fields(g): a position's data fields as a player sees them when deciding, for
-- `dicehost solve --explain`: "state.<k>" for each number, string or boolean of g.state,
-- "me.<k>" for the current player's, "opponent.<k>" for the other player's (two seats) or
-- "seat<n>.<k>" (more seats). Names, seats and last rolls are left out. Returns a list of
-- "name=value" strings, sorted.
local type, next, rawget, tostring, sort, mtype, format = type, next, rawget, tostring, table.sort, math.type, string.format
local skip = {name = true, seat = true, last_roll = true}
local function text(v)
  local t = type(v)
  if t == "number" then return mtype(v) == "integer" and tostring(v) or format("%.17g", v) end
  if t == "string" then return format("%q", v) end
  if t == "boolean" then return tostring(v) end
end
local function add(out, prefix, tbl)
  if type(tbl) ~= "table" then return end
  for k, v in next, tbl do
    if type(k) == "string" and not skip[k] then
      local s = text(v)
      if s then out[#out + 1] = prefix .. k .. "=" .. s end
    end
  end
end
return function(g)
  local out = {}
  add(out, "state.", rawget(g, "state"))
  local players, current = rawget(g, "players"), rawget(g, "current")
  local seat = type(current) == "table" and rawget(current, "seat")
  for i = 1, #players do
    local p = players[i]
    local prefix
    if i == seat then prefix = "me."
    elseif #players == 2 then prefix = "opponent."
    else prefix = "seat" .. i .. "." end
    add(out, prefix, p)
  end
  sort(out)
  return out
end
