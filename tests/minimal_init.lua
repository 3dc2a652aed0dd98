-- Minimal init for headless tests: only this plugin on the runtimepath.
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.runtimepath = { root, vim.env.VIMRUNTIME }
-- Neovim 0.12 unpacked from Debian keeps its tree-sitter parsers in
-- usr/lib/nvim, outside VIMRUNTIME: the test runner may name that folder.
if vim.env.VIBING_TEST_RTP and vim.env.VIBING_TEST_RTP ~= "" then
  vim.opt.runtimepath:append(vim.env.VIBING_TEST_RTP)
end
vim.opt.packpath = {}
vim.opt.swapfile = false
vim.opt.shadafile = "NONE"
vim.g.vibing_test_root = root
