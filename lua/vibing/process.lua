---@mod vibing.process A child process read through libuv pipes.
---`jobstart()` on Neovim 0.10 splits a burst of output into one list of up to
---~50k lines and hands it to a single `on_stdout` call, which stalls the editor
---for tens of milliseconds before any plugin code runs. Here stdout arrives as
---raw chunks (at most 64 KB each) that the caller splits and handles in time
---slices (see |vibing.process.Lines|).
---
---The child runs in its own session (`detached`), so `stop()` can signal its
---whole process group, as `jobstop()` does: SIGTERM, SIGKILL 2 s later.
local M = {}

local uv = vim.uv or vim.loop

-- Time between SIGTERM and SIGKILL, as jobstop() does.
local KILL_AFTER_MS = 2000
-- How long the exit waits for stdout and stderr to close (a grandchild may
-- hold them open after the child is gone).
local EOF_GRACE_MS = 1000

---@type table<vibing.Process, true>
local live = {}
local leave_hook = false

---@class vibing.ProcessOpts
---@field cwd string|nil
---@field on_stdout fun(chunk: string) raw output; runs in a fast (libuv) callback: no editor API there
---@field on_stderr fun(chunk: string)|nil likewise
---@field on_exit fun(code: integer) on the main loop, after stdout and stderr closed; a signal is 128 + its number

---@class vibing.Process
---@field pid integer
---@field handle any uv_process_t
---@field stdin any
---@field stdout any
---@field stderr any
---@field exited boolean
local Process = {}
Process.__index = Process

local function close(h)
  if h and not h:is_closing() then
    h:close()
  end
end

-- The editor is going away: jobs would be stopped, so these are too.
local function hook_leave()
  if leave_hook then
    return
  end
  leave_hook = true
  vim.api.nvim_create_autocmd("VimLeavePre", {
    group = vim.api.nvim_create_augroup("vibing_process", { clear = true }),
    desc = "vibing: running agents stop with the editor",
    callback = function()
      for p in pairs(live) do
        p:signal("sigterm")
      end
    end,
  })
end

---The processes alive now (for tests).
---@return table<vibing.Process, true>
function M._live()
  return live
end

---Start cmd (argv list). Returns the process, or nil and why not.
---@param cmd string[]
---@param opts vibing.ProcessOpts
---@return vibing.Process|nil, string|nil
function M.spawn(cmd, opts)
  local p = setmetatable({ exited = false }, Process)
  p.stdin, p.stdout, p.stderr = uv.new_pipe(false), uv.new_pipe(false), uv.new_pipe(false)
  local open = 3 -- exit, stdout EOF, stderr EOF
  local code = -1
  local grace
  local done = vim.schedule_wrap(function()
    opts.on_exit(code)
  end)
  local function one_less()
    open = open - 1
    if open == 0 then
      live[p] = nil
      if grace then
        close(grace)
      end
      close(p.stdin)
      done()
    end
  end
  local function read(pipe, cb)
    pipe:read_start(function(_, chunk)
      if chunk then
        cb(chunk)
      elseif not pipe:is_closing() then
        -- EOF or a read error: either way this stream is over.
        pipe:close()
        one_less()
      end
    end)
  end
  local args = {}
  for i = 2, #cmd do
    args[i - 1] = cmd[i]
  end
  local ok, handle, pid = pcall(uv.spawn, cmd[1], {
    args = args,
    cwd = opts.cwd,
    stdio = { p.stdin, p.stdout, p.stderr },
    detached = true,
  }, function(c, signal)
    code = (signal and signal ~= 0) and (128 + signal) or c
    p.exited = true
    close(p.handle)
    close(p.kill_timer)
    -- Streams a grandchild still holds open must not keep the run alive.
    grace = uv.new_timer()
    grace:start(EOF_GRACE_MS, 0, function()
      for _, pipe in ipairs({ p.stdout, p.stderr }) do
        if not pipe:is_closing() then
          pipe:read_stop()
          pipe:close()
          one_less()
        end
      end
    end)
    one_less()
  end)
  if not ok or not handle then
    close(p.stdin)
    close(p.stdout)
    close(p.stderr)
    return nil, tostring(ok and pid or handle)
  end
  p.handle, p.pid = handle, pid
  live[p] = true
  hook_leave()
  read(p.stdout, opts.on_stdout)
  read(p.stderr, opts.on_stderr or function() end)
  return p
end

---Write s to the process's stdin. Returns false when it is closed.
---@param s string
---@return boolean
function Process:write(s)
  if self.exited or self.stdin:is_closing() then
    return false
  end
  local ok, ret = pcall(self.stdin.write, self.stdin, s)
  return ok and ret ~= nil
end

---Close the process's stdin (it ends once idle: `vibing-agent run` exits
---after its last result).
function Process:close_stdin()
  close(self.stdin)
end

---Send a signal to the process group.
---@param sig string|integer
function Process:signal(sig)
  if self.exited or not self.pid then
    return
  end
  -- A negative pid is the process group (the child leads its own: detached).
  local ok, ret = pcall(uv.kill, -self.pid, sig)
  if not (ok and ret) then
    pcall(uv.kill, self.pid, sig)
  end
end

---Stop the process like jobstop(): close its stdin, SIGTERM its process
---group, SIGKILL it 2 s later if it is still there.
function Process:stop()
  close(self.stdin)
  if self.exited or self.kill_timer then
    return
  end
  self:signal("sigterm")
  self.kill_timer = uv.new_timer()
  self.kill_timer:start(KILL_AFTER_MS, 0, function()
    close(self.kill_timer)
    self:signal("sigkill")
  end)
end

