local h = require("harness")
local helpers = require("helpers")
local describe, it, assert = h.describe, h.it, h.assert

-- Run the demo tour, allowing only its Edit of hello.py (Bash is allowed too
-- when allow_bash); returns the chat buffer.
local function tour(allow_bash)
  require("vibing").setup({ backend = "demo" })
  local buf = helpers.new_chat()
  helpers.say(buf, "please refactor")
  local approval = require("vibing.ui.approval")
  local done = vim.wait(20000, function()
    local p = approval.active(buf)
    if p and not p.answered then
      local tool = p.req.tool
      approval.answer(buf, (tool == "Edit" or (allow_bash and tool == "Bash")) and "allow_once" or "deny_once")
    end
    return vim.b[buf].vibing_runs == 1
  end, 10)
  assert.truthy(done, "the run ended")
  return buf
end

local function lines(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
end

describe("buffers of files the agent edited", function()
  it("are reloaded after its Edit, so saving them cannot revert it", function()
    local path = vim.fn.getcwd() .. "/hello.py"
    vim.fn.writefile({ "def greet(name):", '    print("Hello, " + name)', "", 'greet("world")' }, path)
    vim.cmd("edit " .. path)
    local file = vim.api.nvim_get_current_buf()
    vim.cmd("setglobal noautoread") -- Neovim's default is on; the check works without it
    local before = vim.fn.getbufvar(file, "&autoread")
    vim.cmd("enew")
    tour(false)
    vim.cmd("setglobal autoread")
    assert.matches('greet("vibing")', helpers.read(path), true, "the demo edited the file")
    assert.matches('greet("vibing")', lines(file), true, "the open buffer shows the edit")
    assert.falsy(vim.bo[file].modified)
    assert.equals(before, vim.fn.getbufvar(file, "&autoread"), "autoread only for the check")
    vim.api.nvim_buf_call(file, function()
      vim.cmd("write")
    end)
    assert.matches('greet("vibing")', helpers.read(path), true, "saving the buffer keeps the edit")
  end)
  it("are checked after a Bash call", function()
    local path = vim.fn.getcwd() .. "/hello.py"
    vim.fn.writefile({ 'greet("world")' }, path)
    vim.fn.writefile({ "old" }, vim.fn.getcwd() .. "/other.txt")
    vim.cmd("edit " .. vim.fn.getcwd() .. "/other.txt")
    local other = vim.api.nvim_get_current_buf()
    local checked = {}
    vim.cmd("augroup vibing_reload_spec | autocmd! | augroup END")
    vim.api.nvim_create_autocmd("FileChangedShellPost", { group = "vibing_reload_spec", callback = function(a)
      checked[a.buf] = true
    end })
    vim.cmd("enew")
    -- changed behind the editor's back, as a Bash command would
    vim.fn.writefile({ "new", "longer" }, vim.fn.getcwd() .. "/other.txt")
    tour(true)
    vim.cmd("augroup vibing_reload_spec | autocmd! | augroup END")
    assert.equals("new\nlonger", lines(other), "reloaded after the Bash call")
    assert.truthy(checked[other])
  end)
  it("with unsaved changes are not overwritten (Neovim's FileChangedShell rules apply)", function()
    local path = vim.fn.getcwd() .. "/hello.py"
    vim.fn.writefile({ 'greet("world")' }, path)
    vim.cmd("edit " .. path)
    local file = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_lines(file, 0, -1, false, { 'greet("mine")', 'greet("world")' })
    local reason
    vim.cmd("augroup vibing_reload_spec | autocmd! | augroup END")
    vim.api.nvim_create_autocmd("FileChangedShell", { group = "vibing_reload_spec", callback = function()
      reason = vim.v.fcs_reason
      vim.v.fcs_choice = "" -- what the W12 prompt's OK does: keep the buffer
    end })
    vim.cmd("enew")
    tour(false)
    vim.cmd("augroup vibing_reload_spec | autocmd! | augroup END")
    assert.matches('greet("vibing")', helpers.read(path), true, "the demo edited the file")
    assert.equals("conflict", reason, "Neovim was told: changed on disk and in the buffer (W12)")
    assert.equals('greet("mine")\ngreet("world")', lines(file), "the unsaved text stays")
    assert.truthy(vim.bo[file].modified)
  end)
end)
