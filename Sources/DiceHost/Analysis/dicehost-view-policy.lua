-- key(v): what a seat sees (its view, as bot(v, p) receives it) in one string: keys
-- sorted, data only. dicehost solve writes the equilibrium of a game with secrets into a
-- policy module keyed by it and copies this function into the module, so the bot that
-- requires the module computes the same keys from the view it is given.
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
    for k in next, v do keys[#keys + 1] = k end
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
return function(v)
  local out = {}
  put(v, out, {})
  return concat(out)
end