---@class vibing.process.Lines
---Splits raw chunks into lines without copying whole chunks around: push()
---may run in a fast callback, next() hands out one line at a time so the
---caller can stop after any line (a time slice) and carry on later.
---@field chunks string[]
---@field first integer index of the next chunk to read
---@field last integer index of the last chunk pushed
---@field cur string the chunk being read
---@field pos integer next unread byte of cur
---@field partial string[] pieces of a line that spans chunks
---@field eof boolean no more chunks will come
local Lines = {}
Lines.__index = Lines

---@return vibing.process.Lines
function M.lines()
  return setmetatable({ chunks = {}, first = 1, last = 0, cur = "", pos = 1, partial = {}, eof = false }, Lines)
end

---Queue a raw chunk.
---@param chunk string
function Lines:push(chunk)
  self.last = self.last + 1
  self.chunks[self.last] = chunk
end

---No more chunks: an unterminated last line is handed out by next().
function Lines:finish()
  self.eof = true
end

---The next complete line (without "\n"), or nil when none is ready.
---@return string|nil
function Lines:next()
  while true do
    local nl = self.cur:find("\n", self.pos, true)
    if nl then
      local line = self.cur:sub(self.pos, nl - 1)
      self.pos = nl + 1
      if #self.partial > 0 then
        self.partial[#self.partial + 1] = line
        line = table.concat(self.partial)
        self.partial = {}
      end
      return line
    end
    if self.pos <= #self.cur then
      self.partial[#self.partial + 1] = self.cur:sub(self.pos)
    end
    self.cur, self.pos = "", 1
    if self.first > self.last then
      if self.eof and #self.partial > 0 then
        local line = table.concat(self.partial)
        self.partial = {}
        return line
      end
      return nil
    end
    self.cur = self.chunks[self.first]
    self.chunks[self.first] = nil
    self.first = self.first + 1
  end
end

---Whether next() would return a line now (cheap: no splitting).
---@return boolean
function Lines:ready()
  if self.cur:find("\n", self.pos, true) or (self.eof and (#self.partial > 0 or self.pos <= #self.cur)) then
    return true
  end
  return self.first <= self.last
end

---Drop everything queued.
function Lines:clear()
  self.chunks, self.first, self.last = {}, 1, 0
  self.cur, self.pos, self.partial = "", 1, {}
end

-- Output is handled in slices of at most SLICE_NS, with the editor's other
-- work (keys, timers, redraws) in between, so a burst of output never
-- freezes it. The next slice starts from a 0 ms libuv timer, so libuv runs
-- (timers, input, pipe reads) between slices.
local SLICE_NS = 4e6
-- stderr lines kept for error messages.
local STDERR_LINES = 5

---@class vibing.process.Reader
---A process's output handled a time slice at a time on the main loop.
---@field out vibing.process.Lines stdout not handled yet
---@field draining boolean a drain is scheduled or running
---@field stderr string[] the last stderr lines
---@field private opts vibing.process.ReaderOpts
---@field private timer any
---@field private cb function
---@field private partial string
local Reader = {}
Reader.__index = Reader

---@class vibing.process.ReaderOpts
---@field on_line fun(line: string) one non-empty stdout line, on the main loop
---@field on_drained fun() every queued line is handled (after each drain)
---@field alive (fun(): boolean)|nil false: drop the output (nobody reads it any more), then on_drained

---@param opts vibing.process.ReaderOpts
---@return vibing.process.Reader
function M.reader(opts)
  local rd = setmetatable({ out = M.lines(), draining = false, stderr = {}, partial = "", opts = opts }, Reader)
  rd.timer = uv.new_timer()
  rd.cb = vim.schedule_wrap(function()
    rd:drain()
  end)
  return rd
end

---Handle queued lines for one time slice; the next slice is scheduled.
function Reader:drain()
  if self.opts.alive and not self.opts.alive() then
    self.out:clear()
    self.draining = false
    self.opts.on_drained()
    return
  end
  local t0 = uv.hrtime()
  local out = self.out
  while true do
    local line = out:next()
    if not line then
      break
    end
    if line ~= "" then
      self.opts.on_line(line)
    end
    if uv.hrtime() - t0 > SLICE_NS then
      if out:ready() then
        self.timer:start(0, 0, self.cb)
        return
      end
      break
    end
  end
  self.draining = false
  self.opts.on_drained()
end

---Queue a stdout chunk. Runs in a fast libuv callback: no editor API.
---@param chunk string
function Reader:push(chunk)
  self.out:push(chunk)
  if not self.draining then
    self.draining = true
    self.timer:start(0, 0, self.cb)
  end
end

local function keep(list, l)
  table.insert(list, l)
  if #list > STDERR_LINES then
    table.remove(list, 1)
  end
end

---Keep the last stderr lines. Also a fast callback.
---@param chunk string
function Reader:push_stderr(chunk)
  local text = self.partial .. chunk
  local from = 1
  while true do
    local nl = text:find("\n", from, true)
    if not nl then
      break
    end
    local l = text:sub(from, nl - 1)
    from = nl + 1
    if l ~= "" then
      keep(self.stderr, l)
    end
  end
  self.partial = text:sub(from, from + 4095)
end

---The process is gone: no more output. Returns true when lines are still
---to be handled (on_drained follows once they are), false when all are.
---@return boolean
function Reader:eof()
  if self.partial ~= "" then
    keep(self.stderr, self.partial)
    self.partial = ""
  end
  self.out:finish()
  if self.out:ready() or self.draining then
    if not self.draining then
      self.draining = true
      self:drain()
    end
    return true
  end
  return false
end

---Free the timer.
function Reader:close()
  if self.timer and not self.timer:is_closing() then
    self.timer:stop()
    self.timer:close()
  end
end

return M
