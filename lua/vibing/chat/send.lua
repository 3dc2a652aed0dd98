---@mod vibing.chat.send Sending a User section: one `vibing-agent run` process per message.
---The reply streams under `## Assistant`; tool calls become compact lines;
---approvals are asked in the buffer (vibing.ui.approval); the session id,
---"always" rules and session grants are kept in the chat. Several chats may
---run at once, each with its own process.
local M = {}

local approval = require("vibing.ui.approval")
local fm = require("vibing.chat.frontmatter")
local log = require("vibing.log")
local process = require("vibing.process")
local render = require("vibing.chat.render")
local writer_mod = require("vibing.chat.writer")

local status_ns = vim.api.nvim_create_namespace("vibing_status")
local spinner = { "⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏" }

---@class vibing.Run
---@field buf integer
---@field proc vibing.Process|nil the `vibing-agent run` process
---@field writer vibing.Writer
---@field header integer extmark on the `## Assistant` line (spinner)
---@field tools table<string, table> tool_use id -> { tool, input, ran }
---@field out vibing.process.Lines stdout not handled yet
---@field draining boolean a drain is scheduled or running
---@field drain_timer any libuv timer that starts the next drain slice
---@field exit_code integer|nil set once the process is gone
---@field stderr string[] last stderr lines
---@field ended string|nil "result" | "error" once the run said how it ended
---@field cancelled boolean
---@field session string|nil session id written to the chat
---@field rules table<string, string> tool_use id -> rule added by an always answer
---@field timer any spinner / countdown timer
---@field frame integer

---@type table<integer, vibing.Run>
local runs = {}

local function options()
  return require("vibing").options()
end

---Whether a chat has a run in progress.
---@param bufnr integer
---@return boolean
function M.running(bufnr)
  return runs[bufnr] ~= nil
end

---A short status for statuslines: "" when idle.
---@param bufnr integer|nil
---@return string
function M.status(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local r = runs[bufnr]
  if not r then
    return ""
  end
  if r.cancelled then
    return "vibing: cancelling"
  end
  local n = approval.pending(bufnr)
  if n > 0 then
    return ("vibing: waiting for your approval%s"):format(n > 1 and (" (%d)"):format(n) or "")
  end
  return "vibing: running"
end

---The text of the last User section (blank lines around it dropped).
---@param bufnr integer
---@return string|nil
function M.prompt(bufnr)
  local first, last = require("vibing.chat").last_user_section(bufnr)
  if not first then
    return nil
  end
  local text = vim.trim(table.concat(vim.api.nvim_buf_get_lines(bufnr, first - 1, last, false), "\n"))
  return text ~= "" and text or nil
end

---Session grants remembered for this chat: { { decision = "allow"|"deny", rule = ... } }.
---@param bufnr integer
---@return table[]
function M.grants(bufnr)
  local g = vim.b[bufnr].vibing_session_grants
  return type(g) == "table" and g or {}
end

---Forget the chat's session grants (a new session starts).
---@param bufnr integer
function M.clear_grants(bufnr)
  vim.b[bufnr].vibing_session_grants = nil
end

local function add_grant(bufnr, decision, rule)
  local g = M.grants(bufnr)
  for _, x in ipairs(g) do
    if x.decision == decision and x.rule == rule then
      return
    end
  end
  table.insert(g, { decision = decision, rule = rule })
  vim.b[bufnr].vibing_session_grants = g
end

---The command line of a run for the chat at path.
---@param bufnr integer
---@param path string
---@param config_path string
---@return string[]
function M.command(bufnr, path, config_path)
  local cmd = { require("vibing.rpc").bin(), "run", "--chat", path, "--config", config_path }
  for _, g in ipairs(M.grants(bufnr)) do
    table.insert(cmd, g.decision == "deny" and "--session-deny" or "--session-allow")
    table.insert(cmd, g.rule)
  end
  local backend = options().backend
  if backend and backend ~= "claude" then
    vim.list_extend(cmd, { "--backend", backend })
  end
  return cmd
end

local function save(bufnr)
  return (require("vibing.chat.store").save(bufnr))
end

-- Apply one frontmatter edit through the rpc host, then save the chat.
local function edit(bufnr, params)
  local lines, closed = fm.lines(bufnr)
  if not closed then
    return nil, "the chat's frontmatter does not close with ---"
  end
  params.lines = lines
  local res, err = require("vibing.rpc").request("edit", params)
  if not res then
    return nil, err
  end
  if not res.ok then
    return nil, res.error
  end
  if res.changed then
    fm.replace(bufnr, res.lines)
    local ok, why = require("vibing.chat.store").save(bufnr)
    if not ok then
      return nil, why
    end
  end
  return res
end

local function send_json(r, msg)
  if not r.proc then
    return false
  end
  return r.proc:write(vim.fn.json_encode(msg) .. "\n")
end

local function set_status(r, text)
  if not vim.api.nvim_buf_is_valid(r.buf) then
    return
  end
  local pos = vim.api.nvim_buf_get_extmark_by_id(r.buf, status_ns, r.header, {})
  if not pos[1] then
    return
  end
  local opts = { id = r.header }
  if text then
    opts.virt_text = { { "  " .. text, "VibingStatus" } }
    opts.virt_text_pos = "eol"
  end
  vim.api.nvim_buf_set_extmark(r.buf, status_ns, pos[1], 0, opts)
end

local function tick(r)
  r.frame = r.frame % #spinner + 1
  local keys = options().keymaps
  local cancel = keys.cancel and (" · " .. keys.cancel .. " cancels") or ""
  local what = M.status(r.buf):gsub("^vibing: ", "")
  set_status(r, spinner[r.frame] .. " " .. what .. cancel)
  approval.tick(r.buf)
end

-- Event handlers ------------------------------------------------------------

local handlers = {}

function handlers.session(r, ev)
  local id = render.field(ev, "session_id")
  if type(id) ~= "string" or id == "" or id == r.session then
    return
  end
  r.session = id
  local _, err = edit(r.buf, { op = "set_session", value = id })
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

function handlers.tool_use(r, ev)
  r.tools[ev.id] = { tool = ev.tool, input = render.field(ev, "input") or {}, detail = render.field(ev, "detail") }
end

function handlers.decision(r, ev)
  local t = r.tools[ev.id] or { tool = ev.tool, input = {} }
  r.tools[ev.id] = t
  if ev.decision == "ask" then
    return -- the approval block shows it
  end
  t.ran = ev.decision == "allow"
  local detail = render.detail(ev)
  if detail == "" then
    detail = render.detail(t)
  end
  local line, hl = render.tool_line(t.tool or ev.tool, detail, ev)
  r.writer:lines({ line }, hl)
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
    send_json(r, msg)
  end, r.writer)
