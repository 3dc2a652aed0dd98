local h = require("harness")
local helpers = require("helpers")
local describe, it, assert = h.describe, h.it, h.assert
local approval = require("vibing.ui.approval")
local writer = require("vibing.chat.writer")

local function req(id, tool, cmd)
  return {
    id = id, tool = tool or "Bash", input = { command = cmd or "npm test" }, level = "mutating", rule = "Bash",
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
    vim.api.nvim_feedkeys("y", "xt", false)
    assert.equals({ { type = "approval_response", id = "t1", decision = "allow_once" } }, sent)
    vim.api.nvim_feedkeys("n", "xt", false)
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
    assert.matches("command: make\n", text(buf), true)
    assert.matches("· 1 more waiting", text(buf), true)
    vim.api.nvim_feedkeys("s", "xt", false)
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
    vim.api.nvim_set_current_buf(b)
    vim.api.nvim_feedkeys("n", "xt", false)
    assert.equals({}, sa)
    assert.equals("tb", sb[1].id)
    assert.equals(1, approval.pending(a))
    approval.cancel_all(a)
    approval.cancel_all(b)
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
    assert.equals({ "## Assistant", "Hello world", "second line", "⏺ tool", "after" }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
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
