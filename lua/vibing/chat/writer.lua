---@mod vibing.chat.writer Writes a streamed reply into a chat buffer, at the reply's end.
---The reply's end is an extmark, not the buffer's last line: what the person
---types below the reply while it streams (the next message, under the
---`## User` heading opened with the reply) stays below it, intact.
---Text chunks are coalesced: they collect in a Lua list and reach the buffer
---in one update per flush (at most every `delay_ms`), so thousands of tiny
---chunks never mean thousands of buffer updates.
local M = {}

local ns = vim.api.nvim_create_namespace("vibing_writer")
M.ns = ns
-- the reply's end: one extmark per writer
local end_ns = vim.api.nvim_create_namespace("vibing_writer_end")

---@class vibing.Writer
---@field buf integer
---@field mark integer extmark (end_ns) at the end of the reply's last line
---@field pending string[] text not yet in the buffer
---@field open boolean the reply's last line is text that the next chunk continues
---@field delay integer ms between flushes
---@field timer any|nil libuv timer of the scheduled flush
---@field recent string[] the last pieces of the reply's text
---@field recent_len integer their bytes
local Writer = {}

local TAIL = 400 -- bytes of the reply's end kept for an error message
Writer.__index = Writer

---@param buf integer
---@param opts table|nil { delay_ms = 15, row = 0-based row of the reply's last line (default: the buffer's last line) }
---@return vibing.Writer
function M.new(buf, opts)
  opts = opts or {}
  local w = setmetatable({ buf = buf, pending = {}, open = false, delay = opts.delay_ms or 15, recent = {}, recent_len = 0 }, Writer)
  local row = opts.row or (vim.api.nvim_buf_line_count(buf) - 1)
  local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ""
  w.mark = vim.api.nvim_buf_set_extmark(buf, end_ns, row, #line, {})
  return w
end

---Where the reply ends: the 0-based row of its last line and the byte
---column after its last character.
---@return integer row, integer col
function Writer:pos()
  local p = vim.api.nvim_buf_get_extmark_by_id(self.buf, end_ns, self.mark, {})
  local n = vim.api.nvim_buf_line_count(self.buf)
  -- no mark (the buffer was reloaded), or one pushed past the last line
  -- (every line replaced): the buffer's end
  local row = (p[1] and p[1] < n) and p[1] or n - 1
  local len = #(vim.api.nvim_buf_get_lines(self.buf, row, row + 1, false)[1] or "")
  if row ~= p[1] then
    return row, len
  end
  return row, math.min(p[2], len)
end

function Writer:set_end(row, col)
  self.mark = vim.api.nvim_buf_set_extmark(self.buf, end_ns, row, col, { id = self.mark })
end

-- Windows showing buf whose cursor sits on the reply's last line follow new
-- output (a cursor below the reply, where the person types, stays where it is),
-- unless that line ends an approval block: the cursor waits there for the
-- person's answer (a result of another call may still be written under it).
local function followers(buf, row)
  local out = {}
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if vim.api.nvim_win_get_cursor(win)[1] == row + 1 and not require("vibing.ui.approval").row_inside(buf, row) then
      table.insert(out, win)
    end
  end
  return out
end

local function follow(wins, row)
  for _, win in ipairs(wins) do
    if vim.api.nvim_win_is_valid(win) then
      pcall(vim.api.nvim_win_set_cursor, win, { row + 1, 0 })
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
  local row, col = self:pos()
  local wins = followers(self.buf, row)
  local last
  if self.open then
    vim.api.nvim_buf_set_text(self.buf, row, col, row, col, lines)
    last = row + #lines - 1
    self:set_end(last, (#lines == 1 and col or 0) + #lines[#lines])
  else
    -- Text after whole lines (a tool call, its output, a block) is a
    -- paragraph of its own: glued under them, Markdown would make it part
    -- of theirs.
    local prev = vim.api.nvim_buf_get_lines(self.buf, row, row + 1, false)[1] or ""
    if prev ~= "" and lines[1] ~= "" then
      table.insert(lines, 1, "")
    end
    vim.api.nvim_buf_set_lines(self.buf, row + 1, row + 1, false, lines)
    last = row + #lines
    self:set_end(last, #lines[#lines])
  end
  self.open = true
  follow(wins, last)
end

local function highlight(buf, row, lines, hl)
  if not hl then
    return
  end
  for i = 1, #lines do
    local g = hl
    if type(hl) == "table" then
      g = hl[i]
    end
    if g then
      vim.api.nvim_buf_add_highlight(buf, ns, g, row + i - 1, 0, -1)
    end
  end
end

---Append whole lines after the reply so far (queued text goes first); the
---next text starts on a line of its own. Returns the 0-based row of the first.
---@param lines string[]
---@param hl string|string[]|nil highlight group for all lines, or one per line
---@param apart boolean|nil a block of its own: after a blank line
---@return integer row
function Writer:lines(lines, hl, apart)
  self:flush()
  if not vim.api.nvim_buf_is_valid(self.buf) then
    return 0
  end
  local row = self:pos()
  local wins = followers(self.buf, row)
  local first = row + 1
  local reuse = self.open and vim.api.nvim_buf_get_lines(self.buf, row, row + 1, false)[1] == ""
  if reuse then
    -- An empty open line is where text would have gone: use it.
    first = row
  end
  if apart and first > 0 and vim.api.nvim_buf_get_lines(self.buf, first - 1, first, false)[1] ~= "" then
    if reuse then
      first = row + 1 -- the empty line stays, as the blank line
      reuse = false
    else
      vim.api.nvim_buf_set_lines(self.buf, first, first, false, { "" })
      first = first + 1
    end
  end
  if reuse then
    vim.api.nvim_buf_set_lines(self.buf, row, row + 1, false, lines)
  else
    vim.api.nvim_buf_set_lines(self.buf, first, first, false, lines)
  end
  self.open = false
  self:set_end(first + #lines - 1, #lines[#lines])
  highlight(self.buf, first, lines, hl)
  follow(wins, first + #lines - 1)
  return first
end

---Put lines right under row (a tool call's line): in the middle of the reply
---the rest moves down; under the reply's last line this is Writer:lines.
---Returns the 0-based row of the first.
---@param row integer 0-based
---@param lines string[]
---@param hl string|string[]|nil
---@return integer row
function Writer:insert(row, lines, hl)
  self:flush()
  if not vim.api.nvim_buf_is_valid(self.buf) then
    return 0
  end
  if row >= self:pos() then
    return self:lines(lines, hl)
  end
  vim.api.nvim_buf_set_lines(self.buf, row + 1, row + 1, false, lines)
  highlight(self.buf, row + 1, lines, hl)
  return row + 1
end

---Replace rows [first, last) of the reply (a block redrawn or collapsed to
---its record line). When the reply ended inside them, it ends after the new
---lines.
---@param first integer 0-based
---@param last integer 0-based, exclusive
---@param lines string[]
function Writer:replace(first, last, lines)
  local row = self:pos()
  vim.api.nvim_buf_set_lines(self.buf, first, last, false, lines)
  if row >= first and row < last then
    self:set_end(first + #lines - 1, #lines[#lines])
  end
end

---The end of the reply's text so far (up to 400 bytes, however many pieces
---it came in): what the agent said last, for an error message.
---@return string
function Writer:tail()
  return table.concat(self.recent):sub(-TAIL)
end

---Stop the flush timer without writing (the reply is over, or the buffer
---is going away) and let the reply's end mark go.
function Writer:close()
  if self.timer then
    self.timer:stop()
    self.timer:close()
    self.timer = nil
  end
  self.pending = {}
  pcall(vim.api.nvim_buf_del_extmark, self.buf, end_ns, self.mark)
end

return M