end

function handlers.approval_resolved(r, ev)
  local t = r.tools[ev.id]
  local d = render.field(ev, "decision") or ""
  if t then
    t.ran = d:match("allow") ~= nil and (render.field(ev, "by") or "user") == "user"
  end
  approval.resolved(r.buf, ev, r.rules[ev.id])
end

function handlers.tool_result(r, ev)
  local t = r.tools[ev.id]
  if not t or not t.ran then
    return -- a refused call: its line already says why
  end
  local line = render.result_line(render.field(ev, "content"), render.field(ev, "is_error") == true)
  if line then
    r.writer:lines({ line }, "VibingToolResult")
  end
end

function handlers.session_grant(r, ev)
  if type(ev.rule) == "string" and ev.rule ~= "" then
    add_grant(r.buf, ev.decision == "deny" and "deny" or "allow", ev.rule)
  end
end

function handlers.rule_added(r, ev)
  local list = ev.list == "deny" and "deny" or "allow"
  local active = approval.active(r.buf)
  local res, err = edit(r.buf, { op = "add", list = list, rules = { ev.rule } })
  if not res then
    log.error(("could not add %s to permissions_%s: %s"):format(ev.rule, list, err))
    return
  end
  if active then
    r.rules[active.req.id] = ev.rule -- "added" is shown only once it is on disk
  end
end

function handlers.notice(r, ev)
  local msg = render.field(ev, "message") or ""
  r.writer:lines({ "ℹ " .. render.oneline(msg, 400) }, "VibingNotice")
  log.warn(msg)
end

function handlers.result(r, ev)
  r.ended = "result"
  handlers.session(r, ev)
  if render.field(ev, "is_error") == true and not r.cancelled then
    local msg = "the agent ended the turn with an error"
    local tail = render.oneline(vim.trim(r.writer:tail()), 200)
    r.writer:lines({ render.error_line(msg .. (tail ~= "" and (": " .. tail) or "")) }, "VibingError")
    log.error(msg)
  end
end

function handlers.error(r, ev)
  r.ended = "error"
  local msg = render.field(ev, "message") or "unknown error"
  if r.cancelled and msg:match("^run cancelled") then
    r.writer:lines({ "⏹ Cancelled." }, "VibingNotice")
    return
  end
  r.writer:lines({ render.error_line(msg) }, "VibingError")
  log.error(msg)
