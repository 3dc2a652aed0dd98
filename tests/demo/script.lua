-- The headless demo (VIBING_DEMO_HEADLESS=1 scripts/demo.sh): presses the keys a
-- person would, prints the chat, and exits 0 when both messages ran to the end.
--
--   message 1 (the tour): Edit → a<CR> (always allow the suggested rule),
--                         Bash → s (allow for this session), WebFetch → n (deny),
--                         Write → y (allow once: the diff preview)
--   message 2 ("again", the same live agent): Edit and cat run without a prompt,
--                         thanks to the rule and the session grant from message 1;
--                         the new grep asks again → y (allow once).
local answers = {
  { Edit = "a<CR>", Bash = "s", WebFetch = "n", Write = "y" },
  { Bash = "y" },
}
local log = {}
local sent = 0
local failed = false

local function out(s)
  io.stdout:write(s .. "\n")
end

local function quit()
  local buf = vim.api.nvim_get_current_buf()
  out("----- the chat -----")
  out(table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"))
  out("----- answers -----")
  out(table.concat(log, "\n"))
  vim.cmd(failed and "cquit 1" or "qa!")
end

local function press(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), "m", false)
end

local group = vim.api.nvim_create_augroup("vibing_demo_script", { clear = true })
vim.api.nvim_create_autocmd("User", {
  group = group,
  pattern = "VibingApproval",
  desc = "vibing demo: answer the prompt",
  callback = function()
    vim.schedule(function()
      local p = require("vibing.ui.approval").active(vim.api.nvim_get_current_buf())
      if not p or p.answered then
        return
      end
      local keys = (answers[sent] or {})[p.req.tool] or "n"
      table.insert(log, ("message %d: %s %s → %s"):format(sent, p.req.tool, p.req.id, keys))
      -- the answer keys act inside the block, where a person moves to answer
      require("vibing.ui.approval").focus(vim.api.nvim_get_current_buf())
      press(keys)
    end)
  end,
})
vim.api.nvim_create_autocmd("User", {
  group = group,
  pattern = "VibingRunDone",
  desc = "vibing demo: next message or quit",
  callback = function()
    vim.schedule(function()
      local buf = vim.api.nvim_get_current_buf()
      if vim.b[buf].vibing_last_run ~= "result" then
        out("demo: the run ended with " .. tostring(vim.b[buf].vibing_last_run))
        failed = true
        return quit()
      end
      if sent == 1 then
        sent = 2
        local n = vim.api.nvim_buf_line_count(buf)
        vim.api.nvim_buf_set_lines(buf, n - 1, n, false, { "Do it again, please." })
        press("G<CR>")
        return
      end
      quit()
    end)
  end,
})
vim.api.nvim_create_autocmd("VimEnter", {
  group = group,
  desc = "vibing demo: send the first message",
  callback = function()
    vim.schedule(function()
      sent = 1
      press("G<CR>")
    end)
  end,
})
-- A demo that hangs is a failure, not a stuck test.
vim.defer_fn(function()
  out("demo: did not finish within 60 s")
  failed = true
  quit()
end, 60000)
