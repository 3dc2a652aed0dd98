local h = require("harness")
local helpers = require("helpers")
local describe, it, assert = h.describe, h.it, h.assert
local process = require("vibing.process")

-- Every line next() hands out until it returns nil.
local function drain(l)
  local out = {}
  for line in
    function()
      return l:next()
    end
  do
    table.insert(out, line)
  end
  return out
end

describe("process.lines", function()
  local cases = {
    { name = "whole lines in one chunk", chunks = { "a\nb\n" }, want = { "a", "b" } },
    { name = "a line split across chunks", chunks = { '{"ty', 'pe":"text"}\n' }, want = { '{"type":"text"}' } },
    { name = "a line over many chunks", chunks = { "x", "y", "z", "\nw\n" }, want = { "xyz", "w" } },
    { name = "the newline alone in a chunk", chunks = { "a", "\n", "b\n" }, want = { "a", "b" } },
    { name = "empty lines kept", chunks = { "\n\na\n" }, want = { "", "", "a" } },
    { name = "no newline yet", chunks = { "abc" }, want = {} },
    { name = "empty chunks", chunks = { "", "a", "", "\n" }, want = { "a" } },
    { name = "the last line at EOF", chunks = { "a\nb" }, eof = true, want = { "a", "b" } },
    { name = "EOF after a newline", chunks = { "a\n" }, eof = true, want = { "a" } },
  }
  for _, c in ipairs(cases) do
    it(c.name, function()
      local l = process.lines()
      for _, chunk in ipairs(c.chunks) do
        l:push(chunk)
      end
      if c.eof then
        l:finish()
      end
      assert.equals(c.want, drain(l), ("lines of %s"):format(h.show(c.chunks)))
      assert.falsy(l:ready(), "ready() after everything was read")
    end)
  end
  it("carries a partial line over to the next chunk", function()
    local l = process.lines()
    l:push("one\ntw")
    assert.equals({ "one" }, drain(l))
    l:push("o\nthree")
    assert.equals({ "two" }, drain(l))
    l:finish()
    assert.truthy(l:ready(), "ready() with a last line at EOF")
    assert.equals({ "three" }, drain(l))
  end)
  it("stops after any line and carries on later", function()
    local l = process.lines()
    l:push("a\nb\nc\n")
    assert.equals("a", l:next())
    assert.truthy(l:ready())
    l:push("d\n")
    assert.equals({ "b", "c", "d" }, drain(l))
  end)
  it("forgets everything on clear()", function()
    local l = process.lines()
    l:push("a\nb")
    l:clear()
    l:finish()
    assert.equals({}, drain(l))
  end)
end)

-- Start cmd; wait for its exit. Returns { out, err, code }.
local function run(cmd, write)
  local res = { out = {}, err = {} }
  local p, why = process.spawn(cmd, {
    on_stdout = function(chunk)
      table.insert(res.out, chunk)
    end,
    on_stderr = function(chunk)
      table.insert(res.err, chunk)
    end,
    on_exit = function(code)
      res.code = code
    end,
  })
  assert.truthy(p, "spawn: " .. tostring(why))
  if write then
    write(p, res)
  end
  assert.truthy(vim.wait(5000, function()
    return res.code ~= nil
  end, 5), "the process ended")
  res.out, res.err = table.concat(res.out), table.concat(res.err)
  return res, p
end

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

