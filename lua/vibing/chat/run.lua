---@mod vibing.chat.run The life of a chat's `vibing-agent run` process: start, cancel, finish, status.
---Several chats may run at once, each with its own process; its output is
---read a time slice at a time (vibing.process reader) and each event handled
---by vibing.chat.events.
local M = {}

local approval = require("vibing.ui.approval")
local events = require("vibing.chat.events")
local log = require("vibing.log")
local process = require("vibing.process")
local render = require("vibing.chat.render")
local resumed = require("vibing.chat.resumed")
local writer_mod = require("vibing.chat.writer")

local status_ns = vim.api.nvim_create_namespace("vibing_status")
local spinner = { "⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏" }

---@class vibing.Run
---@field buf integer
---@field writer vibing.Writer
---@field header integer extmark on the `## Assistant` line (spinner)
---@field tools table<string, table> tool_use id -> { tool, input, ran }
---@field exit_code integer|nil set when the process ended during this message
---@field ended string|nil "result" | "error" | "closed" once the run said how it ended
---@field cancelled boolean
---@field replied boolean|nil the agent answered something (text, a tool call, a result)
---@field failure string|nil why the message failed before any answer
---@field session string|nil session id written to the chat
---@field rules table<string, string> tool_use id -> rule added by an always answer
---@field send_json fun(msg: table): boolean write one line to the run's stdin
---@field live vibing.Live|nil the process answering this message
---@field queued boolean|nil a message waits for this one's reply
---@field final boolean|nil the result said the process ends after it
---@field timer any spinner / countdown timer
---@field kill_timer any
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

---The command line of a run for the chat at path.
---@param bufnr integer
---@param path string
---@param config_path string
---@return string[]
function M.command(bufnr, path, config_path)
  local cmd = { require("vibing.rpc").bin(), "run", "--chat", path, "--config", config_path }
  vim.list_extend(cmd, require("vibing.permissions.grants").args(bufnr))
  local backend = options().backend
  if backend and backend ~= "claude" then
    vim.list_extend(cmd, { "--backend", backend })
  end
  return cmd
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

local function close_timer(t)
  if t then
    t:stop()
    t:close()
  end
end

local function stop_timers(r)
  close_timer(r.timer)
  close_timer(r.kill_timer)
  r.timer, r.kill_timer = nil, nil
end

---@class vibing.Live
---One `vibing-agent run` process per open chat (SPEC §13): it keeps the
---claude CLI alive between messages, so later messages are no resumed
---session and approvals keep working.
---@field buf integer
---@field proc vibing.Process|nil
---@field reader vibing.process.Reader
---@field turn vibing.Run|nil the message being answered
---@field session string|nil
---@field exit_code integer|nil
---@field idle_timer any closes the process after live_timeout_s without a message
---@field idled boolean|nil its stdin was closed after live_timeout_s without a message
---@field final boolean|nil its last result said the run ends (a one-message backend)

---@type table<integer, vibing.Live>
local lives = {}

local function idle_ms()
  local s = tonumber(options().live_timeout_s) or 1800
  return s > 0 and s * 1000 or nil
end

local function blank(l)
  return l:match("^%s*$") ~= nil
end

-- What the person typed below the reply while it ran (rows from `from` on):
-- those lines without the `## User` heading opened with the reply, and
-- without blank lines around them.
local function typed_below(buf, from)
  local body, dropped = {}, false
  for _, l in ipairs(vim.api.nvim_buf_get_lines(buf, from, -1, false)) do
    if not dropped and l:match("^## User%s*$") then
      dropped = true
    else
      table.insert(body, l)
    end
  end
  while #body > 0 and blank(body[1]) do
    table.remove(body, 1)
  end
  while #body > 0 and blank(body[#body]) do
    table.remove(body)
  end
  return body
end

