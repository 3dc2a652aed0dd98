-- A transcript that is true (issue 12): the reply never swallows what the
-- person types below it; tool output under its own call, however the results
-- arrive; calls the CLI refused itself shown with its error; the whole output
-- kept, folded under its summary.
local h = require("harness")
local helpers = require("helpers")
local describe, it, assert = h.describe, h.it, h.assert
local events = require("vibing.chat.events")
local writer = require("vibing.chat.writer")

local function lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

local function text(buf)
  return table.concat(lines(buf), "\n")
end

-- A stand-in for `vibing-agent run` (rpc and version go to the real one):
-- for its n-th prompt it prints the lines of turn<n> ("sleep S" lines wait,
-- "exit N" ends it),
-- and it logs every stdin line.
local function fake_run(dir, turns)
  for i, t in ipairs(turns) do
    vim.fn.writefile(t, dir .. "/turn" .. i)
  end
  local real = require("vibing.rpc").plugin_root() .. "/bin/vibing-agent"
  local script = {
    "#!/bin/sh",
    ([[case "$1" in rpc|version) exec '%s' "$@";; esac]]):format(real),
    "n=0",
    "while IFS= read -r line; do",
    ([[  printf '%%s\n' "$line" >> '%s/stdin.log']]):format(dir),
    [[  case "$line" in *'"prompt"'*) ;; *) continue;; esac]],
    "  n=$((n+1))",
    ([[  f='%s/turn'$n]]):format(dir),
    [[  [ -f "$f" ] || continue]],
    [[  while IFS= read -r ev; do case "$ev" in sleep*|exit*) $ev;; *) printf '%s\n' "$ev";; esac; done < "$f"]],
    "done",
  }
  vim.fn.writefile(script, dir .. "/fake-run")
  vim.fn.setfperm(dir .. "/fake-run", "rwxr-xr-x")
  require("vibing").setup({ bin = dir .. "/fake-run" })
end

local function ev(t)
  return vim.fn.json_encode(t)
end

-- The prompts the fake run received, in order.
local function prompts(dir)
  local out = {}
  for _, l in ipairs(vim.fn.filereadable(dir .. "/stdin.log") == 1 and vim.fn.readfile(dir .. "/stdin.log") or {}) do
    local ok, m = pcall(vim.fn.json_decode, l)
    if ok and type(m) == "table" and m.type == "prompt" then
      table.insert(out, m.text)
    end
  end
  return out
end

