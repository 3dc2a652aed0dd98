-- Lua -> vibing-agent rpc round trip: median over 1000 calls (vim.loop.hrtime).
local rpc = require("vibing.rpc")
local function out(s)
  io.stdout:write(s .. "\n")
end

local chan, err = rpc.start()
if not chan then
  out("bench: " .. tostring(err))
  vim.cmd("cquit 1")
end

local function median(label, n, fn)
  for _ = 1, 50 do
    fn() -- warm up
  end
  local t = {}
  for i = 1, n do
    local s = vim.loop.hrtime()
    fn()
    t[i] = vim.loop.hrtime() - s
  end
  table.sort(t)
  out(("%s: median %.1f µs, p90 %.1f µs over %d calls"):format(label, t[math.floor(n / 2)] / 1000, t[math.floor(n * 0.9)] / 1000, n))
end

median("rpc round trip (version)", 1000, function()
  vim.rpcrequest(chan, "version", {})
end)
local rule = { rule = "Bash(npm run build:*)" }
median("rpc round trip (validate_rule)", 1000, function()
  vim.rpcrequest(chan, "validate_rule", rule)
end)
local lines = require("vibing.chat.frontmatter").template(require("vibing.config").defaults.permissions, "2026-11-22T10:00:00")
local fmlines = vim.list_slice(lines, 1, 11)
local check = rpc.request("edit", { lines = fmlines, op = "add", list = "allow", rules = { "Bash(npm:*)" } })
if not (check and check.ok and check.changed) then
  out("bench: edit failed: " .. vim.inspect(check))
  vim.cmd("cquit 1")
end
median("rpc round trip (edit add, via rpc.request)", 1000, function()
  rpc.request("edit", { lines = fmlines, op = "add", list = "allow", rules = { "Bash(npm:*)" } })
end)
vim.cmd("qa!")