end

-- vim.json (lua-cjson) is many times faster than the Vimscript decoder; both
-- turn null into vim.NIL.
local decode = (vim.json and vim.json.decode) or vim.fn.json_decode

local function handle(r, line)
  local ok, ev = pcall(decode, line)
  if not ok or type(ev) ~= "table" then
    r.writer:lines({ render.error_line("vibing-agent wrote a line that is not JSON: " .. render.oneline(line, 80)) }, "VibingError")
    return
  end
  local h = handlers[ev.type]
  if h then
    h(r, ev)
  end
end

-- Output is handled in slices of at most SLICE_NS, with the editor's other
-- work (keys, timers, redraws) in between, so a burst of output never
-- freezes it. The next slice starts from a 0 ms libuv timer, so libuv runs
-- (timers, input, pipe reads) between slices.
local SLICE_NS = 4e6
local finish

local function drain(r)
  if not vim.api.nvim_buf_is_valid(r.buf) then
    -- The chat is gone: nobody can answer or read this run any more.
    r.out:clear()
    r.draining = false
    if r.proc then
      r.proc:stop()
    end
    if r.exit_code then
      finish(r, r.exit_code)
    end
    return
  end
  local t0 = vim.loop.hrtime()
  local out = r.out
  while true do
    local line = out:next()
    if not line then
      break
    end
    if line ~= "" then
      handle(r, line)
    end
    if vim.loop.hrtime() - t0 > SLICE_NS then
      if out:ready() then
        r.drain_timer:start(0, 0, r.drain_cb)
        return
      end
      break
    end
  end
  r.draining = false
  if r.exit_code then
    finish(r, r.exit_code)
  end
end

-- Runs in a fast libuv callback: no editor API here, only queueing.
local function on_stdout(r, chunk)
  r.out:push(chunk)
  if not r.draining then
    r.draining = true
    r.drain_timer:start(0, 0, r.drain_cb)
  end
end

-- Also a fast callback: keep the last few stderr lines for error messages.
local function on_stderr(r, chunk)
  local text = r.stderr_partial .. chunk
  local from = 1
  while true do
    local nl = text:find("\n", from, true)
    if not nl then
      break
    end
    local l = text:sub(from, nl - 1)
    from = nl + 1
    if l ~= "" then
      table.insert(r.stderr, l)
      if #r.stderr > 5 then
        table.remove(r.stderr, 1)
      end
    end
  end
  r.stderr_partial = text:sub(from, from + 4095)
end

-- Run lifecycle ----------------------------------------------------------------

local function stop_timer(r)
  if r.timer then
    r.timer:stop()
    r.timer:close()
    r.timer = nil
  end
  if r.kill_timer then
    r.kill_timer:stop()
    r.kill_timer:close()
    r.kill_timer = nil
  end
  if r.drain_timer and not r.drain_timer:is_closing() then
    r.drain_timer:close()
  end
end

function finish(r, code)
  if runs[r.buf] ~= r then
    return
  end
  r.exit_code = code
  if r.stderr_partial ~= "" then
    table.insert(r.stderr, r.stderr_partial)
    if #r.stderr > 5 then
      table.remove(r.stderr, 1)
    end
    r.stderr_partial = ""
  end
  r.out:finish()
  if r.out:ready() or r.draining then
    -- The drain finishes the run once every line is handled.
    if not r.draining then
      r.draining = true
      drain(r)
    end
    return
  end
  stop_timer(r)
  local buf = r.buf
  if not vim.api.nvim_buf_is_valid(buf) then
    runs[buf] = nil
    r.writer:close()
    return
  end
  r.writer:flush()
  approval.cancel_all(buf)
  if not r.ended then
    local why = table.concat(r.stderr, " | ")
    local msg = ("vibing-agent run stopped unexpectedly (exit %s)%s"):format(
      tostring(code),
      why ~= "" and (": " .. why) or ""
    )
    r.writer:lines({ render.error_line(msg) }, "VibingError")
    log.error(msg)
    r.ended = "crashed"
  end
  pcall(vim.api.nvim_buf_del_extmark, buf, status_ns, r.header)
  local n = vim.api.nvim_buf_line_count(buf)
  local last = vim.api.nvim_buf_get_lines(buf, n - 1, n, false)[1]
  r.writer:lines((last == "" and not r.writer.open) and { "## User", "", "" } or { "", "## User", "", "" })
  runs[buf] = nil
  save(buf)
  vim.b[buf].vibing_last_run = r.cancelled and "cancelled" or r.ended
  vim.b[buf].vibing_runs = (vim.b[buf].vibing_runs or 0) + 1
  approval.fire("VibingRunDone", { buf = buf, ended = vim.b[buf].vibing_last_run })
