-- vibing: user commands only; the code loads on first use.
if vim.g.loaded_vibing then
  return
end
vim.g.loaded_vibing = true

local cmd = vim.api.nvim_create_user_command
cmd("VibingChat", function(a)
  require("vibing.chat").open(a.args)
end, { nargs = "?", complete = "file", desc = "vibing: open a new chat, or a saved one" })
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

vim.api.nvim_create_autocmd("BufReadPost", {
  group = vim.api.nvim_create_augroup("vibing", { clear = true }),
  pattern = "*.md",
  desc = "vibing: attach to chat files",
  callback = function(a)
    if vim.api.nvim_buf_get_lines(a.buf, 0, 1, false)[1] == "---" then
      require("vibing.chat").maybe_attach(a.buf)
    end
  end,
})
