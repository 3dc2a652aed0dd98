local h = require("harness")
local helpers = require("helpers")
local describe, it, assert = h.describe, h.it, h.assert
local approval = require("vibing.ui.approval")
local writer = require("vibing.chat.writer")

local function req(id, tool, cmd)
  return {
    id = id, tool = tool or "Bash", input = { command = cmd or "npm test" }, detail = cmd or "npm test", level = "mutating", rule = "Bash",
    suggested_rule = "Bash(npm test:*)", timeout_s = 30,
    options = { "allow_once", "deny_once", "allow_for_session", "deny_for_session", "always_allow", "always_deny" },
  }
end

local function setup_buf()
  local buf = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_set_current_buf(buf)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "## Assistant", "" })
  local w = writer.new(buf, { delay_ms = 0 })
  w.open = true
  local sent = {}
  return buf, w, sent, function(m)
    table.insert(sent, m)
  end
end

local function text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
end

-- Put the cursor inside the pending block of buf.
local function in_block(buf)
  vim.api.nvim_set_current_buf(buf)
  local p = approval.active(buf)
  local row = vim.api.nvim_buf_get_extmark_by_id(buf, approval.ns, p.mark, {})[1]
  vim.api.nvim_win_set_cursor(0, { row + 2, 0 })
end

-- Type keys as a person would, then let scheduled work run.
local function press(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), "xt", false)
  vim.wait(20)
end

local function mapped(buf, lhs)
  for _, m in ipairs(vim.api.nvim_buf_get_keymap(buf, "n")) do
    if m.lhs == lhs then
      return true
    end
  end
  return false
end

