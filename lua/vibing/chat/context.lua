---@mod vibing.chat.context :VibingAdd — files and selections into a chat's next message.
local M = {}

local last_chat -- the chat buffer used last (set when a chat buffer is entered)

---Remember bufnr as the chat :VibingAdd adds to.
---@param bufnr integer
function M.touch(bufnr)
  last_chat = bufnr
end

---The chat to add to: the current buffer when it is a chat, else the chat
---used last that is still loaded, else a chat shown in a window.
---@return integer|nil
function M.target()
  local chat = require("vibing.chat")
  local cur = vim.api.nvim_get_current_buf()
  if chat.is_chat(cur) then
    return cur
  end
  if last_chat and vim.api.nvim_buf_is_loaded(last_chat) and chat.is_chat(last_chat) then
    return last_chat
  end
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    local b = vim.api.nvim_win_get_buf(w)
    if chat.is_chat(b) then
      return b
    end
  end
  return nil
end

---A path as the chat names it: relative to the current directory when inside it.
---@param path string
---@return string
function M.relative(path)
  local rel = vim.fn.fnamemodify(path, ":.")
  return rel ~= "" and rel or path
end

---The lines that add a file or a selection to a message.
---@param path string
---@param lines string[]|nil the selected lines (nil: the whole file, as a mention)
---@param first integer|nil
---@param last integer|nil
---@param ft string|nil the selection's filetype (for the fence)
---@return string[]
function M.snippet(path, lines, first, last, ft)
  local rel = M.relative(path)
  if not lines then
    return { "@" .. rel }
  end
  local fence = "```"
  for _, l in ipairs(lines) do
    while l:find(fence, 1, true) do
      fence = fence .. "`"
    end
  end
  local out = { ("From `%s` lines %d-%d:"):format(rel, first, last), fence .. (ft or "") }
  vim.list_extend(out, lines)
  table.insert(out, fence)
  return out
end

---Append lines to the end of the chat's last User section.
---@param bufnr integer
---@param lines string[]
function M.append(bufnr, lines)
  local chat = require("vibing.chat")
  local first, last = chat.last_user_section(bufnr)
  if not first then
    vim.api.nvim_buf_set_lines(bufnr, -1, -1, false, { "", "## User", "" })
    first, last = chat.last_user_section(bufnr)
  end
  -- after the last non-blank line of the section (the blank lines after it
  -- are replaced): one blank line, then the new lines
  local from = first - 1
  for i = last, first, -1 do
    local l = vim.api.nvim_buf_get_lines(bufnr, i - 1, i, false)[1]
    if l and l:match("%S") then
      from = i
      break
    end
  end
  local text = { "" }
  vim.list_extend(text, lines)
  if (lines[#lines] or ""):match("^```") then
    -- an empty line to type on: text typed on the fence's line would open a new block
    table.insert(text, "")
  end
  vim.api.nvim_buf_set_lines(bufnr, from, last, false, text)
end

---:VibingAdd [file] and :'<,'>VibingAdd.
---@param a table the user command's arguments (args, range, line1, line2)
function M.add(a)
  local log = require("vibing.log")
  local src = vim.api.nvim_get_current_buf()
  local target = M.target()
  local lines
  if a.args ~= "" then
    local file = vim.fn.expand(a.args)
    if vim.fn.filereadable(file) == 0 then
      log.error("no file at " .. a.args)
      return
    end
    lines = M.snippet(vim.fn.fnamemodify(file, ":p"))
  else
    local name = vim.api.nvim_buf_get_name(src)
    if name == "" then
      log.error(":VibingAdd needs a file: this buffer has no name")
      return
    end
    if target == src then
      log.warn(":VibingAdd adds another file or a selection to this chat: :VibingAdd path/to/file")
      return
    end
    if a.range and a.range > 0 then
      lines = M.snippet(name, vim.api.nvim_buf_get_lines(src, a.line1 - 1, a.line2, false), a.line1, a.line2, vim.bo[src].filetype)
    else
      lines = M.snippet(name)
    end
  end
  if not target then
    require("vibing.chat").open()
    target = vim.api.nvim_get_current_buf()
  end
  M.append(target, lines)
  log.info(("Added %s to the next message of %s."):format(lines[1]:gsub("^From ", ""):gsub(":$", ""), vim.fn.fnamemodify(vim.api.nvim_buf_get_name(target), ":t")))
end

---:'<,'>VibingChat — a new chat that starts with the selection.
---@param a table
function M.chat_from_selection(a)
  local src = vim.api.nvim_get_current_buf()
  local name = vim.api.nvim_buf_get_name(src)
  local lines = vim.api.nvim_buf_get_lines(src, a.line1 - 1, a.line2, false)
  local ft = vim.bo[src].filetype
  require("vibing.chat").open()
  local target = vim.api.nvim_get_current_buf()
  if name ~= "" and require("vibing.chat").is_chat(target) then
    M.append(target, M.snippet(name, lines, a.line1, a.line2, ft))
    vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(target), 0 })
  end
end

return M