-- The reply is complete: one blank line after it, then the User section
-- opened with it, which keeps whatever the person typed there meanwhile
-- (the next message). Lines are only rewritten where that is not so already,
-- so a person typing there is not disturbed.
local function close_reply(r, head)
  local buf = r.buf
  local e = r.writer:pos()
  local last = e -- the reply's last line that is not blank
  while last > (head or 0) and blank(vim.api.nvim_buf_get_lines(buf, last, last + 1, false)[1]) do
    last = last - 1
  end
  local rest = vim.api.nvim_buf_get_lines(buf, e + 1, -1, false)
  local first
  for i, l in ipairs(rest) do
    if not blank(l) then
      first = i
      break
    end
  end
  if first and rest[first]:match("^## User%s*$") then
    local user = e + first -- its row
    local after = vim.api.nvim_buf_get_lines(buf, user + 1, -1, false)
    local empty = true
    for _, l in ipairs(after) do
      empty = empty and blank(l)
    end
    if empty and #after ~= 2 then
      vim.api.nvim_buf_set_lines(buf, user + 1, -1, false, { "", "" })
    end
    if user - last ~= 2 then
      vim.api.nvim_buf_set_lines(buf, last + 1, user, false, { "" })
    end
    return
  end
  -- the heading is gone, or the person typed above it: the heading goes
  -- right after the reply, what they typed under it
  local body = typed_below(buf, e + 1)
  local tail = { "", "## User", "" }
  vim.list_extend(tail, #body > 0 and body or { "" })
  vim.api.nvim_buf_set_lines(buf, last + 1, -1, false, tail)
end

-- Nothing was answered: the reply header goes (with the blank line above it);
-- what the person typed below it meanwhile joins the kept message.
local function drop_reply(r, head)
  local body = typed_below(r.buf, r.writer:pos() + 1)
  if #body > 0 then
    table.insert(body, 1, "")
  end
  vim.api.nvim_buf_set_lines(r.buf, head - 1, -1, false, body)
end

-- The turn is over: close the reply and save the chat. A message that
-- waited for it is sent now.
local function end_turn(r)
  if runs[r.buf] ~= r then
    return
  end
  stop_timers(r)
  local buf = r.buf
  runs[buf] = nil
  events.done(r)
  if r.live and r.live.turn == r then
    r.live.turn = nil
  end
  if not vim.api.nvim_buf_is_loaded(buf) then
    r.writer:close()
    return
  end
  r.writer:flush()
  approval.cancel_all(buf)
  if not r.ended then
    local why = table.concat(r.live and r.live.reader.stderr or {}, " | ")
    local msg = ("vibing-agent run stopped unexpectedly (exit %s)%s"):format(tostring(r.exit_code), why ~= "" and (": " .. why) or "")
    if r.replied or r.cancelled then
      r.writer:lines({ render.error_line(msg) }, "VibingError")
      log.error(msg)
    else
      r.failure = msg
    end
    r.ended = "crashed"
  end
  -- the header's row now (a frontmatter edit may have moved it)
  local head = vim.api.nvim_buf_get_extmark_by_id(buf, status_ns, r.header, {})[1]
  pcall(vim.api.nvim_buf_del_extmark, buf, status_ns, r.header)
  if (r.ended == "error" or r.ended == "crashed") and not r.replied and not r.cancelled and head then
    -- Nothing was answered: the message stays the User section to send
    -- again, without a reply header (nor the blank line above it); the
    -- notification says why.
    drop_reply(r, head)
    if r.failure then
      log.error("the message was not sent (it is kept): " .. render.error_line(r.failure):gsub("^⚠ Error: ", ""))
    end
  else
    close_reply(r, head)
    require("vibing.chat.store").save(buf)
  end
  r.writer:close()
  vim.b[buf].vibing_last_run = r.cancelled and "cancelled" or r.ended
  vim.b[buf].vibing_runs = (vim.b[buf].vibing_runs or 0) + 1
  approval.fire("VibingRunDone", { buf = buf, ended = vim.b[buf].vibing_last_run })
  if r.queued then
    vim.schedule(function()
      require("vibing.chat.send").send(buf)
    end)
  end
end

-- Start counting the live process's idle time (no message is running).
local function arm_idle(live)
  close_timer(live.idle_timer)
  live.idle_timer = nil
  local ms = idle_ms()
  if not ms then
    return
  end
  live.idle_timer = vim.loop.new_timer()
  live.idle_timer:start(
    ms,
    0,
    vim.schedule_wrap(function()
      if lives[live.buf] == live and not live.turn and live.proc and not live.proc.exited then
        -- the run exits 0; the next message resumes the session: say so
        lives[live.buf] = nil
        live.idled = true
        live.proc:close_stdin()
        if resumed.write(live.buf, resumed.idle_notice()) then
          vim.b[live.buf].vibing_idle_noted = true
        end
      end
    end)
  )
end

-- The process is gone: a turn still open ends with it.
local function live_exited(live, code)
  live.exit_code = code
  if live.reader:eof() then
    return -- on_drained calls again once every line is handled
  end
  live.reader:close()
  close_timer(live.idle_timer)
  live.idle_timer = nil
  if lives[live.buf] == live then
    lives[live.buf] = nil
  end
  local r = live.turn
  if r then
    r.exit_code = code
    end_turn(r)
  end
end

-- One stdout line of the live process, for its current turn.
local function on_line(live, line)
  local r = live.turn
  if not r then
    -- between messages: only notices and errors can come
    local ok, ev = pcall(vim.json and vim.json.decode or vim.fn.json_decode, line)
    if ok and type(ev) == "table" and type(ev.message) == "string" then
      (ev.type == "error" and log.error or log.warn)(ev.message)
    end
    return
  end
  events.handle(r, line)
  if r.final then
    live.final = true -- this process answers no more messages
  end
  if r.session then
    live.session = r.session
  end
  if r.ended == "result" then
    end_turn(r)
    arm_idle(live)
  end
end

---@param bufnr integer
---@return vibing.Live|nil, string|nil
local function spawn(bufnr, path)
  local rpc = require("vibing.rpc")
  local why = rpc.missing(rpc.bin())
  if why then
    return nil, why
  end
  local live = { buf = bufnr }
  live.reader = process.reader({
    on_line = function(line)
      on_line(live, line)
    end,
    alive = function()
      return vim.api.nvim_buf_is_loaded(live.buf)
    end,
    on_drained = function()
      if not vim.api.nvim_buf_is_loaded(live.buf) and live.proc then
        live.proc:stop() -- the chat is gone: nobody can answer or read this run any more
      end
      if live.exit_code then
        live_exited(live, live.exit_code)
      end
    end,
  })
  local proc, err = process.spawn(M.command(bufnr, path, rpc.write_config()), {
    cwd = vim.fn.getcwd(),
    on_stdout = function(chunk)
      live.reader:push(chunk)
    end,
    on_stderr = function(chunk)
      live.reader:push_stderr(chunk)
    end,
    on_exit = function(code)
      live_exited(live, code)
    end,
  })
  if not proc then
    live.reader:close()
    return nil, "could not start vibing-agent run: " .. tostring(err)
  end
  live.proc = proc
  lives[bufnr] = live
  return live
end

-- Drop blank lines at the end of the buffer, then start the reply and,
-- under it, the next User section: the person may type (and queue) the next
-- message there while the reply grows above it. A cursor at the end of the
-- message moves there.
local function open_reply(bufnr)
  local n = vim.api.nvim_buf_line_count(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, n, false)
  local keep = n
  while keep > 1 and lines[keep]:match("^%s*$") do
    keep = keep - 1
  end
  local wins = {}
  for _, win in ipairs(vim.fn.win_findbuf(bufnr)) do
    if vim.api.nvim_win_get_cursor(win)[1] >= keep then
      table.insert(wins, win)
    end
  end
  local section = { "", "## Assistant", "", "", "", "## User", "", "" }
  vim.api.nvim_buf_set_lines(bufnr, keep, n, false, section)
  local header = vim.api.nvim_buf_set_extmark(bufnr, status_ns, keep + 1, 0, {})
  -- the empty line under the header is where the text starts
  local w = writer_mod.new(bufnr, { row = keep + 3 })
  w.open = true
  for _, win in ipairs(wins) do
    pcall(vim.api.nvim_win_set_cursor, win, { keep + #section, 0 })
  end
  return w, header
end

---@param bufnr integer
---@return vibing.Run
local function new_run(bufnr)
  local writer, header = open_reply(bufnr)
  ---@type vibing.Run
  local r = { buf = bufnr, writer = writer, header = header, tools = {}, rules = {}, cancelled = false, frame = 0 }
  r.send_json = function(msg)
    local proc = r.live and r.live.proc
    return proc ~= nil and proc:write(vim.fn.json_encode(msg) .. "\n")
  end
  return r
end

-- A run that could not start: say why and close the reply.
local function failed(r, why)
  r.failure = why -- nil: the failure was already told
  r.ended = "error"
  end_turn(r)
end

---Start answering prompt: on the chat's live process when it has one, else
---on a new `vibing-agent run` (which resumes the session the chat names).
---@param bufnr integer
---@param prompt string
---@param path string
function M.start(bufnr, prompt, path)
  approval.setup_highlights()
  local r = new_run(bufnr)
  runs[bufnr] = r
  if resumed.is_unsent_fork(bufnr) then
    r.writer:lines({ resumed.fork_notice() }, "VibingNotice")
  end
  if not require("vibing.chat.store").save(bufnr) then
    return failed(r)
  end
  local live = lives[bufnr]
  if not (live and live.proc and not live.proc.exited and not live.turn and not live.final) then
    -- a new process for a chat that names a session resumes it: say so,
    -- unless the idle notice just did
    if not vim.b[bufnr].vibing_idle_noted and resumed.names_session(bufnr) then
      r.writer:lines({ resumed.reopen_notice() }, "VibingNotice")
    end
    vim.b[bufnr].vibing_idle_noted = nil
    local err
    live, err = spawn(bufnr, path)
    if not live then
      return failed(r, err)
    end
  end
  close_timer(live.idle_timer)
  live.idle_timer = nil
  r.live, r.session = live, live.session
  live.turn = r
  if not r.send_json({ type = "prompt", text = prompt }) then
    return failed(r, "could not send the message to vibing-agent run (it ended)")
  end
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

---Queue the chat's last User section: it is sent once the running message
---has its reply.
---@param bufnr integer
function M.queue(bufnr)
  local r = runs[bufnr]
  if r then
    r.queued = true
  end
end

---Whether the chat has a live process (running a message or waiting for the next).
---@param bufnr integer
---@return boolean
function M.live(bufnr)
  local l = lives[bufnr]
  return l ~= nil and l.proc ~= nil and not l.proc.exited
end

---Whether the chat's live process resumed a session (its session event
---said so): true or false while it runs, nil when there is none or it has
---not said yet.
---@param bufnr integer
---@return boolean|nil
function M.resumed(bufnr)
  local l = lives[bufnr]
  if l == nil or l.proc == nil or l.proc.exited then
    return nil
  end
  return l.resumed
end

---End the chat's live process: its stdin closes, so `vibing-agent run` ends
---once idle; a message still running is stopped (waiting approvals are
---denied by the run). With `opts.closing` the buffer is being closed: the
---reply so far and a line saying the message was stopped are saved, since
---the buffer's text is about to go.
---@param bufnr integer
---@param opts table|nil { closing = true }
function M.stop(bufnr, opts)
  local live = lives[bufnr]
  local r = runs[bufnr]
  if r and opts and opts.closing and vim.api.nvim_buf_is_loaded(bufnr) then
    r.writer:flush()
    approval.cancel_all(bufnr)
    r.writer:lines({ "⏹ Stopped: the chat was closed while the agent was working." }, "VibingNotice")
    r.ended = "closed"
    end_turn(r)
  elseif r then
    approval.forget(bufnr)
    runs[bufnr] = nil
    stop_timers(r)
    r.writer:close()
  end
  if not live then
    return
  end
  lives[bufnr] = nil
  close_timer(live.idle_timer)
  live.idle_timer = nil
  live.turn = nil
  if live.proc then
    live.proc:close_stdin()
    if r then
      live.proc:stop()
    end
  end
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
  if not r.send_json({ type = "cancel" }) then
    if r.live and r.live.proc then
      r.live.proc:stop()
    end
    return
  end
  r.kill_timer = vim.loop.new_timer()
  r.kill_timer:start(
    5000,
    0,
    vim.schedule_wrap(function()
      if runs[bufnr] == r and r.live and r.live.proc then
        r.live.proc:stop()
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
