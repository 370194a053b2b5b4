-- Values of the shapes views and tables take, made from a seed (a small generator of
-- its own, so the same seed makes the same value on every machine): what the encoders'
-- byte-for-byte test (EncoderOracleTests) writes and compares with its fixture.
local r = rules {
  name = "Encoder oracle", players = {2, 2}, dice = "2d6",
  params = { target = 25, label = "Race", ratio = 0.5, deep = "x" },
}
function r.roll(g, p, roll) end


local state = 1
local function seed(n) state = n * 2654435761 + 97 end
local function random(n)
  state = state * 6364136223846793005 + 1442695040888963407
  return ((state >> 33) % n) + 1
end
local function pick(list) return list[random(#list)] end
local function chance(percent) return random(100) <= percent end

local words = {
  "a", "b", "name", "Zebra", "apple", "a b", "", "x1", "total", "cup", "dice", "state",
  "players", "9", "10", "kind", "A_b", "zz", "hidden", "values", "rank", "suit", "tab\tkey",
  "quo\"te", "back\\slash", "new\nline",
}
local odd_strings = {
  "plain", "", "say \"hi\"\n\tback\\slash \1 \31 \127", "\r\b\f", "caf\u{E9}", "e\u{301}t\u{E9}",
  "\u{1F44D}\u{1F3FD}", "\u{1F1EB}\u{1F1F7}", "\u{2660}", "\u{2665}\u{FE0F}", "a\0b",
  "\xff", "\xc3", "a\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "\xe2\x82\xac\xff\xfe",
  "ok \xf0\x9f\x98", "\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}", "\xef\xbb\xbfbom",
}
local function long_string()
  local kind = random(9)
  if kind == 1 then return string.rep("ab", 1990 + random(20)) end
  if kind == 2 then return string.rep("\u{E9}", 1995 + random(10)) end   -- 2 bytes, 1 character
  if kind == 3 then return string.rep("e\u{301}", 1333 + random(4)) end  -- 3 bytes, 1 character
  if kind == 4 then return string.rep("e\u{301}", 3998 + random(4)) end
  if kind == 5 then return string.rep("\xff", 3998 + random(4)) end
  if kind == 6 then return string.rep("x", 3999) .. "\u{1F44D}\u{1F3FD}" .. "y" end
  if kind == 7 then return string.rep("\"", 4000 + random(2) - 1) end
  if kind == 8 then return string.rep("\u{1F1EB}\u{1F1F7}", 1000 + random(2) - 1) end
  return string.rep("x", 295 + random(10)) .. "\n"
end
local function any_string()
  local kind = random(10)
  if kind <= 3 then return pick(words) end
  if kind <= 7 then return pick(odd_strings) end
  if kind == 8 then return pick(odd_strings) .. pick(words) .. pick(odd_strings) end
  if kind == 9 then
    local bytes = {}
    for i = 1, random(12) do bytes[i] = string.char(random(256) - 1) end
    return table.concat(bytes)
  end
  return long_string()
end
local floats = { 0.5, -0.0, 0.0, 1e300, 2^53, 2^63, -2^63, 1/3, math.huge, -math.huge, 0/0, 1e-7, 123.456, 100.0, 3.0, -2.5, 1e21, 5e-324 }
local integers = { 0, 1, 2, 3, 6, 13, 14, -1, 42, 999999999, 1000000000, math.maxinteger, math.mininteger, 1000001 }
local function number()
  if chance(60) then return pick(integers) end
  return pick(floats)
end

local value
local function array(depth)
  local t = {}
  for i = 1, random(7) - 1 do t[i] = value(depth + 1) end
  if chance(15) then t[#t + 2] = "after a hole" end
  return t
end
local function any_key()
  local kind = random(12)
  if kind <= 6 then return pick(words) end
  if kind == 7 then return pick(odd_strings) end
  if kind == 8 then return pick(integers) end
  if kind == 9 then return pick({ 1.5, -0.25, 1e300, 2^53 }) end
  if kind == 10 then return chance(50) end
  if kind == 11 then return tostring(random(12)) end
  return random(4)
end
local function object(depth)
  local t = {}
  for _ = 1, random(8) - 1 do
    local key = any_key()
    if key == key then t[key] = value(depth + 1) end
  end
  return t
end
local suits = { "\u{2660}", "\u{2665}", "\u{2666}", "\u{2663}", "S", "", "\xff", "long suit name", "e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}" }
local flags = { "ok", "tilt", "too_short", "a flag longer than twenty", "\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}x", "\xfe" }
local function host_value(depth)
  local kind = random(8)
  if kind == 1 then return hidden("dice", random(6)) end
  if kind == 2 then
    return { hidden = pick({ true, true, false, 1 }), what = pick({ "dice", "cards", string.rep("w", 120), 7, "\xff" }),
             count = pick({ 3, 0, 2.0, 2.5, -1, "3", math.maxinteger, 1e300 }), extra = value(depth + 1) }
  end
  if kind == 3 then
    local values = {}
    for i = 1, random(6) do values[i] = pick({ 1, 2, 3, 4, 5, 6, 2.0, 2.5, "x", 6 }) end
    if chance(10) then values[#values + 2] = 4 end
    return { values = values, flag = pick(flags), total = pick({ 7, 7.0, 7.5, nil, "7", math.mininteger }) }
  end
  if kind == 4 then
    local values = {}
    for i = 1, 1000 + random(3) - 2 do values[i] = (i % 6) + 1 end
    return { values = values, flag = "ok" }
  end
  if kind == 5 then return cards.deck()[random(52)] end
  if kind == 6 then
    return { rank = pick({ 1, 10, 11, 13, 0, 14, 12.0, "1" }), suit = pick(suits), extra = 1 }
  end
  if kind == 7 then return pick({ r.params, r, r.params }) end
  return { values = { 1, 2 }, flag = 3, rank = 1 }
end
function value(depth)
  local kind = random(depth > 9 and 6 or 14)
  if kind == 1 then return chance(50) end
  if kind == 2 then return number() end
  if kind == 3 or kind == 4 then return any_string() end
  if kind == 5 then return pick({ print, coroutine.create(function() end), string.len }) end
  if kind == 6 then return nil end
  if kind <= 9 then return array(depth) end
  if kind <= 12 then return object(depth) end
  return host_value(depth)
end
local function chain(n)
  local top = { depth = 0 }
  local at = top
  for i = 1, n do at.next = { depth = i, list = { i } }; at = at.next end
  return top
end

-- A view: any value, now and then a deep chain or a table past the entries cap.
function r.oracle_view(n)
  seed(n)
  local kind = random(40)
  if kind == 1 then return chain(5 + random(6)) end
  if kind == 2 then
    local big = {}
    for i = 1, 20000 + random(3) - 2 do big[i] = 0 end
    return { big = big, after = { 1, 2 } }
  end
  if kind == 3 then
    local t = {}
    for i = 1, 3 do
      local part = {}
      for j = 1, 6000 + random(3000) do part[j] = j % 10 end
      t[i] = part
    end
    return t
  end
  return value(0)
end

-- A table hook's result: the vocabulary's fields, now and then one thing wrong.
-- Mostly one of `good`, now and then one of `bad`.
local function mostly(good, bad) if chance(94) then return pick(good) end return pick(bad) end
local function text() return mostly({ pick(words), any_string(), any_string(), random(100), 2.5, 1e300 }, { {}, true }) end
local function wrong() return pick({ {}, true, false, "x", 3, -1, 1.5, 0/0, math.huge, print, { 1, 2 }, hidden("dice", 2), string.rep("y", 400) }) end
local function maybe_wrong(v, percent) if chance(percent) then return wrong() end return v end
local function rows(make, most)
  local t = {}
  for i = 1, random(most) - 1 do t[i] = make() end
  if chance(2) then t[#t + 2] = make() end
  return t
end
local function dice()
  local kind = random(7)
  if kind >= 6 then return mostly({ { 1, 2, 3 }, { 6 } }, { { 3, 5, nil, 6 }, { 1, 0 } }) end
  if kind == 1 then return hidden("dice", random(5)) end
  if kind == 2 then return { hidden = true, count = mostly({ 0, 5, 6000 }, { 6001, -1, 2.0, "2" }) } end
  if kind == 3 then return { values = { mostly({ 1, 6, 1000000 }, { 0, 1000001, 2.0 }), 3 }, flag = "ok", total = 4 } end
  if kind == 4 then local t = {} for i = 1, mostly({ 1, 5, 60 }, { 61 }) do t[i] = (i % 6) + 1 end return t end
  return { values = { 4, 4 }, flag = "tilt" }
end
local function card()
  if chance(70) then return cards.deck()[random(52)] end
  return { rank = mostly({ 1, 13 }, { 0, 14, 5.0 }), suit = mostly(suits, { "", 3 }) }
end
local function open_cards()
  local kind = random(6)
  if kind == 6 then if chance(94) then return nil end return pick({ "x", 3, { 1, 2 } }) end
  if kind == 1 then return nil end
  if kind == 2 then return card() end
  if kind == 3 then local t = {} for i = 1, random(5) do t[i] = card() end return t end
  if kind == 4 then local t = {} for i = 1, mostly({ 60 }, { 61 }) do t[i] = cards.deck()[(i % 52) + 1] end return t end
  return cards.deck()[1]
end
local makers = {
  headline = text, result = text, last = text, turn = text,
  roll = function() return pick({ true, false, "Roll your cup", any_string() }) end,
  countdown = function()
    return { text = text(), ms = mostly({ 0, 1500, 4000, 2.0 }, { -1, 1.5, math.maxinteger, "10", nil }) }
  end,
  track = function()
    return { target = mostly({ 25, 1 }, { 0, -3, 2.5 }), label = maybe_wrong(pick({ nil, "Race", any_string() }), 2),
             marks = rows(function() return { name = maybe_wrong(text(), 2), at = maybe_wrong(random(30), 2) } end, 6) }
  end,
  pot = function()
    if chance(50) then return maybe_wrong(pick({ 15, "$15", 2.5, any_string() }), 2) end
    return { label = maybe_wrong(pick({ nil, "Ante", any_string() }), 2), value = maybe_wrong(pick({ 5, "$5", 0.25, 1e21 }), 2) }
  end,
  balances = function()
    return rows(function()
      return { name = maybe_wrong(text(), 2), value = maybe_wrong(pick({ 205, "$205", 1.25, -0.0 }), 2), note = maybe_wrong(pick({ nil, "ante $5", any_string() }), 2) }
    end, 2)
  end,
  cups = function()
    return rows(function()
      return { name = maybe_wrong(text(), 2), dice = maybe_wrong(dice(), 2), note = maybe_wrong(pick({ nil, "mine", any_string() }), 2) }
    end, 2)
  end,
  cards = function()
    return rows(function()
      return { name = maybe_wrong(text(), 2), open = open_cards(), facedown = mostly({ nil, 12, 0, 6000, hidden("cards", 4), { hidden = true, count = 7 } }, { 6001, -1, "x" }),
               note = maybe_wrong(pick({ nil, "n", any_string() }), 2) }
    end, 2)
  end,
}
local names = { "headline", "result", "last", "turn", "roll", "countdown", "track", "pot", "balances", "cups", "cards" }
function r.oracle_table(n)
  seed(n)
  if random(100) == 1 then return wrong() end
  local t = {}
  for _, name in ipairs(names) do
    if chance(45) then t[name] = makers[name]() end
  end
  if chance(4) then t[pick(names)] = wrong() end
  local kind = random(40)
  if kind == 1 then t.unknown = 1 end
  if kind == 2 then t[1] = "x" end
  if kind == 3 then t[1.5] = "x" end
  if kind == 4 then t[true] = "x" end
  if kind == 5 then t[string.rep("k", 50)] = "x" end
  if kind == 6 then t["\xffbad"] = "x" end
  if kind == 7 then t.headline = string.rep("e\u{301}", 301) end
  if kind == 8 then t.turn = string.rep("\u{E9}", 300) end
  if kind == 9 then for i = 1, 12 do t["f" .. i] = i end end
  if kind == 10 then t.cups = rows(function() return { name = "x", dice = { 1 } } end, 1); for i = 1, 17 do t.cups[i] = { name = "x", dice = { 1 } } end end
  return t
end

return r
