---@mod vibing.log Messages to the person, all through vim.notify.
local M = {}

local function send(msg, level)
  vim.notify("vibing: " .. msg, level, { title = "vibing" })
end

---@param msg string
function M.info(msg)
  send(msg, vim.log.levels.INFO)
end

---@param msg string
function M.warn(msg)
  send(msg, vim.log.levels.WARN)
end

---@param msg string
function M.error(msg)
  send(msg, vim.log.levels.ERROR)
end

return M
