-- Entry point: load the specs, run them, exit non-zero on failure.
local root = vim.g.vibing_test_root
package.path = root .. "/tests/lua/?.lua;" .. package.path
local h = require("harness")
local helpers = require("helpers")
helpers.install(h)

local specs = vim.env.VIBING_TEST_SPECS
local files = {}
if specs and specs ~= "" then
  files = vim.split(specs, "%s+", { trimempty = true })
else
  files = vim.fn.glob(root .. "/tests/lua/*_spec.lua", false, true)
  table.sort(files)
end
for _, f in ipairs(files) do
  local ok, err = pcall(dofile, f)
  if not ok then
    io.stdout:write("FAIL loading " .. f .. ": " .. tostring(err) .. "\n")
    vim.cmd("cquit 1")
  end
end
local failed = h.run()
if failed > 0 then
  vim.cmd("cquit 1")
end
vim.cmd("qa!")
