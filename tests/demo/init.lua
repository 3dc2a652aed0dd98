-- Neovim init for `make demo` (scripts/demo.sh): the plugin from this checkout,
-- the scripted demo agent, and a banner that says so. With
-- $VIBING_DEMO_HEADLESS set it answers the prompts itself (tests/demo/script.lua)
-- and exits when the demo chat has run to completion.
local root = vim.env.VIBING_DEMO_ROOT or vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h")
vim.opt.runtimepath:prepend(root)
vim.opt.swapfile = false
vim.opt.shadafile = "NONE"

local headless = (vim.env.VIBING_DEMO_HEADLESS or "") ~= ""
local ok = require("vibing").setup({
  backend = "demo",
  bin = vim.env.VIBING_DEMO_BIN or (root .. "/bin/vibing-agent"),
  approval_timeout_s = headless and 20 or 120,
})
if not ok then
  io.stderr:write("demo: vibing setup failed\n")
  vim.cmd("cquit 1")
end

local banner = {
  " vibing DEMO: a scripted agent, no API key, nothing sent to a model ",
  " <CR> sends the message · y n s S a A answer prompts · <C-c> cancels ",
  " try /allow, /deny, /permissions, :VibingPermissions, :VibingAudit ",
  " this is a throwaway project in " .. vim.fn.getcwd() .. " · :qa quits ",
}

if headless then
  io.stdout:write(table.concat(banner, "\n") .. "\n")
  dofile(root .. "/tests/demo/script.lua")
  return
end

vim.api.nvim_create_autocmd("VimEnter", {
  group = vim.api.nvim_create_augroup("vibing_demo", { clear = true }),
  desc = "vibing demo: banner",
  callback = function()
    local width = 0
    for _, l in ipairs(banner) do
      width = math.max(width, vim.fn.strdisplaywidth(l))
    end
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, banner)
    local win = vim.api.nvim_open_win(buf, false, {
      relative = "editor",
      anchor = "NE",
      row = 0,
      col = vim.o.columns,
      width = math.min(width, vim.o.columns - 2),
      height = #banner,
      style = "minimal",
      border = "rounded",
      focusable = false,
      zindex = 50,
    })
    vim.api.nvim_set_hl(0, "VibingDemoBanner", { link = "WarningMsg", default = true })
    for i = 0, #banner - 1 do
      vim.api.nvim_buf_add_highlight(buf, -1, "VibingDemoBanner", i, 0, -1)
    end
    -- The banner would cover the reply: it goes when the first message is sent
    -- (the chat itself still says it is a demo).
    vim.api.nvim_create_autocmd("User", {
      group = "vibing_demo",
      pattern = "VibingRunStart",
      once = true,
      desc = "vibing demo: close the banner",
      callback = function()
        if vim.api.nvim_win_is_valid(win) then
          vim.api.nvim_win_close(win, true)
        end
      end,
    })
    vim.cmd("normal! G")
    vim.notify("vibing: this is a DEMO (scripted agent, no API key). Press <CR> to send the message.", vim.log.levels.INFO)
  end,
})
