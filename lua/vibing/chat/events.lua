---@mod vibing.chat.events What each `vibing-agent run` event does to the chat.
---The reply's text, compact tool lines, approval blocks, the session id and
---"always" rules written to the frontmatter, session grants remembered. One
---handler per event type (docs/protocol.md); each gets the run and the event.
local M = {}

local approval = require("vibing.ui.approval")
local grants = require("vibing.permissions.grants")
local log = require("vibing.log")
local render = require("vibing.chat.render")
local store = require("vibing.chat.store")

---@type table<string, fun(r: vibing.Run, ev: table)>
local handlers = {}
M.handlers = handlers

function handlers.session(r, ev)
  if r.live and type(ev.resumed) == "boolean" then
    r.live.resumed = ev.resumed -- what :VibingPermissions describes while the process lives
  end
  local id = render.field(ev, "session_id")
  if type(id) ~= "string" or id == "" or id == r.session then
    return
  end
  r.session = id
  local _, err = store.edit(r.buf, { op = "set_session", value = id })
  if err then
    log.warn("could not write the session id into the chat: " .. err)
  end
end

function handlers.text(r, ev)
  local t = render.field(ev, "text")
  if type(t) == "string" then
    r.writer:text(t)
  end
end

-- Tool lines carry an extmark, so a result lands under its own call
-- however many lines came after it.
local tool_ns = vim.api.nvim_create_namespace("vibing_tools")

local function mark(r, t, row)
  if row and vim.api.nvim_buf_is_loaded(r.buf) then
    t.mark = vim.api.nvim_buf_set_extmark(r.buf, tool_ns, row, 0, { id = t.mark })
  end
end

function handlers.tool_use(r, ev)
  r.seq = (r.seq or 0) + 1
  r.tools[ev.id] = { tool = ev.tool, input = render.field(ev, "input") or {}, detail = render.field(ev, "detail"), seq = r.seq }
end

