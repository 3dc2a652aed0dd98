---@mod vibing Chat with the claude CLI in Markdown buffers, under a permission layer you control.
local M = {}

local config = require("vibing.config")
local log = require("vibing.log")

---Configure vibing. Unknown keys warn; wrong types are reported and the
---previous options stay in force.
---@param opts vibing.Options|nil
---@return boolean ok
function M.setup(opts)
  local errors, warnings = config.validate(opts)
  for _, w in ipairs(warnings) do
    log.warn(w)
  end
  if #errors > 0 then
    for _, e in ipairs(errors) do
      log.error(e)
    end
    return false
  end
  config.options = config.merge(opts)
  -- A running host has the old options; the next request starts a fresh one.
  require("vibing.rpc").stop()
  return true
end

---The options in force.
---@return vibing.Options
function M.options()
  return config.options
end

---Open a new chat, or the saved chat at path.
---@param path string|nil
function M.chat(path)
  require("vibing.chat").open(path)
end

---A short status for statuslines: the chat's own ("" when idle, else e.g.
---"vibing: running" or "vibing: waiting for your approval"), or, outside a
---busy chat, how many approvals wait in other chats; and, second, the count
---of approvals waiting across every chat.
---@param bufnr integer|nil default: the current buffer
---@return string text, integer pending
function M.status(bufnr)
  local run = package.loaded["vibing.chat.run"]
  if not run then
    return "", 0 -- nothing was ever sent: do not load the chat code for a statusline
  end
  local n = require("vibing.ui.approval").total()
  local text = run.status(bufnr)
  if text == "" and n > 0 then
    text = ("vibing: %d approval%s waiting"):format(n, n > 1 and "s" or "")
  end
  return text, n
end

---Cancel the running message of a chat.
---@param bufnr integer|nil default: the current buffer
function M.cancel(bufnr)
  require("vibing.chat.run").cancel((bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr)
end

return M
