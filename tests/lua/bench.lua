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

-- Streaming: 1 MB of assistant text in ~20-byte chunks (as token deltas
-- arrive), written by a stand-in for `vibing-agent run` that prints prepared
-- JSON Lines, through the real path: a libuv pipe, line splitting, json_decode, the
-- batching writer. A 5 ms repeating timer measures the editor's longest stall.
local tmp = vim.fn.tempname()
vim.fn.mkdir(tmp .. "/.vibing/chat", "p")
vim.cmd("cd " .. vim.fn.fnameescape(tmp))
local words = { "streaming ", "text ", "into ", "a ", "chat ", "buffer, ", "one ", "chunk ", "at ", "a ", "time. " }
local events, size, i = {}, 0, 0
while size < 1024 * 1024 do
  i = i + 1
  local chunk = words[i % #words + 1] .. words[(i * 7) % #words + 1]
  if i % 4 == 0 then
    chunk = chunk .. "\n"
  end
  size = size + #chunk
  events[#events + 1] = vim.fn.json_encode({ type = "text", text = chunk })
end
events[#events + 1] = vim.fn.json_encode({ type = "result", is_error = false })
vim.fn.writefile(events, tmp .. "/events.jsonl")
local nevents = #events - 1
events = nil
collectgarbage()
-- `rpc` (the chat is saved through it) and its `version` check go to the
-- real vibing-agent.
local rpc_line = ([[case "$1" in rpc|version) exec '%s/bin/vibing-agent' "$@";; esac]]):format(rpc.plugin_root())
vim.fn.writefile({ "#!/bin/sh", rpc_line, 'exec cat "' .. tmp .. '/events.jsonl"' }, tmp .. "/fake-run")
vim.fn.setfperm(tmp .. "/fake-run", "rwxr-xr-x")
require("vibing").setup({ bin = tmp .. "/fake-run" })
local chat = tmp .. "/.vibing/chat/bench.md"
vim.fn.writefile({ "---", "vibing.nvim: true", "---", "", "## User", "", "stream a lot" }, chat)
vim.cmd("edit " .. chat)
local buf = vim.api.nvim_get_current_buf()
require("vibing.chat").attach(buf)

local stall, last = 0, nil
local probe = vim.loop.new_timer()
probe:start(5, 5, function()
  local now = vim.loop.hrtime()
  if last then
    stall = math.max(stall, (now - last) / 1e6 - 5)
  end
  last = now
end)
local t0 = vim.loop.hrtime()
require("vibing.chat.send").send(buf)
local ok = vim.wait(30000, function()
  return vim.b[buf].vibing_runs == 1
end, 1)
local elapsed = (vim.loop.hrtime() - t0) / 1e6
probe:stop()
probe:close()
local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
if not ok or #text < 1024 * 1024 then
  out(("bench: streaming did not finish (%s, %d bytes in the buffer)"):format(tostring(vim.b[buf].vibing_last_run), #text))
  vim.cmd("cquit 1")
end
out(("stream 1 MB (%d text events) into a chat buffer: %.0f ms (target < 1000 ms)"):format(nevents, elapsed))
out(("longest event-loop stall while streaming (5 ms probe timer): %.1f ms (target < 50 ms)"):format(stall))

-- Headless, nothing was drawn while the text streamed in: the first redraw
-- computes the folds (tool output blocks) of the whole megabyte at once.
-- It is measured on its own, so the approval below measures the approval
-- alone.
local tf = vim.loop.hrtime()
vim.cmd("redraw")
out(("first redraw after the 1 MB turn (folds of the whole chat computed): %.1f ms"):format((vim.loop.hrtime() - tf) / 1e6))

-- Approval: from an approval_request event line to its block in the buffer.
local approval = require("vibing.ui.approval")
local writer = require("vibing.chat.writer").new(buf, { delay_ms = 0 })
local line = vim.fn.json_encode({
  type = "approval_request", id = "toolu_01", tool = "Bash", input = { command = "npm install" }, level = "mutating",
  action = "tool:Bash:npm install", rule = "Bash", reason = "Bash needs approval (ask: Bash).",
  suggested_rule = "Bash(npm install:*)", timeout_s = 60,
  options = { "allow_once", "deny_once", "allow_for_session", "deny_for_session", "always_allow", "always_deny" },
})
local times = {}
for n = 1, 300 do
  local s = vim.loop.hrtime()
  local ev = vim.fn.json_decode(line)
  ev.id = "toolu_" .. n
  approval.request(buf, ev, function() end, writer)
  local visible = vim.api.nvim_buf_get_lines(buf, -9, -1, false)
  times[n] = vim.loop.hrtime() - s
  assert(table.concat(visible, "\n"):find("Approval needed", 1, true), "block not visible")
  approval.resolved(buf, { id = ev.id, decision = "deny_once", by = "user" })
end
table.sort(times)
out(("approval_request -> block visible: median %.2f ms, max %.2f ms over 300 (target < 20 ms)"):format(times[150] / 1e6, times[300] / 1e6))
vim.cmd("qa!")
