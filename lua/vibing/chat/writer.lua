---@mod vibing.chat.writer Appends a streamed reply to the end of a chat buffer.
---Text chunks are coalesced: they collect in a Lua list and reach the buffer in
---one `nvim_buf_set_lines` per flush (at most every `delay_ms`), so thousands
---of tiny chunks never mean thousands of buffer updates.
local M = {}

local ns = vim.api.nvim_create_namespace("vibing_writer")
M.ns = ns

---@class vibing.Writer
---@field buf integer
---@field pending string[] text not yet in the buffer
---@field open boolean the last buffer line is reply text that the next chunk continues
---@field delay integer ms between flushes
---@field timer any|nil libuv timer of the scheduled flush
---@field recent string[] the last pieces of the reply's text
---@field recent_len integer their bytes
local Writer = {}

local TAIL = 400 -- bytes of the reply's end kept for an error message
Writer.__index = Writer

---@param buf integer
---@param opts table|nil { delay_ms = 15 }
---@return vibing.Writer
function M.new(buf, opts)
  opts = opts or {}
  return setmetatable({ buf = buf, pending = {}, open = false, delay = opts.delay_ms or 15, recent = {}, recent_len = 0 }, Writer)
end

-- Windows showing buf whose cursor sits on its last line follow new output.
local function followers(buf)
  local last = vim.api.nvim_buf_line_count(buf)
  local out = {}
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if vim.api.nvim_win_get_cursor(win)[1] == last then
      table.insert(out, win)
    end
  end
  return out
end

local function follow(buf, wins)
  if #wins == 0 then
    return
  end
  local last = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(wins) do
    if vim.api.nvim_win_is_valid(win) then
      pcall(vim.api.nvim_win_set_cursor, win, { last, 0 })
    end
  end
end

---Queue assistant text; it reaches the buffer on the next flush.
---@param s string
function Writer:text(s)
  if s == "" then
    return
  end
  -- Kept as a list, cut down now and then: a new string per piece would
  -- cost more than the rest of streaming.
  table.insert(self.recent, s)
  self.recent_len = self.recent_len + #s
  if self.recent_len > 4 * TAIL then
    local last = table.concat(self.recent):sub(-TAIL)
    self.recent, self.recent_len = { last }, #last
  end
  table.insert(self.pending, s)
  if self.timer or self.delay <= 0 then
    if self.delay <= 0 then
      self:flush()
    end
    return
  end
  self.timer = vim.loop.new_timer()
  self.timer:start(
    self.delay,
    0,
    vim.schedule_wrap(function()
      self:flush()
    end)
  )
end

---Write queued text to the buffer now.
function Writer:flush()
  if self.timer then
    self.timer:stop()
    self.timer:close()
    self.timer = nil
  end
  if #self.pending == 0 or not vim.api.nvim_buf_is_valid(self.buf) then
    self.pending = {}
    return
  end
  local text = table.concat(self.pending)
  self.pending = {}
  local lines = vim.split(text, "\n", { plain = true })
  local wins = followers(self.buf)
  local n = vim.api.nvim_buf_line_count(self.buf)
  if self.open then
    lines[1] = vim.api.nvim_buf_get_lines(self.buf, n - 1, n, false)[1] .. lines[1]
    vim.api.nvim_buf_set_lines(self.buf, n - 1, n, false, lines)
  else
    vim.api.nvim_buf_set_lines(self.buf, n, n, false, lines)
  end
  self.open = true
  follow(self.buf, wins)
end

---Append whole lines after the reply so far (queued text goes first); the
---next text starts on a line of its own. Returns the 0-based row of the first.
---@param lines string[]
---@param hl string|string[]|nil highlight group for all lines, or one per line
---@return integer row
function Writer:lines(lines, hl)
  self:flush()
  if not vim.api.nvim_buf_is_valid(self.buf) then
    return 0
  end
  local wins = followers(self.buf)
  local n = vim.api.nvim_buf_line_count(self.buf)
  local row = n
  local last = vim.api.nvim_buf_get_lines(self.buf, n - 1, n, false)[1]
  if self.open and last == "" then
    -- An empty open line is where text would have gone: use it.
    row = n - 1
    vim.api.nvim_buf_set_lines(self.buf, n - 1, n, false, lines)
  else
    vim.api.nvim_buf_set_lines(self.buf, n, n, false, lines)
  end
  self.open = false
  if hl then
    for i = 1, #lines do
      local g = type(hl) == "table" and hl[i] or hl
      if g then
        vim.api.nvim_buf_add_highlight(self.buf, ns, g, row + i - 1, 0, -1)
      end
    end
  end
  follow(self.buf, wins)
  return row
end

---The end of the reply's text so far (up to 400 bytes, however many pieces
---it came in): what the agent said last, for an error message.
---@return string
function Writer:tail()
  return table.concat(self.recent):sub(-TAIL)
end

---Stop the flush timer without writing (the buffer is going away).
function Writer:close()
  if self.timer then
    self.timer:stop()
    self.timer:close()
    self.timer = nil
  end
  self.pending = {}
end

return M
