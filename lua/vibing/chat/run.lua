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
local writer_mod = require("vibing.chat.writer")

local status_ns = vim.api.nvim_create_namespace("vibing_status")
local spinner = { "⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏" }

---@class vibing.Run
---@field buf integer
---@field proc vibing.Process|nil the `vibing-agent run` process
---@field reader vibing.process.Reader
---@field writer vibing.Writer
---@field header integer extmark on the `## Assistant` line (spinner)
---@field tools table<string, table> tool_use id -> { tool, input, ran }
---@field exit_code integer|nil set once the process is gone
---@field ended string|nil "result" | "error" once the run said how it ended
---@field cancelled boolean
---@field session string|nil session id written to the chat
---@field rules table<string, string> tool_use id -> rule added by an always answer
---@field send_json fun(msg: table): boolean write one line to the run's stdin
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
  r.reader:close()
end

---The run is over (its process exited with code): close the reply with a
---new `## User` section and save the chat.
---@param r vibing.Run
---@param code integer
local function finish(r, code)
  if runs[r.buf] ~= r then
    return
  end
  r.exit_code = code
  if r.reader:eof() then
    return -- the drain finishes the run once every line is handled
  end
  stop_timers(r)
  local buf = r.buf
  if not vim.api.nvim_buf_is_valid(buf) then
    runs[buf] = nil
    r.writer:close()
    return
  end
  r.writer:flush()
  approval.cancel_all(buf)
  if not r.ended then
    local why = table.concat(r.reader.stderr, " | ")
    local msg = ("vibing-agent run stopped unexpectedly (exit %s)%s"):format(tostring(code), why ~= "" and (": " .. why) or "")
    r.writer:lines({ render.error_line(msg) }, "VibingError")
    log.error(msg)
    r.ended = "crashed"
  end
  pcall(vim.api.nvim_buf_del_extmark, buf, status_ns, r.header)
  local n = vim.api.nvim_buf_line_count(buf)
  local last = vim.api.nvim_buf_get_lines(buf, n - 1, n, false)[1]
  r.writer:lines((last == "" and not r.writer.open) and { "## User", "", "" } or { "", "## User", "", "" })
  runs[buf] = nil
  require("vibing.chat.store").save(buf)
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

---@param bufnr integer
---@return vibing.Run
local function new_run(bufnr)
  local writer, header = open_reply(bufnr)
  ---@type vibing.Run
  local r = { buf = bufnr, writer = writer, header = header, tools = {}, rules = {}, cancelled = false, frame = 0 }
  r.send_json = function(msg)
    return r.proc ~= nil and r.proc:write(vim.fn.json_encode(msg) .. "\n")
  end
  r.reader = process.reader({
    on_line = function(line)
      events.handle(r, line)
    end,
    alive = function()
      return vim.api.nvim_buf_is_valid(r.buf)
    end,
    on_drained = function()
      if not vim.api.nvim_buf_is_valid(r.buf) and r.proc then
        r.proc:stop() -- the chat is gone: nobody can answer or read this run any more
      end
      if r.exit_code then
        finish(r, r.exit_code)
      end
    end,
  })
  return r
end

-- A run that could not start: say why and close the reply.
local function failed(r, why)
  if why then
    r.writer:lines({ render.error_line(why) }, "VibingError")
    log.error(why)
  end
  r.ended = "error"
  finish(r, -1)
end

---Start a run that sends prompt for the chat at path.
---@param bufnr integer
---@param prompt string
---@param path string
function M.start(bufnr, prompt, path)
  approval.setup_highlights()
  local r = new_run(bufnr)
  runs[bufnr] = r
  if not require("vibing.chat.store").save(bufnr) then
    return failed(r)
  end
  local rpc = require("vibing.rpc")
  local why = rpc.missing(rpc.bin())
  if why then
    return failed(r, why)
  end
  local proc, err = process.spawn(M.command(bufnr, path, rpc.write_config()), {
    cwd = vim.fn.getcwd(),
    on_stdout = function(chunk)
      r.reader:push(chunk)
    end,
    on_stderr = function(chunk)
      r.reader:push_stderr(chunk)
    end,
    on_exit = function(code)
      finish(r, code)
    end,
  })
  if not proc then
    return failed(r, "could not start vibing-agent run: " .. tostring(err))
  end
  r.proc = proc
  r.send_json({ type = "prompt", text = prompt })
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
  if not r.send_json({ type = "cancel" }) then
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
