---@mod vibing.chat.mentions @path mentions: checked before a message is sent.
---The claude CLI reads every `@path` of a prompt into it by itself (no tool
---call, no permission check), so a message that mentions a file a Read deny
---rule covers is not sent; the person is told which rule, and the message
---stays in the buffer. Allowed mentions get an audit row (source mention).
local M = {}

---Rewrite the `:L10-L20` and `:L10` line suffixes of mentions into the
---form the claude CLI reads (`#L10-20`, `#L10`).
---@param text string
---@return string
function M.rewrite(text)
  text = text:gsub("(@[^%s@]-):L(%d+)%-L?(%d+)", "%1#L%2-%3")
  text = text:gsub("(@[^%s@#]-):L(%d+)", "%1#L%2")
  return text
end

---Whether the message may be sent.
---@param bufnr integer the chat
---@param text string the message
---@param path string the chat file
---@return boolean ok, string|nil why (when not ok)
function M.check(bufnr, text, path)
  if not text:find("@", 1, true) then
    return true
  end
  local fm = require("vibing.chat.frontmatter")
  local res, err = require("vibing.rpc").call("mentions", { lines = (fm.lines(bufnr)), chat = path, cwd = vim.fn.getcwd(), text = text })
  if not res then
    return false, "the message's @-mentions could not be checked, so it was not sent: " .. tostring(err)
  end
  if type(res.denied) == "table" then
    return false, res.denied.message
  end
  return true
end

return M
