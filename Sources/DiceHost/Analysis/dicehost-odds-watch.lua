-- Exact odds leave a player's last roll (`p.last_roll`, a roll's `previous`) out of
-- positions while no hook looks into it: that is decided by what the script does. In
-- its place each player holds a stand-in that notes any look into it (through fields,
-- pairs, next, #, tostring, raw access or its metatable); the analysis then starts
-- again with the last roll in every position. Loaded before the rule script, so the
-- script's raw functions are these (the runtime keeps the originals).
local env, raw_getmetatable = ...
local observed = false
local function note() observed = true end

local Stand_in = {}
for _, event in ipairs({"__index", "__newindex", "__len", "__pairs", "__tostring", "__concat", "__call", "__lt", "__le", "__unm", "__add", "__sub", "__mul", "__div", "__mod",
                        "__pow", "__idiv", "__band", "__bor", "__bxor", "__shl", "__shr", "__bnot", "__close"}) do
  Stand_in[event] = function() note() return nil end
end
Stand_in.__metatable = false
-- No __eq: comparing with the last roll compares identities, which a position keeps
-- (the stand-in is the last roll in every position that has one).

local function is_stand_in(t) return raw_getmetatable(t) == Stand_in end

local function watching(f)
  return function(t, ...)
    if type(t) == "table" and is_stand_in(t) then note() end
    return f(t, ...)
  end
end
for _, name in ipairs({"rawget", "rawset", "rawlen", "next", "pairs", "ipairs", "getmetatable", "setmetatable"}) do
  local f = env[name]
  if f ~= nil then env[name] = watching(f) end
end
local raw_equal = env.rawequal
if raw_equal ~= nil then
  env.rawequal = function(a, b)
    if (type(a) == "table" and is_stand_in(a)) or (type(b) == "table" and is_stand_in(b)) then note() end
    return raw_equal(a, b)
  end
end

local stand_ins = {}
return {
  -- The stand-in for seat i's last roll (one per seat, for good).
  stand_in = function(i)
    local t = stand_ins[i]
    if not t then t = setmetatable({}, Stand_in); stand_ins[i] = t end
    return t
  end,
  metatable = Stand_in,
  observed = function() return observed end,
  reset = function() observed = false end,
}