describe("text typed while the reply streams", function()
  it("stays below the reply, intact, and is sent as the next (queued) message", function()
    local dir = vim.fn.getcwd()
    fake_run(dir, {
      { ev({ type = "text", text = "First part of the answer." }), "sleep 0.6",
        ev({ type = "text", text = " Still the answer.\nSecond line of the answer." }), "sleep 0.3", ev({ type = "result", is_error = false }) },
      { ev({ type = "text", text = "The second answer." }), ev({ type = "result", is_error = false }) },
    })
    local buf = helpers.new_chat()
    helpers.say(buf, "first question")
    assert.truthy(vim.wait(5000, function()
      return text(buf):find("First part", 1, true) ~= nil
    end, 10), "the reply started")
    -- the cursor waits in the next User section, under the reply
    local n = vim.api.nvim_buf_line_count(buf)
    assert.equals(n, vim.api.nvim_win_get_cursor(0)[1], "the cursor is on the last line")
    assert.equals({ "## User", "", "" }, vim.api.nvim_buf_get_lines(buf, n - 3, n, false))
    vim.api.nvim_feedkeys("Anext question, typed meanwhile\27", "xt", false)
    require("vibing.chat").submit(buf) -- <CR>: queued
    assert.matches("queued", helpers.last().msg, true)
    assert.truthy(vim.wait(5000, function()
      return (vim.b[buf].vibing_runs or 0) >= 2
    end, 10), "both messages answered")
    local want = "## User\n\nfirst question\n\n## Assistant\n\nFirst part of the answer. Still the answer.\nSecond line of the answer.\n\n"
      .. "## User\n\nnext question, typed meanwhile\n\n## Assistant\n\nThe second answer.\n\n## User\n\n"
    assert.equals(want, text(buf):sub(-#want))
    assert.equals({ "first question", "next question, typed meanwhile" }, prompts(dir))
  end)

  it("joins the kept message when the send fails before any answer", function()
    local dir = vim.fn.getcwd()
    fake_run(dir, { { "sleep 0.5", ev({ type = "error", message = "boom" }), "exit 1" } })
    local buf = helpers.new_chat()
    helpers.say(buf, "question")
    vim.api.nvim_feedkeys("Aand one more thing\27", "xt", false)
    assert.truthy(vim.wait(5000, function()
      return vim.b[buf].vibing_runs == 1
    end, 10))
    local want = "\n## User\n\nquestion\n\nand one more thing"
    assert.equals(want, text(buf):sub(-#want))
    assert.falsy(text(buf):find("## Assistant", 1, true))
    assert.matches("the message was not sent (it is kept): boom", helpers.last().msg, true)
  end)

  it("keeps text typed above the User heading", function()
    local dir = vim.fn.getcwd()
    fake_run(dir, { { ev({ type = "text", text = "Answer." }), "sleep 0.5", ev({ type = "result", is_error = false }) } })
    local buf = helpers.new_chat()
    helpers.say(buf, "question")
    assert.truthy(vim.wait(5000, function()
      return text(buf):find("Answer.", 1, true) ~= nil
    end, 10))
    -- typed on the blank line between the reply and the heading
    local n = vim.api.nvim_buf_line_count(buf)
    vim.api.nvim_buf_set_lines(buf, n - 4, n - 3, false, { "typed above the heading" })
    assert.truthy(vim.wait(5000, function()
      return vim.b[buf].vibing_runs == 1
    end, 10))
    local want = "\n## Assistant\n\nAnswer.\n\n## User\n\ntyped above the heading"
    assert.equals(want, text(buf):sub(-#want))
  end)
end)

-- A run's state for feeding events straight to the handlers.
local function run_in(buf, row)
  local w = writer.new(buf, { delay_ms = 0, row = row })
  w.open = true
  return { buf = buf, writer = w, tools = {}, rules = {}, cancelled = false, send_json = function() end }
end

local function chat_buf(extra)
  local buf = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_set_current_buf(buf)
  local l = { "## Assistant", "" }
  vim.list_extend(l, extra or {})
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, l)
  return buf
end

local function feed(r, list)
  for _, e in ipairs(list) do
    events.handle(r, ev(e))
  end
end

local function allow(id, tool, detail)
  return { type = "decision", id = id, tool = tool, detail = detail, decision = "allow", rule = tool, source = "allow_list" }
end

describe("text after a tool line", function()
  it("starts a paragraph of its own, once (text that starts with a newline gets no second blank line)", function()
    local buf = chat_buf()
    local r = run_in(buf)
    feed(r, {
      { type = "text", text = "First." },
      { type = "tool_use", id = "t1", tool = "Read", input = { file_path = "a.txt" }, detail = "a.txt" },
      allow("t1", "Read", "a.txt"),
      { type = "tool_result", id = "t1", is_error = false, content = "alpha" },
      { type = "text", text = "Then." },
      { type = "tool_use", id = "t2", tool = "Read", input = { file_path = "b.txt" }, detail = "b.txt" },
      allow("t2", "Read", "b.txt"),
      { type = "text", text = "\nAlready apart." },
    })
    assert.equals({
      "## Assistant",
      "First.",
      "⏺ Read: a.txt — allowed (Read)",
      "  ⎿ alpha",
      "",
      "Then.",
      "⏺ Read: b.txt — allowed (Read)",
      "",
      "Already apart.",
    }, lines(buf))
  end)
end)

describe("tool results", function()
  it("land under their own call when both calls come before the results (as the claude CLI sends them)", function()
    local buf = chat_buf()
    local r = run_in(buf)
    -- the order the real CLI streamed two Bash calls of one message in
    feed(r, {
      { type = "tool_use", id = "t1", tool = "Bash", input = { command = "echo one; echo one-b" }, detail = "echo one; echo one-b" },
      allow("t1", "Bash", "echo one; echo one-b"),
      { type = "tool_use", id = "t2", tool = "Bash", input = { command = "echo two" }, detail = "echo two" },
      allow("t2", "Bash", "echo two"),
      { type = "tool_result", id = "t1", is_error = false, content = "one\none-b" },
      { type = "tool_result", id = "t2", is_error = false, content = "two" },
      { type = "text", text = "Both ran." },
    })
    assert.equals({
      "## Assistant",
      "⏺ Bash: echo one; echo one-b — allowed (Bash)",
      "  ⎿ one (+1 line)",
      "  ```output",
      "  one",
      "  one-b",
      "  ```",
      "⏺ Bash: echo two — allowed (Bash)",
      "  ⎿ two",
      "",
      "Both ran.",
    }, lines(buf))
  end)

  it("land under their own call out of order, after text and after an approval", function()
    local buf = chat_buf({ "", "## User", "", "typed" })
    local r = run_in(buf, 1)
    feed(r, {
      { type = "tool_use", id = "a", tool = "Read", input = { file_path = "a.txt" }, detail = "a.txt" },
      allow("a", "Read", "a.txt"),
      { type = "tool_use", id = "b", tool = "Bash", input = { command = "make" }, detail = "make" },
      { type = "decision", id = "b", tool = "Bash", detail = "make", decision = "ask", rule = "Bash" },
      { type = "approval_request", id = "b", tool = "Bash", input = { command = "make" }, detail = "make", level = "mutating",
        rule = "Bash", options = { "allow_once", "deny_once" }, timeout_s = 60 },
      { type = "approval_resolved", id = "b", decision = "allow_once", by = "user" },
      { type = "text", text = "Waiting for both." },
      { type = "tool_result", id = "b", is_error = false, content = "built" },
      { type = "tool_result", id = "a", is_error = false, content = "alpha" },
    })
    assert.equals({
      "## Assistant",
      "⏺ Read: a.txt — allowed (Read)",
      "  ⎿ alpha",
      "⏺ Bash: make — allowed once by you",
      "  ⎿ built",
      "",
      "Waiting for both.",
      "",
      "## User",
      "",
      "typed",
    }, lines(buf))
  end)
end)

describe("calls the CLI refused before the permission check", function()
  it("are shown with the CLI's error (events as the claude CLI sends them)", function()
    local buf = chat_buf()
    local r = run_in(buf)
    feed(r, {
      { type = "tool_use", id = "e", tool = "Edit", input = { file_path = "/p/foo.py", old_string = "zzz", new_string = "y" }, detail = "foo.py" },
      { type = "tool_use", id = "u", tool = "NoSuchTool", input = { a = 1 }, detail = '{"a":1}' },
      { type = "tool_use", id = "v", tool = "Bash", input = { nocommand = "x" }, detail = '{"nocommand":"x"}' },
      { type = "tool_result", id = "e", is_error = true, content = "<tool_use_error>String to replace not found in file.\nString: zzz</tool_use_error>" },
      { type = "tool_result", id = "u", is_error = true, content = "<tool_use_error>Error: No such tool available: NoSuchTool</tool_use_error>" },
      { type = "tool_result", id = "v", is_error = true, content = "<tool_use_error>InputValidationError: Bash failed due to the following issue:\nThe required parameter `command` is missing</tool_use_error>" },
    })
    assert.equals({
      "## Assistant",
      "✗ Edit: foo.py — not run: String to replace not found in file.",
      "  ⎿ error: String to replace not found in file. (+1 line)",
      "  ```output",
      "  String to replace not found in file.",
      "  String: zzz",
      "  ```",
      "✗ NoSuchTool: {\"a\":1} — not run: Error: No such tool available: NoSuchTool",
      "✗ Bash: {\"nocommand\":\"x\"} — not run: InputValidationError: Bash failed due to the following issue:",
      "  ⎿ error: InputValidationError: Bash failed due to the following issue: (+1 line)",
      "  ```output",
      "  InputValidationError: Bash failed due to the following issue:",
      "  The required parameter `command` is missing",
      "  ```",
    }, lines(buf))
  end)
  it("stand in the order the agent made the calls, though the CLI reports them with the results", function()
    local buf = chat_buf()
    local r = run_in(buf)
    feed(r, {
      { type = "text", text = "Editing, then building." },
      { type = "tool_use", id = "e", tool = "Edit", input = { file_path = "/p/foo.py", old_string = "zzz", new_string = "y" }, detail = "foo.py" },
      { type = "tool_use", id = "b", tool = "Bash", input = { command = "make" }, detail = "make" },
      allow("b", "Bash", "make"),
      { type = "tool_use", id = "l", tool = "Bash", input = { command = "ls" }, detail = "ls" },
      allow("l", "Bash", "ls"),
      { type = "tool_result", id = "e", is_error = true, content = "<tool_use_error>String to replace not found in file.</tool_use_error>" },
      { type = "tool_result", id = "b", is_error = false, content = "built" },
      { type = "tool_result", id = "l", is_error = false, content = "a.txt" },
      { type = "tool_use", id = "u", tool = "NoSuchTool", input = { a = 1 }, detail = '{"a":1}' },
      { type = "tool_result", id = "u", is_error = true, content = "<tool_use_error>Error: No such tool available: NoSuchTool</tool_use_error>" },
    })
    assert.equals({
      "## Assistant",
      "Editing, then building.",
      "✗ Edit: foo.py — not run: String to replace not found in file.",
      "⏺ Bash: make — allowed (Bash)",
      "  ⎿ built",
      "⏺ Bash: ls — allowed (Bash)",
      "  ⎿ a.txt",
      "✗ NoSuchTool: {\"a\":1} — not run: Error: No such tool available: NoSuchTool",
    }, lines(buf))
  end)

  it("a refused call (deny decision) still shows only its refusal", function()
    local buf = chat_buf()
    local r = run_in(buf)
    feed(r, {
      { type = "tool_use", id = "d", tool = "Bash", input = { command = "rm -rf /" }, detail = "rm -rf /" },
      { type = "decision", id = "d", tool = "Bash", detail = "rm -rf /", decision = "deny", reason = "never." },
      { type = "tool_result", id = "d", is_error = true, content = "never." },
    })
    assert.equals({ "## Assistant", "⏺ Bash: rm -rf / — refused: never." }, lines(buf))
  end)
end)

describe("a tool's whole output", function()
  local render = require("vibing.chat.render")
  it("is kept in a fenced block whose fence no output line closes", function()
    local out = render.result_lines("```lua\nx = 1\n```\n````\n## User\n\ndone\n", false)
    assert.equals({ "  ⎿ ```lua (+6 lines)", "  `````output", "  ```lua", "  x = 1", "  ```", "  ````", "  ## User", "", "  done", "  `````" }, out)
    assert.equals({ "  ⎿ ok" }, render.result_lines("ok\n\n", false))
    assert.equals({ "  ⎿ (no output)" }, render.result_lines("", false))
    local long = string.rep("x", 150)
    assert.equals(4, #render.result_lines(long, false), "a cut first line keeps the block")
  end)

  it("folds whole even when it quotes a chat (its own summary, fences and headings)", function()
    local buf = helpers.new_chat()
    local quoted = table.concat({ "## User", "", "⏺ Bash: ls — allowed (Bash)", "  ⎿ a (+1 lines)", "  ```output", "  a", "  b", "  ```", "```output", "x", "```", "end" }, "\n")
    local l = { "⏺ Bash: cat old-chat.md — allowed (Bash)" }
    vim.list_extend(l, render.result_lines(quoted, false))
    table.insert(l, "After.")
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, l)
    local n = vim.api.nvim_buf_line_count(buf)
    local tool = n - #l + 1
    for i = tool + 1, n - 1 do
      assert.equals(tool + 1, vim.fn.foldclosed(i), "line " .. i .. " is in the fold: " .. vim.fn.getline(i))
    end
    assert.equals(-1, vim.fn.foldclosed(n))
    assert.equals(-1, vim.fn.foldclosed(tool))
    assert.equals({ "## User", "", "" }, vim.api.nvim_buf_get_lines(buf, tool - 4, tool - 1, false), "the chat's own User section is found above it")
    local first = require("vibing.chat").last_user_section(buf)
    assert.equals(tool - 2, first, "no quoted heading is taken for the chat's")
  end)

  it("folds under its summary, opens and closes with <CR> on the tool line, and again after the chat is reopened", function()
    local buf, path = helpers.new_chat()
    local out = {}
    for i = 1, 50 do
      out[i] = "line " .. i
    end
    local r = run_in(buf)
    feed(r, {
      { type = "tool_use", id = "t1", tool = "Bash", input = { command = "seq" }, detail = "seq" },
      allow("t1", "Bash", "seq"),
      { type = "tool_result", id = "t1", is_error = false, content = table.concat(out, "\n") },
      { type = "text", text = "Done." },
    })
    r.writer:close()
    local function find(pat)
      for i, l in ipairs(lines(buf)) do
        if l:find(pat, 1, true) then
          return i
        end
      end
    end
    local tool, summary = find("⏺ Bash: seq"), find("  ⎿ line 1 (+49 lines)")
    assert.equals(tool + 1, summary)
    assert.equals(summary, vim.fn.foldclosed(summary + 10), "the output is folded into the summary line")
    assert.equals(summary + 52, vim.fn.foldclosedend(summary))
    assert.equals(-1, vim.fn.foldclosed(find("Done.")), "the text after it is not")
    assert.matches("  ⎿ line 1 (+49 lines)", vim.fn.foldtextresult(summary), true)
    vim.api.nvim_win_set_cursor(0, { tool, 0 })
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<CR>", true, false, true), "xt", false)
    assert.equals(-1, vim.fn.foldclosed(summary + 10), "<CR> on the tool line opens it")
    assert.equals(0, #helpers.notes, "and sends nothing")
    vim.api.nvim_win_set_cursor(0, { summary + 20, 0 })
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<CR>", true, false, true), "xt", false)
    assert.equals(summary, vim.fn.foldclosed(summary + 10), "<CR> inside it closes it")
    vim.api.nvim_feedkeys("za", "xt", false)
    assert.equals(-1, vim.fn.foldclosed(summary + 10), "za opens it too")
    vim.api.nvim_win_set_cursor(0, { tool, 0 })
    vim.api.nvim_feedkeys("za", "xt", false)
    assert.equals(summary, vim.fn.foldclosed(summary + 10), "za on the tool line closes it (as the README says)")
    vim.api.nvim_feedkeys("za", "xt", false)
    assert.equals(-1, vim.fn.foldclosed(summary + 10), "and opens it")
    -- saved, closed, opened again
    vim.cmd("silent write")
    vim.cmd("bwipeout!")
    vim.cmd("VibingChat " .. vim.fn.fnameescape(path))
    assert.equals(summary, vim.fn.foldclosed(summary + 10), "folded again after reopening")
    assert.equals("  line 50", vim.api.nvim_buf_get_lines(0, summary + 50, summary + 51, false)[1], "the whole output is in the file")
  end)
end)

describe("an approval block and the person's cursor", function()
  local approval = require("vibing.ui.approval")
  local function request(id, cmd)
    return ev({ type = "approval_request", id = id, tool = "Bash", input = { command = cmd }, detail = cmd, level = "mutating",
      rule = "Bash", options = { "allow_once", "deny_once" }, timeout_s = 60 })
  end
  local function active_id(buf)
    local p = approval.active(buf)
    return p and p.req.id or nil
  end
  local turn = {
    ev({ type = "text", text = "Two commands." }), "sleep 0.3", request("a", "make"), "sleep 1.5",
    ev({ type = "approval_resolved", id = "a", decision = "allow_once", by = "user" }), request("b", "make test"), "sleep 1.5",
    ev({ type = "approval_resolved", id = "b", decision = "allow_once", by = "user" }), ev({ type = "result", is_error = false }),
  }

  it("takes the cursor that waits under the reply, and the next one after an answer", function()
    fake_run(vim.fn.getcwd(), { turn })
    local buf = helpers.new_chat()
    helpers.say(buf, "run both")
    assert.truthy(vim.wait(5000, function()
      return active_id(buf) == "a"
    end, 10), "the first block came")
    assert.truthy(approval.cursor_inside(buf), "the cursor waiting in the empty User section went to the block")
    vim.api.nvim_feedkeys("y", "xt", false)
    assert.truthy(vim.wait(5000, function()
      return active_id(buf) == "b"
    end, 10), "the second block came")
    assert.truthy(approval.cursor_inside(buf), "after answering the first, the cursor is on the second")
    assert.truthy(vim.wait(5000, function()
      return vim.b[buf].vibing_runs == 1
    end, 10), "the run ended")
  end)

  it("stays in the block when another call's result is written under it", function()
    -- the claude CLI asks for one call, then reports another call of the
    -- same message that it refused itself (an Edit whose text is gone)
    fake_run(vim.fn.getcwd(), {
      {
        ev({ type = "text", text = "Editing, then listing." }),
        ev({ type = "tool_use", id = "e", tool = "Edit", input = { file_path = "/p/foo.py", old_string = "zzz", new_string = "y" }, detail = "foo.py" }),
        ev({ type = "tool_use", id = "a", tool = "Bash", input = { command = "make" }, detail = "make" }),
        "sleep 0.3",
        request("a", "make"),
        "sleep 0.5",
        ev({ type = "tool_result", id = "e", is_error = true, content = "<tool_use_error>String to replace not found in file.\nString: zzz</tool_use_error>" }),
        "sleep 1.5",
        ev({ type = "approval_resolved", id = "a", decision = "allow_once", by = "user" }),
        ev({ type = "result", is_error = false }),
      },
    })
    local buf = helpers.new_chat()
    helpers.say(buf, "edit and list")
    assert.truthy(vim.wait(5000, function()
      return text(buf):find("not run: String to replace", 1, true) ~= nil
    end, 10), "the refused Edit was written")
    assert.equals("a", active_id(buf), "under the waiting block")
    assert.truthy(approval.cursor_inside(buf), "the cursor the block took is still in it")
    assert.truthy(approval.block_row(buf, "a") > vim.fn.search("not run: String to replace", "nw") - 1,
      "the refused Edit, made first, stands above the block of the call made after it")
    vim.api.nvim_feedkeys("y", "xt", false)
    assert.truthy(vim.wait(5000, function()
      return vim.b[buf].vibing_runs == 1
    end, 10), "the run ended")
  end)

  it("stays where the next message is being typed", function()
    fake_run(vim.fn.getcwd(), { turn })
    local buf = helpers.new_chat()
    helpers.say(buf, "run both")
    assert.truthy(vim.wait(5000, function()
      return text(buf):find("Two commands.", 1, true) ~= nil
    end, 10), "the reply started")
    vim.api.nvim_feedkeys("Ameanwhile\27", "xt", false)
    local row = vim.api.nvim_win_get_cursor(0)[1]
    assert.truthy(vim.wait(5000, function()
      return active_id(buf) == "a"
    end, 10), "the first block came")
    assert.falsy(approval.cursor_inside(buf), "the cursor is not taken from the message being typed")
    assert.equals("meanwhile", vim.api.nvim_buf_get_lines(buf, -2, -1, false)[1])
    assert.truthy(vim.api.nvim_win_get_cursor(0)[1] > row, "the cursor stays on the typed line (the block above pushed it down)")
    assert.truthy(vim.wait(6000, function()
      return vim.b[buf].vibing_runs == 1
    end, 10), "the run ended")
  end)
end)
