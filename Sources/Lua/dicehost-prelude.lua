local write, loadModule, loaded, tostring, select, concat, type, error = ...
local function print(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = tostring((select(i, ...))) end
  write(concat(parts, "\t"))
end
local function require(name)
  if type(name) ~= "string" then
    error("bad argument #1 to 'require' (string expected, got " .. type(name) .. ")", 2)
  end
  local value = loaded[name]
  if value ~= nil then return value end
  local chunk, path = loadModule(name)
  if not chunk then error(path, 2) end
  if type(chunk) == "string" then error(chunk, 0) end -- a syntax error, located
  value = chunk(name, path)
  if value == nil then value = true end
  loaded[name] = value
  return value
end
return print, require
