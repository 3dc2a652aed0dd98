---@mod vibing.complete Completion of slash commands, tool names, modes and presets (omnifunc).
local M = {}

---Candidates for the word being typed on a slash line.
---@param line string text of the line before the cursor
---@return integer|nil start 0-based column where the word starts
---@return string[] candidates
function M.candidates(line)
  local at = line:match("@([^%s@]*)$")
  if at and not line:match("^%s*/") then
    -- an @path mention: project files and folders
    local start = #line - #at - 1
    local out = {}
    for _, p in ipairs(vim.fn.getcompletion(at, "file")) do
      table.insert(out, "@" .. p)
    end
    return start, out
  end
  if not line:match("^%s*/") then
    return nil, {}
  end
  local indent = #line:match("^%s*")
  local cmd = line:match("^%s*/([%w%-_]*)$")
  if cmd then
    local out = {}
    for _, name in ipairs(require("vibing.slash").names()) do
      table.insert(out, "/" .. name)
    end
    return indent, out
  end
  local name = line:match("^%s*/([%w%-_]+)%s")
  local word_start = #line - #(line:match("[^%s]*$"))
  local word = line:sub(word_start + 1)
  if word:sub(1, 1) == "-" then
    word_start = word_start + 1
  end
  local out = {}
  if name == "permission" then
    out = vim.deepcopy(require("vibing.config").modes)
  elseif name == "model" then
    out = vim.deepcopy(require("vibing.slash").models)
  elseif name == "allow" or name == "ask" or name == "deny" or name == "preset" then
    local info = require("vibing.rpc").info()
    if type(info) == "table" then
      local list = name == "preset" and info.presets or info.tools
      out = type(list) == "table" and vim.deepcopy(list) or {}
    end
  end
  return word_start, out
end

---'omnifunc' of chat buffers.
---@param findstart integer
---@param base string
---@return integer|string[]
function M.omnifunc(findstart, base)
  local line = vim.api.nvim_get_current_line():sub(1, vim.api.nvim_win_get_cursor(0)[2])
  if findstart == 1 then
    local start = M.candidates(line)
    return start or -3
  end
  local _, all = M.candidates(line)
  local out = {}
  local lb = base:lower()
  for _, c in ipairs(all) do
    if c:lower():sub(1, #lb) == lb then
      table.insert(out, c)
    end
  end
  return out
end

return M
