-- Splits Lua's own test files (testes/*.lua of a Lua 5.4 source tree) into pieces and
-- runs each piece in plain Lua, in an environment restricted as DiceHost's sandbox is
-- restricted (no io, os, debug, package, require, dofile, loadfile, string.dump; text
-- `load` only). Writes every piece as a module for the sandbox side and a manifest.
--
--   lua5.4 split-and-run-plain.lua TESTES_DIR OUT_DIR FILE...
--
-- A piece is a paragraph of a test file: top-level statements not separated by a blank
-- line (the suite's own unit: a `-- testing X` comment and its asserts, or a `do ... end`
-- block). A top-level `local` the file declares before a paragraph (a helper such as
-- strings.lua's `checkerror`, a constant such as `maxi`) is part of the paragraph's
-- chunk, run again before it - the context - so each piece runs alone, in any order, in
-- a fresh environment (a top-level global function joins the context as a local
-- function, see below). A declaration that fails here (`local debug = require "debug"`)
-- stays out of the context: the pieces that need it fail and are not counted.
--
-- manifest.tsv, one line a piece: module, file, first line, last line, result in plain
-- Lua ("pass" or "fail", then the message), and, for a piece that passes, the same with
-- the globals and libraries read-only, then with collectgarbage taking only "count"
-- (the sandbox's rules, to tell a difference they explain). Pieces made only of local declarations are not
-- pieces (they run as context).
local testes, out = arg[1], arg[2]
if not (testes and out and arg[3]) then
  io.stderr:write("usage: lua5.4 split-and-run-plain.lua TESTES_DIR OUT_DIR FILE...\n")
  os.exit(2)
end

-- Plain Lua stops a piece after this many VM instructions (the sandbox's own budget is
-- far lower; a piece that runs longer than this here is not counted).
local PLAIN_INSTRUCTION_CAP = 2000000000

local function read_lines(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("a")
  f:close()
  local lines = {}
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do lines[#lines + 1] = line end
  if lines[#lines] == "" then lines[#lines] = nil end
  if lines[1] and lines[1]:sub(1, 1) == "#" then lines[1] = "--" .. lines[1] end
  return lines
end

-- Whether lines i..j are a complete chunk (parse only).
local function compiles(lines, i, j)
  return load(table.concat(lines, "\n", i, j), "=piece", "t", {}) ~= nil
end

-- A line a new top-level statement may follow: blank, a comment, or code at column 0.
local function may_follow(line)
  return line == nil or line:match("^%s*$") or line:match("^%-%-") or line:match("^[%a_:;]")
end

-- The top-level statements of a file: {first = i, last = j, blank_before = bool, is_local = bool}.
local function statements(lines)
  local list, i, blank = {}, 1, true
  while i <= #lines do
    local line = lines[i]
    local long = line:match("^%-%-%[(=*)%[")
    if long then                              -- a long comment: skip to its end
      local close = "]" .. long .. "]"
      while i <= #lines and not lines[i]:find(close, 1, true) do i = i + 1 end
      i = i + 1
    elseif line:match("^%s*$") then
      blank = true; i = i + 1
    elseif line:match("^%s*%-%-") then
      i = i + 1
    else
      local j = i
      while j <= #lines and not (compiles(lines, i, j) and may_follow(lines[j + 1])) do j = j + 1 end
      if j > #lines then error(("line %d: no complete statement starts here"):format(i)) end
      list[#list + 1] = {first = i, last = j, blank_before = blank,
                         is_local = line:match("^local[%s(]") ~= nil or line:match("^function%s+[%a_][%w_]*%s*%(") ~= nil}
      blank = false
      i = j + 1
    end
  end
  return list
end

-- The sandbox's globals, as plain Lua has them. Each piece gets its own copy (library
-- tables too), so a piece cannot change what the next one sees.
local allowed = {"assert", "error", "getmetatable", "ipairs", "next", "pcall", "rawequal", "rawget", "rawlen",
  "rawset", "select", "tonumber", "tostring", "type", "xpcall", "_VERSION", "setmetatable", "pairs",
  "collectgarbage", "warn"}
local libraries = {"table", "math", "utf8", "coroutine", "string"}
local real_load, real_tostring, select = load, tostring, select

-- With `frozen`, the globals and libraries are read-only as the sandbox makes them once
-- a script has loaded (a proxy that refuses new keys): a piece that fails only then fails
-- by that documented rule, even where the refusal shows up as something else (a wrong
-- message a test compares, a coroutine that died of it).
local function freeze(t, what)
  return setmetatable({}, {__index = t, __newindex = function(_, k)
    error(("cannot set '%s' in %s: it is read-only once the script has loaded"):format(real_tostring(k), what), 2)
  end})
end

-- With `gc_count_only`, collectgarbage takes only "count", as in the sandbox.
local function count_only(option, ...)
  if option ~= "count" then error("bad argument #1 to 'collectgarbage' (only \"count\" is allowed in rule scripts)", 2) end
  return collectgarbage(option, ...)
end

local function restricted_env(frozen, gc_count_only)
  local env = {}
  for _, name in ipairs(allowed) do env[name] = _G[name] end
  if gc_count_only then env.collectgarbage = count_only end
  for _, name in ipairs(libraries) do
    local copy = {}
    for k, v in pairs(_G[name]) do copy[k] = v end
    env[name] = copy
  end
  env.string.dump = nil
  env.print = function(...)
    for i = 1, select("#", ...) do real_tostring((select(i, ...))) end
  end
  local globals = env  -- what `load` gives a chunk by default (the proxy when frozen)
  env.load = function(chunk, name, mode, ...)
    local e = globals
    if select("#", ...) > 0 then e = ... end
    if mode == "b" then return nil, "attempt to load a text chunk (mode is 'b')" end
    return real_load(chunk, name, "t", e)
  end
  env._G = env
  if not frozen then return env end
  for _, name in ipairs(libraries) do env[name] = freeze(env[name], "the " .. name .. " library") end
  local proxy = freeze(env, "the global table")
  env._G, globals = proxy, proxy
  return proxy
end

local function run_plain(source, chunkname, frozen, gc_count_only)
  local f, problem = real_load(source, "@" .. chunkname, "t", restricted_env(frozen, gc_count_only))
  if not f then return false, problem end
  debug.sethook(function() error("plain Lua: more than " .. PLAIN_INSTRUCTION_CAP .. " instructions", 2) end, "", PLAIN_INSTRUCTION_CAP)
  local ok, err = pcall(f)
  debug.sethook()
  -- a piece may have stopped the collector or changed its mode (gc.lua does)
  collectgarbage("restart")
  collectgarbage("incremental")
  collectgarbage()
  return ok, err
end

local function one_line(v)
  return (real_tostring(v):gsub("[\r\n\t]+", " "):sub(1, 300))
end

local manifest = assert(io.open(out .. "/manifest.tsv", "w"))
for k = 3, #arg do
  local file = arg[k]
  local lines = read_lines(testes .. "/" .. file)
  local base = file:gsub("%.lua$", ""):gsub("[^%w]", "_")
  local context = {}
  local stmts = statements(lines)
  local n, s = 0, 1
  while s <= #stmts do
    -- a paragraph: statements s..e with no blank line between them
    local e = s
    while stmts[e + 1] and not stmts[e + 1].blank_before do e = e + 1 end
    local only_locals = true
    for t = s, e do only_locals = only_locals and stmts[t].is_local end
    local text = table.concat(lines, "\n", stmts[s].first, stmts[e].last)
    local prefix = table.concat(context, "\n")
    if not only_locals then
      n = n + 1
      local name = ("%s_%03d"):format(base, n)
      -- The context's lines as one line each place: the piece keeps its own line numbers
      -- readable in messages ("strings_012.lua:40:" is line 40 of the piece file).
      local source = prefix .. "\n-- " .. file .. ":" .. stmts[s].first .. "\n" .. text .. "\n"
      local f = assert(io.open(out .. "/" .. name .. ".lua", "w"))
      f:write(source)
      f:close()
      local ok, err = run_plain(source, name .. ".lua")
      local fields = {name, file, stmts[s].first, stmts[e].last, ok and "pass" or "fail", ok and "" or one_line(err)}
      for _, rule in ipairs({{true, false}, {false, true}}) do   -- read-only; collectgarbage "count" only
        local rule_ok, rule_err = true, nil
        if ok then rule_ok, rule_err = run_plain(source, name .. ".lua", rule[1], rule[2]) end
        fields[#fields + 1] = rule_ok and "pass" or "fail"
        fields[#fields + 1] = rule_ok and "" or one_line(rule_err)
      end
      manifest:write(table.concat(fields, "\t"), "\n")
    end
    -- its declarations that run join the context of the paragraphs after it
    for t = s, e do
      if stmts[t].is_local then
        -- (a global helper, `function checkerror (...)`, joins as a local function: the
        -- pieces test Lua, not the sandbox's read-only globals; the paragraph that
        -- defines it still runs as written)
        local decl = table.concat(lines, "\n", stmts[t].first, stmts[t].last):gsub("^function", "local function")
        local trial = table.concat(context, "\n") .. "\n" .. decl
        if run_plain(trial, base .. "_context.lua") then context[#context + 1] = decl end
      end
    end
    s = e + 1
  end
  io.stderr:write(("%s: %d pieces\n"):format(file, n))
end
manifest:close()
