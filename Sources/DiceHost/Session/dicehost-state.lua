local next, type = next, type
local function rank(k)
  local t = type(k)
  if t == "number" then return 0 elseif t == "string" then return 1 elseif t == "boolean" then return 2 end
  return 3
end
local function before(a, b)
  local ra, rb = rank(a), rank(b)
  if ra ~= rb then return ra < rb end
  if ra <= 1 then return a < b end
  if ra == 2 then return b and not a end
  return false
end
return function(t, limit)
  local keys, n, total = {}, 0, 0
  for k in next, t do
    total = total + 1
    if n < limit or before(k, keys[n]) then
      if n < limit then n = n + 1 end
      keys[n] = k
      local i = n
      while i > 1 and before(keys[i], keys[i - 1]) do
        keys[i], keys[i - 1] = keys[i - 1], keys[i]
        i = i - 1
      end
    end
  end
  return total, keys
end
