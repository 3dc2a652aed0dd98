-- The chat's live `vibing-agent run`: a reload (:e, opening the chat that is
-- open) keeps it, a real close ends it, and a chat whose next message
-- resumes its session says so (idle timeout, a fork's first message).
local h = require("harness")
local helpers = require("helpers")
local describe, it, assert = h.describe, h.it, h.assert

-- Whether a process with this pid runs (a zombie nobody reaped does not).
local function alive(pid)
  local f = io.open("/proc/" .. pid .. "/stat", "r")
  if not f then
    return vim.fn.isdirectory("/proc/self") == 0 and vim.loop.kill(pid, 0) == 0
  end
  local stat = f:read("*a")
  f:close()
  return not stat:match("^%d+ %b() Z")
end

-- A stand-in for `vibing-agent run` that stays alive between messages: it
-- answers each prompt line with "answer N" (N counts this process's
-- messages) and a result, and ends when its stdin closes. It writes its pid
-- to pidfile when it starts; `rpc` and `version` go to the real vibing-agent.
local function fake_agent(opts)
  local dir = vim.fn.getcwd()
  local pidfile = dir .. "/live.pid"
  local path = dir .. "/fake-live-run"
  local rpc_line = ([[case "$1" in rpc|version) exec '%s/bin/vibing-agent' "$@";; esac]]):format(require("vibing.rpc").plugin_root())
  helpers.write(path, {
    "#!/bin/sh",
    rpc_line,
    "echo $$ > " .. pidfile,
    "n=0",
    "while read -r line; do",
    "  n=$((n+1))",
    [[  printf '{"type":"session","session_id":"sess-live"}\n']],
    [[  printf '{"type":"text","text":"answer %d"}\n' "$n"]],
    [[  printf '{"type":"result","is_error":false,"session_id":"sess-live"}\n']],
    "done",
  })
  vim.fn.setfperm(path, "rwxr-xr-x")
  require("vibing").setup(vim.tbl_extend("force", { bin = path }, opts or {}))
  return pidfile
end

local function pid_of(pidfile)
  return tonumber(vim.fn.readfile(pidfile)[1])
end

-- Send line and wait for the chat's n-th reply.
local function say(buf, line, n)
  helpers.say(buf, line)
  assert.truthy(vim.wait(10000, function()
    return vim.b[buf].vibing_runs == n
  end, 5), "reply " .. n .. " came")
end

local function text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
end

local run = function()
  return require("vibing.chat.run")
end

describe("live process", function()
  local reloads = {
    [":e"] = function()
      vim.cmd("edit")
    end,
    [":VibingChats open on the chat you are in"] = function(path)
      require("vibing.chat").open(path)
    end,
  }
  for name, reload in pairs(reloads) do
    it(name .. " keeps the same live process, which answers the next message; :bd! ends it", function()
      local pidfile = fake_agent()
      local buf, path = helpers.new_chat()
      say(buf, "hello", 1)
      local pid = pid_of(pidfile)
      assert.truthy(alive(pid) and run().live(buf), "the live process runs after the first reply")
      reload(path)
      assert.equals(buf, vim.api.nvim_get_current_buf(), "the same chat buffer")
      vim.wait(300)
      assert.truthy(alive(pid), "the process still runs after " .. name)
      assert.truthy(run().live(buf), "the chat still has its live process")
      say(buf, "again", 2)
      assert.equals(pid, pid_of(pidfile), "no new process started")
      assert.matches("answer 2", text(buf), true)
      vim.cmd("bdelete! " .. buf)
      assert.truthy(vim.wait(5000, function()
        return not alive(pid)
      end, 10), ":bd! ended the live process")
    end)
  end
  it(":bw! ends the live process", function()
    local pidfile = fake_agent()
    local buf = helpers.new_chat()
    say(buf, "hello", 1)
    local pid = pid_of(pidfile)
    vim.cmd("bwipeout! " .. buf)
    assert.truthy(vim.wait(5000, function()
      return not alive(pid)
    end, 10), ":bw! ended the live process")
  end)
end)
