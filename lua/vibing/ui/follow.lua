-- Where the person's cursor goes when an approval block appears in the
-- window they are in. The answer keys act only with the cursor inside the
-- block, so a block the person is plainly waiting for takes the cursor:
--   * the cursor waits in the chat's last `## User` section with nothing
--     typed there yet (where a run leaves it, under the growing reply), or
--   * the person answered this chat's previous block from this window.
-- Otherwise (insert mode, a next message being typed, reading elsewhere
-- after no answer) the cursor stays where it is and the window only
-- scrolls, so a key meant for the text never answers by surprise.
local M = {}

local answered = {} -- bufnr -> window that answered the chat's last block

---The person answered a block of bufnr from window win.
---@param bufnr integer
---@param win integer
function M.answered(bufnr, win)
  answered[bufnr] = win
end

---The chat's run ended or the chat was closed.
---@param bufnr integer
function M.forget(bufnr)
  answered[bufnr] = nil
end

-- The 0-based row of the chat's last `## User` heading, or nil.
local function last_user(bufnr)
  local n = vim.api.nvim_buf_line_count(bufnr)
  local step = 200
  for stop = n, 1, -step do
    local start = math.max(0, stop - step)
    local lines = vim.api.nvim_buf_get_lines(bufnr, start, stop, false)
    for i = #lines, 1, -1 do
      if lines[i]:match("^## User%s*$") then
        return start + i - 1
      end
    end
  end
  return nil
end

---Whether a new block of bufnr should take the cursor of window win.
---@param bufnr integer
---@param win integer
---@return boolean
function M.takes_cursor(bufnr, win)
  if vim.api.nvim_get_mode().mode ~= "n" or vim.api.nvim_win_get_buf(win) ~= bufnr then
    return false
  end
  local u = last_user(bufnr)
  local row = vim.api.nvim_win_get_cursor(win)[1] - 1
  if u then
    local typed = false
    for _, l in ipairs(vim.api.nvim_buf_get_lines(bufnr, u + 1, -1, false)) do
      if not l:match("^%s*$") then
        typed = true
        break
      end
    end
    if typed and row > u then
      return false -- the next message is being written there
    end
    if not typed and row > u then
      return true -- waiting under the reply
    end
  end
  return answered[bufnr] == win
end

return M