end

-- Drop blank lines at the end of the buffer, then start the reply.
local function open_reply(bufnr)
  local n = vim.api.nvim_buf_line_count(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, n, false)
  local keep = n
  while keep > 1 and lines[keep]:match("^%s*$") do
    keep = keep - 1
  end
  vim.api.nvim_buf_set_lines(bufnr, keep, n, false, { "", "## Assistant", "", "" })
  local header = vim.api.nvim_buf_set_extmark(bufnr, status_ns, keep + 1, 0, {})
  local w = writer_mod.new(bufnr)
  w.open = true -- the empty line under the header is where the text starts
  return w, header
end

---Send the last User section of the chat to the agent.
---@param bufnr integer
function M.send(bufnr)
  if runs[bufnr] then
    log.warn("this chat is still running; wait for the reply or cancel it with " .. (options().keymaps.cancel or ":VibingCancel"))
    return
  end
  local prompt = M.prompt(bufnr)
  if not prompt then
    log.info("the User section is empty: type a message or a slash command (/help)")
    return
  end
  local path = vim.api.nvim_buf_get_name(bufnr)
  if path == "" then
    log.error("this chat has no file: save it first (:write .vibing/chat/name.md), then send")
    return
  end
  prompt = require("vibing.chat.mentions").rewrite(prompt)
  local sendable, why_not = require("vibing.chat.mentions").check(bufnr, prompt, path)
  if not sendable then
    log.error(why_not)
    return
  end
  approval.setup_highlights()
  local writer, header = open_reply(bufnr)
  ---@type vibing.Run
  local r = {
    buf = bufnr,
    writer = writer,
    header = header,
    tools = {},
    rules = {},
    out = process.lines(),
    draining = false,
    drain_timer = vim.loop.new_timer(),
    stderr = {},
    stderr_partial = "",
    cancelled = false,
    frame = 0,
  }
  r.drain_cb = vim.schedule_wrap(function()
    drain(r)
  end)
  runs[bufnr] = r
  if not save(bufnr) then
    r.ended = "error"
    finish(r, -1)
    return
  end
  local rpc = require("vibing.rpc")
  local why = rpc.missing(rpc.bin())
  if why then
    r.writer:lines({ render.error_line(why) }, "VibingError")
    log.error(why)
    r.ended = "error"
    finish(r, -1)
    return
  end
  local proc, err = process.spawn(M.command(bufnr, path, rpc.write_config()), {
    cwd = vim.fn.getcwd(),
    on_stdout = function(chunk)
      on_stdout(r, chunk)
    end,
    on_stderr = function(chunk)
      on_stderr(r, chunk)
    end,
    on_exit = function(code)
      finish(r, code)
    end,
  })
  if not proc then
    r.writer:lines({ render.error_line("could not start vibing-agent run: " .. tostring(err)) }, "VibingError")
    r.ended = "error"
    finish(r, -1)
    return
  end
  r.proc = proc
  send_json(r, { type = "prompt", text = prompt })
  r.timer = vim.loop.new_timer()
  r.timer:start(
    0,
    100,
    vim.schedule_wrap(function()
      if runs[bufnr] == r then
        tick(r)
      end
    end)
  )
  approval.fire("VibingRunStart", { buf = bufnr })
end

---Cancel the chat's run: the agent is interrupted, waiting approvals are
---denied; a run that does not end within 5 s is stopped.
---@param bufnr integer
function M.cancel(bufnr)
  local r = runs[bufnr]
  if not r then
    log.info("nothing is running in this chat")
    return
  end
  if r.cancelled then
    return
  end
  r.cancelled = true
  if not send_json(r, { type = "cancel" }) then
    if r.proc then
      r.proc:stop()
    end
    return
  end
  r.kill_timer = vim.loop.new_timer()
  r.kill_timer:start(
    5000,
    0,
    vim.schedule_wrap(function()
      if runs[bufnr] == r and r.proc then
        r.proc:stop()
      end
    end)
  )
end

---Buffers with a run in progress.
---@return integer[]
function M.list()
  local out = {}
  for b in pairs(runs) do
    table.insert(out, b)
  end
  table.sort(out)
  return out
end

return M
