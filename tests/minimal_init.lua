-- Minimal init for headless tests: only this plugin on the runtimepath.
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
-- Kept from the default: Neovim's own <prefix>/lib/nvim folders, where its bundled
-- tree-sitter parsers live (Neovim 0.10+'s markdown and help filetype plugins need
-- them; .deps/bin/nvim-0.12 puts Debian's usr/lib/nvim there).
local rtp = { root, vim.env.VIMRUNTIME }
for _, dir in ipairs(vim.opt.runtimepath:get()) do
  if dir:match("/lib/nvim/?$") then
    table.insert(rtp, dir)
  end
end
vim.opt.runtimepath = rtp
-- Only the packages Neovim ships (0.12 loads netrw as pack/dist/opt/netrw).
vim.opt.packpath = { vim.env.VIMRUNTIME }
vim.opt.swapfile = false
vim.opt.shadafile = "NONE"
vim.g.vibing_test_root = root
