---@mod vibing.chat.send Sending a User section: checks, then a run (vibing.chat.run).
---The reply streams under `## Assistant`; tool calls become compact lines;
---approvals are asked in the buffer (vibing.ui.approval); the session id,
---"always" rules and session grants are kept in the chat.
local M = {}

local grants = require("vibing.permissions.grants")
local log = require("vibing.log")
local run = require("vibing.chat.run")

M.running = run.running
M.status = run.status
M.command = run.command
M.cancel = run.cancel
M.list = run.list
M.grants = grants.list
M.clear_grants = grants.clear

---The text of the last User section (blank lines around it dropped).
---@param bufnr integer
---@return string|nil
function M.prompt(bufnr)
  local first, last = require("vibing.chat").last_user_section(bufnr)
  if not first then
    return nil
  end
  local text = vim.trim(table.concat(vim.api.nvim_buf_get_lines(bufnr, first - 1, last, false), "\n"))
  return text ~= "" and text or nil
end

---Send the last User section of the chat to the agent.
---@param bufnr integer
function M.send(bufnr)
  if run.running(bufnr) then
    run.queue(bufnr)
    log.info("queued: the message is sent once the reply being written is done (cancel that one with " .. (require("vibing").options().keymaps.cancel or ":VibingCancel") .. ")")
    return
  end
  local prompt = M.prompt(bufnr)
  if not prompt then
    log.info("the User section is empty: type a message or a slash command (/help)")
    return
  end
  local path = vim.api.nvim_buf_get_name(bufnr)
  if path == "" then
    log.error("this chat has no file: save it first (:write .vibing/chat/name.md), then send")
    return
  end
  local mentions = require("vibing.chat.mentions")
  prompt = mentions.rewrite(prompt)
  local sendable, why_not = mentions.check(bufnr, prompt, path)
  if not sendable then
    log.error(why_not)
    return
  end
  run.start(bufnr, prompt, path)
end

return M
