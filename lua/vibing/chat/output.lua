---@mod vibing.chat.output A tool's whole output, folded under its summary line.
---Under a tool call that ran, the chat has a summary line (`  ⎿ first line
---(+N lines)`) and, when that does not show everything, the whole output in a
---fenced block right under it (vibing.chat.render.result_lines). In windows
---showing the chat, a fold expression folds summary and block into the
---summary line; `za` or the `output` key (<CR> by default) on the tool line
---or the summary opens and closes it. The block is in the chat's file, so a
---chat saved and opened again folds the same way.
local M = {}

local render = require("vibing.chat.render")

local SUMMARY = "^  ⎿ "
local OPENER = "^  (```+)" .. render.output_info .. "$"

-- A tool line: never a line of an output block (those are indented).
local function is_tool(line)
  return line:find("^⏺ ") ~= nil or line:find("^✗ ") ~= nil
end

-- Whether the summary line at lnum heads an output block: its tool line is
-- right above it and the block's opening fence right under it. (Output that
-- quotes a chat has such lines too, indented: they head nothing.)
local function heads(get, lnum)
  return get(lnum):find(SUMMARY) and is_tool(get(lnum - 1)) and get(lnum + 1):find(OPENER) ~= nil
end

local function getter(buf)
  return function(l)
    return l >= 1 and vim.api.nvim_buf_get_lines(buf, l - 1, l, false)[1] or ""
  end
end

-- Whether the fence line at lnum (k backticks) closes an output block: the
-- nearest line above it with a fence of exactly k backticks is that block's
-- opening one, under its summary. The output inside has only shorter
-- fences, so none of its lines stops the search.
local function closes(buf, lnum, k)
  local fence = "  " .. string.rep("`", k)
  local opener = fence .. render.output_info
  local stop = lnum - 1 -- 1-based, exclusive: lines above it are searched
  while stop > 1 do
    local from = math.max(1, stop - 256)
    local lines = vim.api.nvim_buf_get_lines(buf, from - 1, stop - 1, false)
    for i = #lines, 1, -1 do
      if lines[i] == opener then
        return heads(getter(buf), from + i - 2)
      elseif lines[i] == fence then
        return false
      end
    end
    stop = from
  end
  return false
end

---The fold level of line lnum ('foldexpr'): a summary line that heads an
---output block starts a fold, the block's closing fence ends it.
---@param lnum integer
---@return string
function M.expr(lnum)
  local line = vim.fn.getline(lnum)
  if line:find(SUMMARY) then
    return heads(vim.fn.getline, lnum) and ">1" or "="
  end
  local ticks = line:match("^  (```+)$")
  if ticks and closes(vim.api.nvim_get_current_buf(), lnum, #ticks) then
    return "<1"
  end
  return "="
end

---What a closed output fold shows ('foldtext'): its summary line.
---@return string
function M.text()
  local key = require("vibing").options().keymaps.output
  return vim.fn.getline(vim.v.foldstart) .. (key and ("  · " .. key .. " shows it all") or "")
end

-- Most lines start with neither "  ⎿" nor "  `": Vimscript answers them
-- without calling Lua. A line that is neither empty nor indented by two
-- columns is outside any block (the block indents every line of it): its
-- level is 0, not "=", so Neovim need not go back to the first line to fold
-- a change. (luaeval: on Neovim 0.7 a v:lua call in a branch of ?: breaks
-- the levels of the lines after it.)
M.foldexpr = [[indent(v:lnum)<2?(getline(v:lnum)==#''?'=':0):getline(v:lnum)=~#'^  [⎿`]'?luaeval('require"vibing.chat.output".expr(_A)',v:lnum):'=']]

---Fold output blocks in a window that shows a chat (window-local options of
---that buffer only: another buffer shown in the window later keeps its own).
---@param win integer
function M.fold(win)
  if vim.wo[win].foldmethod == "expr" and vim.wo[win].foldexpr == M.foldexpr then
    return -- set already: setting it again would fold the whole chat again
  end
  vim.api.nvim_win_call(win, function()
    local o = vim.opt_local
    o.foldmethod = "expr"
    o.foldexpr = M.foldexpr
    o.foldtext = "v:lua.require'vibing.chat.output'.text()"
    o.foldlevel = 0
    o.foldenable = true
    pcall(function()
      o.fillchars:append({ fold = " " })
    end)
  end)
end

---Fold the chat's output blocks in every window that shows it, now and later.
---@param bufnr integer
function M.attach(bufnr)
  for _, win in ipairs(vim.fn.win_findbuf(bufnr)) do
    M.fold(win)
  end
  vim.api.nvim_create_autocmd("BufWinEnter", {
    group = vim.api.nvim_create_augroup("vibing_output_" .. bufnr, { clear = true }),
    buffer = bufnr,
    desc = "vibing: fold tool output under its summary line",
    callback = function()
      M.fold(vim.api.nvim_get_current_win())
    end,
  })
end

---The output block at line lnum (1-based): the rows of its summary line and
---closing fence, when lnum is the tool line above the summary, the summary,
---or a line of the block.
---@param buf integer
---@param lnum integer
---@return integer|nil first, integer|nil last
function M.block_at(buf, lnum)
  local get = getter(buf)
  local first
  if is_tool(get(lnum)) then
    first = heads(get, lnum + 1) and lnum + 1 or nil
  else
    -- up to the summary line (a line above it that is no output line ends the search)
    for l = lnum, math.max(1, lnum - 100000), -1 do
      local s = get(l)
      if heads(get, l) then
        first = l
        break
      elseif l < lnum and s ~= "" and s:sub(1, 2) ~= "  " then
        return nil
      end
    end
  end
  if not first then
    return nil
  end
  local ticks = get(first + 1):match(OPENER)
  if not ticks then
    return nil
  end
  local fence = "  " .. ticks
  local n = vim.api.nvim_buf_line_count(buf)
  for l = first + 2, n do
    if get(l) == fence then
      return (l >= lnum) and first or nil, (l >= lnum) and l or nil
    end
  end
  return nil
end

---Open or close the output block at the cursor (on the tool line, the
---summary or the output). Returns false when the cursor is not at one.
---@param bufnr integer
---@return boolean
function M.toggle(bufnr)
  local win = vim.api.nvim_get_current_win()
  if vim.api.nvim_win_get_buf(win) ~= bufnr then
    return false
  end
  local lnum = vim.api.nvim_win_get_cursor(win)[1]
  local closed = vim.fn.foldclosed(lnum)
  local first = M.block_at(bufnr, closed ~= -1 and closed or lnum)
  if not first then
    return false
  end
  if vim.wo[win].foldmethod ~= "expr" or vim.wo[win].foldexpr ~= M.foldexpr then
    M.fold(win)
  end
  if vim.fn.foldclosed(first) ~= -1 then
    vim.cmd(first .. "foldopen")
  else
    vim.cmd(first .. "foldclose")
    vim.api.nvim_win_set_cursor(win, { first, 0 })
  end
  return true
end

return M
