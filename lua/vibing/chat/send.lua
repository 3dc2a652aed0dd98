---@mod vibing.chat.send Sending a User section to the agent.
local M = {}

---Send the last User section of the chat to the agent. The agent turn
---arrives in the next release; until then this says so.
---@param bufnr integer
function M.send(bufnr)
  local _ = bufnr
  require("vibing.log").info("sending messages to the agent arrives in the next release; slash commands (/help) work now")
end

return M