describe("approval", function()
  it("shows a block, maps the keys, answers and collapses", function()
    local buf, w, sent, send = setup_buf()
    approval.request(buf, req("t1"), send, w)
    assert.matches("Approval needed: Bash (mutating)", text(buf), true)
    assert.truthy(mapped(buf, "y"), "y mapped while pending")
    assert.equals("t1", vim.b[buf].vibing_approval)
    in_block(buf)
    press("y")
    assert.equals({ { type = "approval_response", id = "t1", decision = "allow_once" } }, sent)
    press("n")
    assert.equals(1, #sent, "a second key does not answer twice")
    approval.resolved(buf, { id = "t1", decision = "allow_once", by = "user" })
    assert.equals({ "## Assistant", "⏺ Bash: npm test — allowed once by you" }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
    assert.falsy(mapped(buf, "y"), "y unmapped once nothing waits")
    assert.equals(nil, vim.b[buf].vibing_approval)
    assert.equals(0, approval.pending(buf))
  end)

  it("queues requests and says how many wait", function()
    local buf, w, sent, send = setup_buf()
    approval.request(buf, req("t1"), send, w)
    approval.request(buf, req("t2", "Bash", "make"), send, w)
    approval.request(buf, req("t3", "Bash", "make install"), send, w)
    assert.matches("· 2 more waiting", text(buf), true)
    assert.equals(1, select(2, text(buf):gsub("Approval needed", "")), "one block at a time")
    approval.resolved(buf, { id = "t1", decision = "deny_once", by = "user" })
    assert.matches("⏺ Bash: npm test — denied by you", text(buf), true)
    assert.matches("│ make\n", text(buf), true)
    assert.matches("· 1 more waiting", text(buf), true)
    in_block(buf)
    press("s")
    assert.equals({ type = "approval_response", id = "t2", decision = "allow_for_session" }, sent[1])
    approval.cancel_all(buf)
    local t = text(buf)
    assert.matches("⏺ Bash: make — denied: cancelled before an answer", t, true)
    assert.matches("⏺ Bash: make install — denied: cancelled before an answer", t, true)
    assert.falsy(t:find("Approval needed", 1, true))
    assert.equals(0, approval.pending(buf))
  end)

  it("asks for the rule of an always answer, prefilled, and sends an edited one", function()
    local buf, w, sent, send = setup_buf()
    local asked
    local real = vim.ui.input
    vim.ui.input = function(opts, cb)
      asked = opts.default
      cb("Bash(npm:*)")
    end
    approval.request(buf, req("t1"), send, w)
    approval.answer(buf, "always_allow")
    vim.ui.input = real
    assert.equals("Bash(npm test:*)", asked)
    assert.equals({ { type = "approval_response", id = "t1", decision = "always_allow", rule = "Bash(npm:*)" } }, sent)
    approval.cancel_all(buf)
  end)

  it("asks again for a rule the run refused, prefilled with what was typed", function()
    local buf, w, sent, send = setup_buf()
    local prompts, answers = {}, { "Bash(pyhton3 hello.py) Bash(echo ok)", "Bash(python3 hello.py) Bash(echo ok)" }
    local real = vim.ui.input
    vim.ui.input = function(opts, cb)
      table.insert(prompts, opts)
      cb(table.remove(answers, 1))
    end
    local r = req("t1", "Bash", "python3 hello.py && echo ok")
    r.suggested_rule = "Bash(python3 hello.py) Bash(echo ok)"
    approval.request(buf, r, send, w)
    approval.answer(buf, "always_allow")
    assert.equals("Bash(pyhton3 hello.py) Bash(echo ok)", sent[1].rule)
    local handled = approval.rule_rejected(buf, { type = "notice", id = "t1", decision = "always_allow",
      rule = sent[1].rule, message = "always_allow: Bash(pyhton3 hello.py) Bash(echo ok) do not allow Bash (python3 hello.py && echo ok); the approval is still waiting" })
    vim.ui.input = real
    assert.truthy(handled)
    assert.equals(2, #prompts)
    assert.equals("Bash(pyhton3 hello.py) Bash(echo ok)", prompts[2].default)
    assert.matches("do not allow", prompts[2].prompt, true)
    assert.equals({ type = "approval_response", id = "t1", decision = "always_allow" }, sent[2], "the suggestion goes without a rule field")
    assert.equals(1, approval.pending(buf), "still waiting for the run's answer")
    assert.falsy(approval.rule_rejected(buf, { id = "other", decision = "always_allow", rule = "x" }), "another request's notice")
    approval.cancel_all(buf)
  end)

  it("shows the agent's questions; digits and free text answer them, then the answers go out", function()
    local buf, w, sent, send = setup_buf()
    local r = req("q1", "AskUserQuestion")
    r.input = {}
    r.detail = "Which color? (+ more questions)"
    r.suggested_rule = nil
    r.options = { "allow_once", "deny_once" }
    r.preview = { kind = "questions", questions = {
      { question = "Which color?", header = "Color", options = { { label = "Red", description = "warm" }, { label = "Blue", description = "cool" } } },
      { question = "Which sizes?", multi_select = true, options = { { label = "S" }, { label = "M" }, { label = "L" } } },
      { question = "Anything else?", options = { { label = "No" }, { label = "Yes" } } },
    } }
    approval.request(buf, r, send, w)
    local t = text(buf)
    for _, want in ipairs({ "The agent asks you 3 questions", "│ ▶ [Color] Which color?", "│     1. Red — warm", "│     2. Blue — cool",
      "Which sizes?  (pick several)", "[1-9] answer with that option", "[n] decline" }) do
      assert.matches(want, t, true)
    end
    assert.falsy(t:find("suggested rule", 1, true), "no rule for a question")
    in_block(buf)
    press("2")
    assert.matches("│     → Blue", text(buf), true)
    assert.matches("│ ▶ Which sizes?", text(buf), true)
    in_block(buf)
    press("1")
    in_block(buf)
    press("3")
    assert.matches("1. [x] S", text(buf), true)
    local real_input, real_select = vim.ui.input, vim.ui.select
    local defaults = {}
    vim.ui.input = function(opts, cb)
      table.insert(defaults, opts.default)
      cb(#defaults == 1 and opts.default or "  only on Fridays ")
    end
    vim.ui.select = function(items, _, cb)
      assert.equals({ "No", "Yes", "Type my own answer…" }, items)
      cb("Type my own answer…")
    end
    in_block(buf)
    press("y") -- the multi-select question: the picked options, editable
    assert.equals(0, #sent, "one question still open")
    in_block(buf)
    press("y") -- a list, then free text
    vim.ui.input, vim.ui.select = real_input, real_select
    assert.equals("S, L", defaults[1])
    assert.equals({ { type = "approval_response", id = "q1", decision = "allow_once",
      answers = { ["Which color?"] = "Blue", ["Which sizes?"] = "S, L", ["Anything else?"] = "only on Fridays" } } }, sent)
    approval.resolved(buf, { id = "q1", decision = "allow_once", by = "user" })
    assert.matches("⏺ The agent asked: Which color? (+ more questions) — you answered Blue; S, L; only on Fridays", text(buf), true)
    assert.falsy(mapped(buf, "1"), "the digits are unmapped once nothing waits")
  end)

  it("keeps digits as counts outside a question block", function()
    local buf, w, sent, send = setup_buf()
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "a", "b", "c", "d", "e" })
    local r = req("q1", "AskUserQuestion")
    r.preview = { kind = "questions", questions = { { question = "Go?", options = { { label = "Yes" }, { label = "No" } } } } }
    approval.request(buf, r, send, w)
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    press("2j")
    assert.equals(3, vim.api.nvim_win_get_cursor(0)[1], "2j moved two lines")
    assert.equals({}, sent)
    in_block(buf)
    press("n")
    assert.equals("deny_once", sent[1].decision)
    approval.cancel_all(buf)
  end)

  it("brings a new block to the person's attention", function()
    local notes = {}
    local real_notify = vim.notify
    vim.notify = function(msg, level)
      table.insert(notes, { msg = msg, level = level })
    end
    -- a chat no window shows
    local hidden_buf, hw, _, hsend = setup_buf()
    vim.api.nvim_buf_set_name(hidden_buf, vim.fn.tempname() .. "/chat-hidden.md")
    local other = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_set_current_buf(other)
    approval.request(hidden_buf, req("h1"), hsend, hw)
    assert.equals(1, #notes)
    assert.equals(vim.log.levels.WARN, notes[1].level)
    assert.matches("chat-hidden.md waits for your approval: Bash npm test", notes[1].msg, true)
    -- a chat shown in another window while the person works elsewhere
    local buf, w, _, send = setup_buf()
    vim.api.nvim_buf_set_name(buf, vim.fn.tempname() .. "/chat-split.md")
    local lines = {}
    for i = 1, 100 do
      lines[i] = "line " .. i
    end
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.api.nvim_set_current_buf(other)
    vim.cmd("split")
    local chat_win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(chat_win, buf)
    vim.api.nvim_win_set_cursor(chat_win, { 1, 0 })
    vim.cmd("wincmd p")
    approval.request(buf, req("s1"), send, w)
    assert.equals(2, #notes)
    assert.matches("chat-split.md waits", notes[2].msg, true)
    local row = vim.api.nvim_buf_get_extmark_by_id(buf, approval.ns, approval.active(buf).mark, {})[1]
    assert.equals(row + 1, vim.api.nvim_win_get_cursor(chat_win)[1], "the chat window moved to the block")
    -- the window the person is in scrolls, the cursor stays out of the block
    vim.api.nvim_set_current_win(chat_win)
    vim.cmd("only")
    vim.api.nvim_win_set_height(0, 10)
    approval.cancel_all(buf)
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.fn.winrestview({ topline = 1, lnum = 1 })
    approval.request(buf, req("s2"), send, w)
    assert.equals(2, #notes, "no notification when the person is in the chat")
    local p = approval.active(buf)
    row = vim.api.nvim_buf_get_extmark_by_id(buf, approval.ns, p.mark, {})[1]
    local view = vim.fn.winsaveview()
    assert.truthy(view.topline + vim.api.nvim_win_get_height(0) - 1 >= row + p.nlines, "the block's end shows")
    assert.falsy(approval.cursor_inside(buf), "the cursor is not put into the block")
    vim.notify = real_notify
    approval.cancel_all(buf)
    approval.cancel_all(hidden_buf)
  end)

  it(":VibingApprovals lists the approvals of every chat and jumps to one; status() counts them", function()
    local a, wa, _, senda = setup_buf()
    vim.api.nvim_buf_set_name(a, vim.fn.tempname() .. "/chat-a.md")
    local b, wb, _, sendb = setup_buf()
    vim.api.nvim_buf_set_name(b, vim.fn.tempname() .. "/chat-b.md")
    local real_notify = vim.notify
    vim.notify = function() end
    approval.request(a, req("a1"), senda, wa)
    approval.request(b, req("b1", "Bash", "make"), sendb, wb)
    approval.request(b, req("b2", "Bash", "make install"), sendb, wb)
    vim.notify = real_notify
    package.loaded["vibing.chat.send"] = package.loaded["vibing.chat.send"] or require("vibing.chat.send")
    local text, n = require("vibing").status(vim.api.nvim_create_buf(false, true))
    assert.equals(3, n)
    assert.equals("vibing: 3 approvals waiting", text)
    local shown
    local real = vim.ui.select
    vim.ui.select = function(items, opts, cb)
      shown = vim.tbl_map(opts.format_item, items)
      cb(items[2])
    end
    local elsewhere = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_set_current_buf(elsewhere)
    vim.cmd("VibingApprovals")
    vim.ui.select = real
    assert.equals({ "chat-a.md — Bash npm test", "chat-b.md — Bash make", "chat-b.md — Bash make install (queued)" }, shown)
    assert.equals(b, vim.api.nvim_get_current_buf(), "jumped to the chat")
    assert.truthy(approval.cursor_inside(b), "the cursor is on the block")
    approval.cancel_all(a)
    approval.cancel_all(b)
    assert.equals(0, select(2, require("vibing").status()))
  end)

  it("leaves the request waiting when the rule input is dismissed", function()
    local buf, w, sent, send = setup_buf()
    local real = vim.ui.input
    vim.ui.input = function(_, cb)
      cb(nil)
    end
    approval.request(buf, req("t1"), send, w)
    approval.answer(buf, "always_deny")
    vim.ui.input = real
    assert.equals({}, sent)
    assert.equals(1, approval.pending(buf))
    approval.cancel_all(buf)
  end)

  it("shows a countdown beside the title", function()
    local buf, w, _, send = setup_buf()
    approval.request(buf, req("t1"), send, w)
    approval.tick(buf)
    local marks = vim.api.nvim_buf_get_extmarks(buf, approval.ns, 0, -1, { details = true })
    local vt
    for _, m in ipairs(marks) do
      vt = vt or (m[4].virt_text and m[4].virt_text[1][1])
    end
    assert.matches("⏳ 30 s left", vt, true)
    approval.cancel_all(buf)
  end)

  it("keeps each chat's queue apart", function()
    local a, wa, sa, senda = setup_buf()
    local b, wb, sb, sendb = setup_buf()
    approval.request(a, req("ta"), senda, wa)
    approval.request(b, req("tb"), sendb, wb)
    in_block(b)
    press("n")
    assert.equals({}, sa)
    assert.equals("tb", sb[1].id)
    assert.equals(1, approval.pending(a))
    approval.cancel_all(a)
    approval.cancel_all(b)
  end)

  it("leaves keys outside the block alone: yy stays a yank", function()
    local buf, w, sent, send = setup_buf()
    vim.api.nvim_buf_set_lines(buf, 0, 1, false, { "## Assistant line to yank" })
    approval.request(buf, req("t1"), send, w)
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.fn.setreg('"', "")
    press("yy")
    assert.equals({}, sent, "no answer from outside the block")
    assert.equals("## Assistant line to yank\n", vim.fn.getreg('"'))
    assert.equals(1, approval.pending(buf))
    in_block(buf)
    press("y")
    assert.equals("allow_once", sent[1].decision)
    approval.cancel_all(buf)
  end)

  it("runs a person's own buffer-local map outside the block and restores it afterwards", function()
    local buf, w, sent, send = setup_buf()
    local mine = 0
    vim.keymap.set("n", "n", function()
      mine = mine + 1
    end, { buffer = buf, desc = "my own n" })
    approval.request(buf, req("t1"), send, w)
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    press("n")
    assert.equals(1, mine, "my map ran outside the block")
    assert.equals({}, sent)
    in_block(buf)
    press("n")
    assert.equals("deny_once", sent[1].decision)
    approval.resolved(buf, { id = "t1", decision = "deny_once", by = "user" })
    local m = vim.fn.maparg("n", "n", false, true)
    assert.equals("my own n", m.desc, "my map is back")
    press("n")
    assert.equals(2, mine)
  end)

  it("uses the keys of keymaps.approval", function()
    helpers.reset()
    require("vibing").setup({ keymaps = { approval = { allow_once = "<leader>y", deny_once = false } } })
    local buf, w, sent, send = setup_buf()
    approval.request(buf, req("t1"), send, w)
    assert.matches("[<leader>y] allow once", text(buf), true)
    assert.falsy(mapped(buf, "n"), "a disabled key is not mapped")
    approval.cancel_all(buf)
    helpers.reset()
  end)

  it("r denies with the reason the person types", function()
    local buf, w, sent, send = setup_buf()
    local real = vim.ui.input
    vim.ui.input = function(_, cb)
      cb("  use make instead ")
    end
    approval.request(buf, req("t1"), send, w)
    in_block(buf)
    press("r")
    vim.ui.input = real
    assert.equals({ { type = "approval_response", id = "t1", decision = "deny_once", reason = "use make instead" } }, sent)
    approval.cancel_all(buf)
  end)

  it("d and the other answer keys act at once: buffer-local nowait maps, also beside a longer dd map", function()
    local buf, w, _, send = setup_buf()
    vim.keymap.set("n", "dd", "<Nop>", { buffer = buf })
    approval.request(buf, req("t1"), send, w)
    for _, key in ipairs({ "y", "n", "s", "S", "a", "A", "d", "r" }) do
      local m = vim.fn.maparg(key, "n", false, true)
      assert.equals(1, m.buffer, key .. " is buffer-local")
      assert.equals(1, m.nowait, key .. " does not wait for a longer map")
    end
    approval.cancel_all(buf)
    assert.truthy(mapped(buf, "dd"), "the person's dd map stays")
  end)

  it("the reason typed with r shows in the call's record line", function()
    local buf, w, _, send = setup_buf()
    local real = vim.ui.input
    vim.ui.input = function(_, cb)
      cb("use make instead")
    end
    approval.request(buf, req("t1"), send, w)
    in_block(buf)
    press("r")
    vim.ui.input = real
    approval.resolved(buf, { id = "t1", decision = "deny_once", by = "user" })
    assert.equals({ "## Assistant", "⏺ Bash: npm test — denied by you: use make instead" }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  end)

  it("d opens the change side by side in diff mode; approving there sends the edit", function()
    local buf, w, sent, send = setup_buf()
    local path = vim.fn.tempname() .. ".txt"
    vim.fn.writefile({ "one", "two" }, path)
    local r = req("t1", "Write")
    r.input = { file_path = path, content = "one\nTWO\n" }
    r.preview = { kind = "diff", path = path, unified = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n", added = 1, removed = 1 }
    approval.request(buf, r, send, w)
    local tabs = #vim.api.nvim_list_tabpages()
    in_block(buf)
    press("d")
    assert.equals(tabs + 1, #vim.api.nvim_list_tabpages(), "a new tab")
    local wins = vim.api.nvim_tabpage_list_wins(0)
    assert.equals(2, #wins)
    for _, win in ipairs(wins) do
      assert.truthy(vim.wo[win].diff, "window in diff mode")
    end
    local left = vim.api.nvim_win_get_buf(wins[1])
    assert.equals({ "one", "two" }, vim.api.nvim_buf_get_lines(left, 0, -1, false))
    assert.falsy(vim.bo[left].modifiable, "the current side is read-only")
    local right = vim.api.nvim_get_current_buf()
    assert.equals({ "one", "TWO" }, vim.api.nvim_buf_get_lines(right, 0, -1, false))
    vim.api.nvim_buf_set_lines(right, 1, 2, false, { "edited by me" })
    press("y")
    assert.equals(tabs, #vim.api.nvim_list_tabpages(), "the review tab closed")
    assert.equals({ { type = "approval_response", id = "t1", decision = "allow_once",
      updated_input = { content = "one\nedited by me\n" } } }, sent)
    approval.cancel_all(buf)
  end)

  it("d on a Bash call opens an editable command buffer", function()
    local buf, w, sent, send = setup_buf()
    local r = req("t1", "Bash", "rm -rf build")
    r.preview = { kind = "command", command = "rm -rf build" }
    approval.request(buf, r, send, w)
    in_block(buf)
    press("d")
    assert.equals(1, #vim.api.nvim_tabpage_list_wins(0))
    assert.equals("sh", vim.bo.filetype)
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { "rm -rf build/tmp" })
    press("y")
    assert.equals({ command = "rm -rf build/tmp" }, sent[1].updated_input)
    approval.cancel_all(buf)
  end)

  it("the Bash review says edit the command, and an edited command that does not parse stays open to fix", function()
    local buf, w, sent, send = setup_buf()
    local r = req("t1", "Bash", "echo hi")
    r.preview = { kind = "command", command = "echo hi" }
    approval.request(buf, r, send, w)
    local tabs = #vim.api.nvim_list_tabpages()
    in_block(buf)
    press("d")
    assert.matches("review: edit the command,", helpers.notified(), true)
    assert.falsy(helpers.notified():find("right side", 1, true), "no file talk for a command")
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { [[echo "hi]] })
    press("y")
    assert.equals({}, sent, "nothing sent")
    assert.equals(tabs + 1, #vim.api.nvim_list_tabpages(), "the review stays open")
    assert.matches("does not parse as shell", helpers.last().msg, true)
    assert.matches("fix the command", helpers.last().msg, true)
    assert.equals("t1", vim.b[buf].vibing_approval, "the approval still waits")
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { [[echo "hi"]] })
    press("y")
    assert.equals(tabs, #vim.api.nvim_list_tabpages(), "the review tab closed")
    assert.equals({ command = [[echo "hi"]] }, sent[1].updated_input)
    approval.cancel_all(buf)
  end)

  it("approving an unedited review sends no updated_input", function()
    local buf, w, sent, send = setup_buf()
    local r = req("t1", "Bash", "ls")
    r.preview = { kind = "command", command = "ls" }
    approval.request(buf, r, send, w)
    in_block(buf)
    press("d")
    press("y")
    assert.equals({ { type = "approval_response", id = "t1", decision = "allow_once" } }, sent)
    approval.cancel_all(buf)
  end)

  it("renders a 2,000-line preview without stalling", function()
    local buf, w, _, send = setup_buf()
    local body = { "--- a/big.txt", "+++ b/big.txt", "@@ -1,0 +1,2000 @@" }
    for i = 1, 2000 do
      table.insert(body, "+line " .. i)
    end
    local r = req("t1", "Write")
    r.preview = { kind = "diff", path = "big.txt", unified = table.concat(body, "\n") .. "\n", added = 2000 }
    local t0 = vim.loop.hrtime()
    approval.request(buf, r, send, w)
    local ms = (vim.loop.hrtime() - t0) / 1e6
    print(("    a 2,000-line diff preview rendered in %.2f ms"):format(ms))
    assert.matches("… 1963 more lines — press d", text(buf), true)
    approval.cancel_all(buf)
  end)

  it("links its highlight groups by default", function()
    approval.setup_highlights()
    vim.api.nvim_set_hl(0, "VibingDenied", { link = "Error" })
    approval.setup_highlights()
    assert.equals("Error", vim.fn.synIDattr(vim.fn.synIDtrans(vim.fn.hlID("VibingDenied")), "name"))
  end)
end)

describe("writer", function()
  it("coalesces chunks into one update and continues the open line", function()
    local buf = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "## Assistant", "" })
    local w = writer.new(buf, { delay_ms = 1000 })
    w.open = true
    local changes = 0
    vim.api.nvim_buf_attach(buf, false, { on_lines = function() changes = changes + 1 end })
    for _, c in ipairs({ "Hel", "lo", " wor", "ld\nsecond", " line" }) do
      w:text(c)
    end
    assert.equals(0, changes, "nothing before the flush")
    w:flush()
    assert.equals(1, changes, "one buffer update for five chunks")
    assert.equals({ "## Assistant", "Hello world", "second line" }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
    w:lines({ "⏺ tool" })
    w:text("after")
    w:flush()
    -- text after whole lines is a paragraph of its own
    assert.equals({ "## Assistant", "Hello world", "second line", "⏺ tool", "", "after" }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  end)
end)

describe("send", function()
  it("builds the run command with grants and the backend", function()
    helpers.reset()
    require("vibing").setup({ bin = "/x/vibing-agent", backend = "demo" })
    local buf = vim.api.nvim_create_buf(true, false)
    vim.b[buf].vibing_session_grants = { { decision = "allow", rule = "Bash(npm:*)" }, { decision = "deny", rule = "WebFetch" } }
    assert.equals({ "/x/vibing-agent", "run", "--chat", "/c.md", "--config", "/o.json", "--session-allow", "Bash(npm:*)",
      "--session-deny", "WebFetch", "--backend", "demo" }, require("vibing.chat.send").command(buf, "/c.md", "/o.json"))
    require("vibing.chat.send").clear_grants(buf)
    assert.equals({}, require("vibing.chat.send").grants(buf))
  end)
  it("reports idle and unknown chats as an empty status", function()
    assert.equals("", require("vibing").status(0))
  end)
end)

describe("review.edit_between", function()
  local review = require("vibing.ui.review")
  it("turns an edited file into the smallest unique Edit", function()
    local cur = { "a", "x", "b", "x", "c" }
    assert.equals({ "b", "B" }, { review.edit_between(cur, { "a", "x", "B", "x", "c" }) })
    -- "x" alone is not unique: the edit grows by a line on each side
    assert.equals({ "a\nx\nb", "a\ny\nb" }, { review.edit_between(cur, { "a", "y", "b", "x", "c" }) })
    assert.equals({ "c", "c\nd" }, { review.edit_between(cur, { "a", "x", "b", "x", "c", "d" }) })
    assert.equals(nil, review.edit_between(cur, cur))
  end)
end)
