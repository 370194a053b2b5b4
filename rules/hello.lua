-- The smallest script: proves the sandbox loads and runs.
local t = {b = 2, a = 1, c = 3}
local keys = {}
for k in pairs(t) do keys[#keys + 1] = k end
print("keys in order: " .. table.concat(keys, " "))
return { name = "hello" }
