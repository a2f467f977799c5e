-- A small workload for the -O0/-O2 comparison: sorting, string building,
-- pattern matching and table traffic, scaled by arg[1].
local n = tonumber(arg[1]) or 20000
local rng = 12345
local function rand()
  rng = (rng * 1103515245 + 12345) % 2147483648
  return rng
end
local t = {}
for i = 1, n do t[i] = rand() % 100000 end
table.sort(t)
table.sort(t, function(a, b) return a > b end)
local words = {}
for i = 1, n do words[i] = string.format("w%05d-%s", rand() % 50000, string.rep("x", i % 7)) end
table.sort(words)
local count = 0
for _, w in ipairs(words) do
  if w:match("^w0%d+%-x+$") then count = count + 1 end
end
local parts = {}
for i = 1, n // 4 do parts[#parts + 1] = tostring(i * 3.5) end
local s = table.concat(parts, ",")
local sum = 0
for num in s:gmatch("[^,]+") do sum = sum + tonumber(num) end
print(count, #s, sum)
