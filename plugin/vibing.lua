-- vibing: user commands only; the code loads on first use.
if vim.g.loaded_vibing then
  return
end
vim.g.loaded_vibing = true

local cmd = vim.api.nvim_create_user_command
cmd("VibingChat", function(a)
  if a.range > 0 and a.args == "" then
    require("vibing.chat.context").chat_from_selection(a)
  else
    require("vibing.chat").open(a.args)
  end
end, { nargs = "?", range = true, complete = "file", desc = "vibing: open a new chat (with the selection), or a saved one" })
cmd("VibingAdd", function(a)
  require("vibing.chat.context").add(a)
end, { nargs = "?", range = true, complete = "file", desc = "vibing: add a file or the selection to the chat's next message" })
cmd("VibingChats", function()
  require("vibing.chat.list").pick()
end, { desc = "vibing: find a saved chat, open or delete it" })
cmd("VibingPermissions", function()
  require("vibing.ui.views").permissions()
end, { desc = "vibing: the effective permissions of this chat" })
cmd("VibingTrust", function(a)
  require("vibing.permissions.trust").run(a.args ~= "" and a.args or nil)
end, { nargs = "?", complete = "dir", desc = "vibing: trust this project's policy files (their allow rules apply)" })
cmd("VibingAudit", function(a)
  require("vibing.ui.views").audit(a.args)
end, { nargs = "?", complete = "file", desc = "vibing: recent audit rows" })

cmd("VibingApprovals", function()
  require("vibing.ui.approval").list()
end, { desc = "vibing: approvals waiting across chats; pick one to jump to it" })

cmd("VibingCancel", function()
  require("vibing").cancel(0)
end, { desc = "vibing: cancel the running message of this chat" })

-- Chat files work however they are opened: read from disk, given a markdown
-- filetype later, or already open when a plugin manager loads this file late
-- (lazy.nvim's ft/cmd/keys triggers).
local function attach(buf)
  if vim.api.nvim_buf_is_loaded(buf) and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == "---" then
    require("vibing.chat").maybe_attach(buf)
  end
end
local group = vim.api.nvim_create_augroup("vibing", { clear = true })
vim.api.nvim_create_autocmd("BufReadPost", {
  group = group,
  pattern = "*.md",
  desc = "vibing: attach to chat files",
  callback = function(a)
    attach(a.buf)
  end,
})
vim.api.nvim_create_autocmd("FileType", {
  group = group,
  pattern = "markdown",
  desc = "vibing: attach to chat files",
  callback = function(a)
    attach(a.buf)
  end,
})
for _, buf in ipairs(vim.api.nvim_list_bufs()) do
  if vim.api.nvim_buf_get_name(buf):match("%.md$") then
    attach(buf)
  end
end