-- The highest row of a call the agent made after t that already has a
-- line or a waiting approval block: a line written late for t (the CLI
-- reports the calls it refused itself only with the message's results)
-- goes above it, in the order the agent made the calls.
local function later_row(r, t)
  local row
  for id, o in pairs(r.tools) do
    if t.seq and o.seq and o.seq > t.seq then
      local at
      if o.mark then
        at = vim.api.nvim_buf_get_extmark_by_id(r.buf, tool_ns, o.mark, {})[1]
      else
        at = approval.block_row(r.buf, id)
      end
      if at and (not row or at < row) then
        row = at
      end
    end
  end
  return row
end

-- Write a call's own line in its place among the calls (see later_row).
local function place(r, t, line, hl)
  local before = later_row(r, t)
  if before and before > 0 then
    return r.writer:insert(before - 1, { line }, hl)
  end
  return r.writer:lines({ line }, hl)
end

function handlers.decision(r, ev)
  local t = r.tools[ev.id]
  if not t then
    r.seq = (r.seq or 0) + 1
    t = { tool = ev.tool, input = {}, seq = r.seq }
    r.tools[ev.id] = t
  end
  t.decided = true
  if ev.decision == "ask" then
    return -- the approval block shows it
  end
  t.ran = ev.decision == "allow"
  local detail = render.detail(ev)
  if detail == "" then
    detail = render.detail(t)
  end
  local line, hl = render.tool_line(t.tool or ev.tool, detail, ev)
  mark(r, t, r.writer:lines({ line }, hl))
end

function handlers.approval_request(r, ev)
  local t = r.tools[ev.id]
  if t and type(render.field(ev, "input")) ~= "table" then
    ev.input = t.input
  end
  if t and not render.field(ev, "detail") then
    ev.detail = t.detail
  end
  approval.request(r.buf, ev, function(msg)
    r.send_json(msg)
  end, r.writer)
end

function handlers.approval_resolved(r, ev)
  local t = r.tools[ev.id]
  local d = render.field(ev, "decision") or ""
  if t then
    t.ran = d:match("allow") ~= nil and (render.field(ev, "by") or "user") == "user"
  end
  local row = approval.resolved(r.buf, ev, r.rules[ev.id])
  if t then
    mark(r, t, row)
  end
end

function handlers.tool_result(r, ev)
  local t = r.tools[ev.id]
  if not t then
    return
  end
  local is_error = render.field(ev, "is_error") == true
  local content = render.field(ev, "content")
  if not t.decided then
    -- No decision came: the CLI refused the call itself, before any
    -- permission check (invalid input, an unknown tool, an Edit whose text
    -- is not in the file). Its line says so, with the CLI's error.
    t.decided = true
    if is_error then
      local line, hl = render.rejected_line(t.tool or "?", render.detail(t), content)
      local row = place(r, t, line, hl)
      mark(r, t, row)
      local lines = render.result_lines(content, true)
      if lines and #lines > 1 then
        r.writer:insert(row, lines, { "VibingToolResult" })
      end
      return
    end
    t.ran = true
    mark(r, t, place(r, t, ("⏺ %s: %s — ran without a permission check"):format(t.tool or "?", render.oneline(render.detail(t), 80)), "VibingNotice"))
  end
  if not t.ran then
    return -- a refused call: its line already says why
  end
  local lines = render.result_lines(content, is_error)
  if lines then
    local hl = { "VibingToolResult" }
    local row = t.mark and vim.api.nvim_buf_get_extmark_by_id(r.buf, tool_ns, t.mark, {})[1]
    if row then
      r.writer:insert(row, lines, hl)
    else
      r.writer:lines(lines, hl)
    end
  end
  if not is_error or t.tool == "Bash" then
    require("vibing.chat.reload").after(t.tool, t.input)
  end
end

function handlers.files_changed(r, ev)
  require("vibing.chat.changes").show(r, ev)
end

function handlers.session_grant(r, ev)
  if type(ev.rule) == "string" and ev.rule ~= "" then
    grants.add(r.buf, ev.decision == "deny" and "deny" or "allow", ev.rule)
  end
end

function handlers.rule_added(r, ev)
  local list = ev.list == "deny" and "deny" or "allow"
  local active = approval.active(r.buf)
  local res, err = store.edit(r.buf, { op = "add", list = list, rules = { ev.rule } })
  if not res then
    log.error(("could not add %s to permissions_%s: %s"):format(ev.rule, list, err))
    return
  end
  if active then
    -- "added" is shown only once it is on disk; an always answer may add a set
    local prev = r.rules[active.req.id]
    r.rules[active.req.id] = prev and (prev .. " " .. ev.rule) or ev.rule
  end
end

function handlers.notice(r, ev)
  local msg = render.field(ev, "message") or ""
  if render.field(ev, "id") and render.field(ev, "rule") then
    approval.rule_rejected(r.buf, ev) -- a rule that does not do: asked again
  end
  r.writer:lines({ "ℹ " .. render.oneline(msg, 400) }, "VibingNotice")
  log.warn(msg)
end

-- The CLI's cost_usd adds up over the turns of one process: the turn's own
-- cost is the part since the process's previous result.
local function turn_cost(r, ev)
  local total = render.field(ev, "cost_usd")
  if type(total) ~= "number" or not r.live then
    return ev
  end
  local prev = r.live.cost_seen or 0
  r.live.cost_seen = total
  return { cost_usd = total >= prev and total - prev or total, duration_ms = render.field(ev, "duration_ms") }
end

function handlers.result(r, ev)
  r.ended = "result"
  r.final = render.field(ev, "final") == true
  handlers.session(r, ev)
  if render.field(ev, "cancelled") == true then
    r.cancelled = true
    r.writer:lines({ "⏹ Cancelled." }, "VibingNotice")
    return
  end
  if render.field(ev, "is_error") == true and not r.cancelled then
    local msg = "the agent ended the turn with an error"
    local tail = render.oneline(vim.trim(r.writer:tail()), 200)
    r.writer:lines({ render.error_line(msg .. (tail ~= "" and (": " .. tail) or "")) }, "VibingError")
    log.error(msg)
  end
  local cost = render.cost_line(turn_cost(r, ev))
  if cost then
    r.writer:lines({ cost }, "VibingCost")
  end
end

function handlers.error(r, ev)
  r.ended = "error"
  local msg = render.field(ev, "message") or "unknown error"
  if r.cancelled and msg:match("^run cancelled") then
    r.writer:lines({ "⏹ Cancelled." }, "VibingNotice")
    return
  end
  if not r.replied then
    r.failure = msg -- nothing answered: the message is kept (vibing.chat.run)
    return
  end
  r.writer:lines({ render.error_line(msg) }, "VibingError")
  log.error(msg)
end

---The turn is over: its tool lines need no marks any more.
---@param r vibing.Run
function M.done(r)
  if vim.api.nvim_buf_is_valid(r.buf) then
    vim.api.nvim_buf_clear_namespace(r.buf, tool_ns, 0, -1)
  end
end

-- Events that mean the agent answered: a run that ends with an error before
-- any of them leaves the message to be sent again (vibing.chat.run).
local replies = { text = true, tool_use = true, decision = true, approval_request = true, tool_result = true, result = true }

-- vim.json (lua-cjson) is many times faster than the Vimscript decoder; both
-- turn null into vim.NIL.
local decode = (vim.json and vim.json.decode) or vim.fn.json_decode

---Handle one stdout line of the run.
---@param r vibing.Run
---@param line string
function M.handle(r, line)
  local ok, ev = pcall(decode, line)
  if not ok or type(ev) ~= "table" then
    r.writer:lines({ render.error_line("vibing-agent wrote a line that is not JSON: " .. render.oneline(line, 80)) }, "VibingError")
    return
  end
  if replies[ev.type] then
    r.replied = true
  end
  local h = handlers[ev.type]
  if h then
    h(r, ev)
  end
end

return M