describe("process.spawn", function()
  it("reads stdout and stderr and reports the exit code", function()
    local res = run({ "sh", "-c", "printf 'out\\n'; printf 'err\\n' >&2; exit 3" })
    assert.equals({ "out\n", "err\n", 3 }, { res.out, res.err, res.code })
  end)
  it("writes to stdin until it is stopped", function()
    local res = run({ "sh", "-c", "read a; echo got $a; read b; echo got $b; sleep 60" }, function(p, res)
      assert.truthy(p:write("hello\n"), "write")
      assert.truthy(p:write("again\n"), "second write")
      vim.wait(2000, function()
        return table.concat(res.out):find("got again\n", 1, true) ~= nil
      end, 5)
      p:stop()
    end)
    assert.equals({ "got hello\ngot again\n", 128 + 15 }, { res.out, res.code })
  end)
  it("reports a signal as 128 + its number", function()
    local res = run({ "sh", "-c", "kill -TERM $$; sleep 5" })
    assert.equals(128 + 15, res.code)
  end)
  it("delivers a large burst whole, in chunks", function()
    local res = run({ "sh", "-c", "i=0; while [ $i -lt 20000 ]; do echo line$i; i=$((i+1)); done" })
    local l = process.lines()
    l:push(res.out)
    local lines = drain(l)
    assert.equals(20000, #lines)
    assert.equals({ "line0", "line19999" }, { lines[1], lines[20000] })
  end)
  it("fails with a reason for a missing binary", function()
    local p, why = process.spawn({ vim.fn.getcwd() .. "/nowhere" }, { on_stdout = function() end, on_exit = function() end })
    assert.falsy(p)
    assert.matches("ENOENT", tostring(why), true)
  end)
  it("stops the whole process group", function()
    local pidfile = vim.fn.getcwd() .. "/grandchild.pid"
    local code
    local p = process.spawn({ "sh", "-c", "sleep 60 & echo $! > " .. pidfile .. "; wait" }, {
      on_stdout = function() end,
      on_exit = function(c)
        code = c
      end,
    })
    assert.truthy(vim.wait(5000, function()
      return vim.fn.filereadable(pidfile) == 1 and (vim.fn.readfile(pidfile)[1] or "") ~= ""
    end, 5), "the grandchild started")
    local grandchild = tonumber(vim.fn.readfile(pidfile)[1])
    assert.truthy(alive(grandchild), "the grandchild runs")
    p:stop()
    assert.truthy(vim.wait(5000, function()
      return code ~= nil and not alive(grandchild)
    end, 5), "the child and the grandchild ended")
    assert.equals(128 + 15, code)
    assert.falsy(p:write("late\n"), "write after the end")
  end)
end)

describe("chat.send streaming", function()
  -- A stand-in for `vibing-agent run`: a shell script printing JSON Lines;
  -- `rpc` (the chat is saved through it) and its `version` check go to the
  -- real vibing-agent.
  local rpc_line = ([[case "$1" in rpc|version) exec '%s/bin/vibing-agent' "$@";; esac]]):format(require("vibing.rpc").plugin_root())
  local function agent(body)
    local path = vim.fn.getcwd() .. "/fake-run"
    helpers.write(path, vim.list_extend({ "#!/bin/sh", rpc_line }, body))
    vim.fn.setfperm(path, "rwxr-xr-x")
    require("vibing").setup({ bin = path })
    local buf = helpers.new_chat()
    helpers.say(buf, "hello")
    assert.truthy(vim.wait(10000, function()
      return vim.b[buf].vibing_runs == 1
    end, 5), "the run ended")
    return buf, table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  end
  it("joins lines written in pieces", function()
    local buf, text = agent({
      [[printf '{"type":"text","te']],
      "sleep 0.1",
      [[printf 'xt":"split "}\n{"type":"text","text":"in two"}\n{"type":"res']],
      "sleep 0.1",
      [[printf 'ult","is_error":false}']],
    })
    assert.matches("## Assistant\n\nsplit in two\n\n## User\n\n$", text)
    assert.equals("result", vim.b[buf].vibing_last_run)
  end)
  it("streams text in pieces into one reply, blocks as paragraphs, and names its end on an error result", function()
    local buf, text = agent({
      [[printf '{"type":"text","text":"The answer "}\n{"type":"text","text":"comes in "}\n{"type":"text","text":"pieces."}\n']],
      [[printf '{"type":"text","text":"\\n\\nA second block."}\n{"type":"result","is_error":true}\n']],
    })
    assert.matches("## Assistant\n\nThe answer comes in pieces.\n\nA second block.\n", text)
    assert.matches("ended the turn with an error: The answer comes in pieces. ⏎  ⏎ A second block.", text, true)
  end)
  it("says how a run that crashed ended, with its stderr", function()
    local buf, text = agent({ [[printf '{"type":"text","text":"partial"}\n'; echo 'panic: boom' >&2; exit 3]] })
    assert.matches("vibing-agent run stopped unexpectedly (exit 3): panic: boom", text, true)
    assert.equals("crashed", vim.b[buf].vibing_last_run)
  end)
  it("cancels a run that ignores the cancel by stopping its process group", function()
    local pidfile = vim.fn.getcwd() .. "/agent.pid"
    local path = vim.fn.getcwd() .. "/fake-run"
    helpers.write(path, { "#!/bin/sh", rpc_line, "sleep 60 & echo $! > " .. pidfile, [[printf '{"type":"text","text":"working"}\n']], "wait" })
    vim.fn.setfperm(path, "rwxr-xr-x")
    require("vibing").setup({ bin = path })
    local buf = helpers.new_chat()
    helpers.say(buf, "hello")
    assert.truthy(vim.wait(5000, function()
      return vim.fn.filereadable(pidfile) == 1 and (vim.fn.readfile(pidfile)[1] or "") ~= ""
    end, 5), "the agent started")
    local grandchild = tonumber(vim.fn.readfile(pidfile)[1])
    require("vibing.chat.send").cancel(buf)
    assert.equals("vibing: cancelling", require("vibing").status(buf))
    assert.truthy(vim.wait(9000, function()
      return vim.b[buf].vibing_runs == 1
    end, 10), "the run ended")
    assert.falsy(alive(grandchild), "the agent's child is gone")
    assert.equals("cancelled", vim.b[buf].vibing_last_run)
  end)
  it(":bd! on a running chat stops its process and saves a chat that still opens", function()
    local pidfile = vim.fn.getcwd() .. "/closed.pid"
    local path = vim.fn.getcwd() .. "/fake-run-close"
    helpers.write(path, {
      "#!/bin/sh",
      rpc_line, -- the chat's saves go to the real rpc host (a stand-in one would sleep 60 s per request)
      "echo $$ > " .. pidfile,
      [[printf '{"type":"text","text":"working"}\n']],
      [[printf '{"type":"approval_request","id":"t1","tool":"Bash","input":{"command":"make"},"level":"mutating","timeout_s":1}\n']],
      "sleep 60",
    })
    vim.fn.setfperm(path, "rwxr-xr-x")
    require("vibing").setup({ bin = path })
    local buf = helpers.new_chat()
    local chat = vim.api.nvim_buf_get_name(buf)
    helpers.say(buf, "hello")
    assert.truthy(vim.wait(5000, function()
      return require("vibing.ui.approval").pending(buf) > 0
    end, 10), "the approval is asked")
    local pid = tonumber(vim.fn.readfile(pidfile)[1])
    vim.cmd("bdelete! " .. buf)
    assert.truthy(vim.wait(5000, function()
      return not alive(pid)
    end, 10), "the run's process ended with the chat")
    vim.wait(1500) -- past the approval's timeout: nothing may be written into the closed chat
    local lines = vim.fn.readfile(chat)
    assert.equals("---", lines[1])
    local text = table.concat(lines, "\n")
    assert.matches("working", text, true)
    assert.matches("⏹ Stopped: the chat was closed while the agent was working.", text, true)
    assert.matches("## User\n*$", text)
    vim.cmd("edit " .. vim.fn.fnameescape(chat))
    local again = vim.api.nvim_get_current_buf()
    assert.equals("", require("vibing").status(again))
    assert.equals(0, #vim.api.nvim_buf_get_extmarks(again, vim.api.nvim_create_namespace("vibing_status"), 0, -1, {}))
    assert.equals("## User", vim.fn.getline(vim.fn.line("$") - 1) ~= "" and vim.fn.getline(vim.fn.line("$") - 1) or vim.fn.getline(vim.fn.line("$") - 2))
  end)
end)
