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

describe("idle notice", function()
  local cases = {
    {
      ask = "deny",
      want = [[⏹ The agent's session went idle; the next message resumes it: asks will be refused. Send /new-session for a fresh one, or set resume_ask = "prompt".]],
    },
    { ask = "prompt", want = [[⏹ The agent's session went idle; the next message resumes it: asks will still prompt (resume_ask = "prompt").]] },
  }
  for _, c in ipairs(cases) do
    it("is written when the live process ends after live_timeout_s, resume_ask = " .. c.ask, function()
      local pidfile = fake_agent({ live_timeout_s = 1, resume_ask = c.ask })
      local buf, path = helpers.new_chat()
      say(buf, "hello", 1)
      local pid = pid_of(pidfile)
      assert.falsy(text(buf):find(c.want, 1, true), "no notice before the timeout")
      assert.truthy(vim.wait(5000, function()
        return not alive(pid)
      end, 10), "the live process ended on its idle timeout")
      assert.truthy(vim.wait(2000, function()
        return text(buf):find(c.want, 1, true) ~= nil
      end, 10), "the idle notice is in the chat: " .. text(buf))
      assert.matches("answer 1\n\n" .. vim.pesc(c.want) .. "\n\n## User\n\n$", text(buf))
      assert.falsy(run().live(buf), "no live process any more")
      assert.falsy(vim.bo[buf].modified, "the chat is saved with the notice")
      assert.matches(vim.pesc(c.want), helpers.read(path))
      local hl = vim.api.nvim_buf_get_extmarks(buf, require("vibing.chat.writer").ns, 0, -1, { details = true })
      local found = false
      for _, m in ipairs(hl) do
        found = found or (m[4].hl_group == "VibingNotice" and vim.api.nvim_buf_get_lines(buf, m[2], m[2] + 1, false)[1] == c.want)
      end
      assert.truthy(found, "the notice is highlighted VibingNotice")
    end)
  end
  it("is not written when the chat is closed before the timeout", function()
    local pidfile = fake_agent({ live_timeout_s = 1 })
    local buf, path = helpers.new_chat()
    say(buf, "hello", 1)
    local pid = pid_of(pidfile)
    vim.cmd("bdelete! " .. buf)
    assert.truthy(vim.wait(5000, function()
      return not alive(pid)
    end, 10), "the live process ended with the chat")
    vim.wait(1500)
    assert.falsy(helpers.read(path):find("went idle", 1, true), "no idle notice in the closed chat")
  end)
end)

describe("fork notice", function()
  for _, ask in ipairs({ "deny", "prompt" }) do
    it("comes above the reply to a fork's first message, only that one, resume_ask = " .. ask, function()
      fake_agent({ resume_ask = ask })
      local buf = helpers.new_chat()
      say(buf, "hello", 1)
      assert.falsy(text(buf):find("This chat is a fork", 1, true), "no fork notice in the parent")
      local path = require("vibing.chat.fork").fork(buf)
      assert.truthy(path, "forked")
      local child = vim.api.nvim_get_current_buf()
      assert.truthy(child ~= buf, "the fork is open")
      say(child, "in the fork", 1)
      local want = "⏹ This chat is a fork: this message resumes the parent's session (under a new id): "
        .. (ask == "prompt" and 'asks will still prompt (resume_ask = "prompt").' or 'asks will be refused. Send /new-session for a fresh one, or set resume_ask = "prompt".')
      assert.matches("## User\n\nin the fork\n\n## Assistant\n\n" .. vim.pesc(want) .. "\n\nanswer 1\n", text(child))
      say(child, "second", 2)
      local _, count = text(child):gsub("This chat is a fork", "")
      assert.equals(1, count, "the notice comes once")
    end)
  end
end)

describe("reopen notice", function()
  for _, ask in ipairs({ "deny", "prompt" }) do
    it("comes above the reply to the first message of a chat with a session and no live process, resume_ask = " .. ask, function()
      fake_agent({ resume_ask = ask })
      local path = vim.fn.getcwd() .. "/.vibing/chat/reopened.md"
      helpers.write(path, { "---", "vibing.nvim: true", "session_id: sess-old", "---", "", "## User", "" })
      vim.cmd("edit " .. vim.fn.fnameescape(path))
      local buf = vim.api.nvim_get_current_buf()
      say(buf, "again", 1)
      local want = "⏹ This chat's agent process had ended: this message resumes its session: "
        .. (ask == "prompt" and 'asks will still prompt (resume_ask = "prompt").' or 'asks will be refused. Send /new-session for a fresh one, or set resume_ask = "prompt".')
      assert.matches("again\n\n## Assistant\n\n" .. vim.pesc(want) .. "\n\nanswer 1\n", text(buf))
      say(buf, "and more", 2)
      local _, count = text(buf):gsub("agent process had ended", "")
      assert.equals(1, count, "the live process answers the next message: no second notice")
    end)
  end
  it("is not written for a chat's first message, nor after the idle notice said it", function()
    local pidfile = fake_agent({ live_timeout_s = 1 })
    local buf = helpers.new_chat()
    say(buf, "hello", 1)
    assert.falsy(text(buf):find("agent process had ended", 1, true), "a fresh chat: no notice")
    local pid = pid_of(pidfile)
    assert.truthy(vim.wait(5000, function()
      return not alive(pid) and text(buf):find("went idle", 1, true) ~= nil
    end, 10), "the idle notice")
    say(buf, "after the idle end", 2)
    assert.falsy(text(buf):find("agent process had ended", 1, true), "the idle notice said it already: " .. text(buf))
  end)
end)
