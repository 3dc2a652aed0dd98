local h = require("harness")
local helpers = require("helpers")
local describe, it, assert = h.describe, h.it, h.assert

local function lines(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
end

-- Send "fix the bug" in buf and wait for the run to end.
local function send_and_wait(buf)
  helpers.say(buf, "fix the bug")
  assert.truthy(vim.wait(20000, function()
    return vim.b[buf].vibing_runs == 1
  end, 10), "the run ended")
end

local function assert_kept(buf, why)
  local text = lines(buf)
  assert.matches("\n## User\n\nfix the bug$", text, false, "the message stays the User section")
  assert.falsy(text:find("## Assistant", 1, true), "no reply header is left behind")
  assert.equals("", require("vibing").status(buf))
  assert.matches("the message was not sent (it is kept): ", helpers.last().msg, true)
  assert.matches(why, helpers.last().msg, true)
  assert.equals(vim.log.levels.ERROR, helpers.last().level)
  local errors = 0
  for _, n in ipairs(helpers.notes) do
    errors = errors + (n.level == vim.log.levels.ERROR and 1 or 0)
  end
  assert.equals(1, errors, "told once")
end

describe("a send that fails keeps the typed message", function()
  it("when vibing-agent is not built", function()
    require("vibing").setup({ bin = vim.fn.getcwd() .. "/nowhere/vibing-agent" })
    local buf = helpers.new_chat()
    send_and_wait(buf)
    assert_kept(buf, "vibing-agent not found")
  end)
  it("when the claude CLI is missing", function()
    require("vibing").setup({ claude_cmd = vim.fn.getcwd() .. "/nowhere/claude" })
    local buf = helpers.new_chat()
    send_and_wait(buf)
    assert_kept(buf, "claude CLI not found")
  end)
  it("when the frontmatter is not valid YAML", function()
    require("vibing").setup({ backend = "demo" })
    local buf, path = helpers.new_chat()
    vim.cmd("write")
    local fm = vim.fn.readfile(path)
    for i, l in ipairs(fm) do
      if l:match("^permissions_deny:") then
        fm[i] = "permissions_deny: [Bash(rm"
      end
    end
    vim.fn.writefile(fm, path)
    vim.cmd("edit! " .. vim.fn.fnameescape(path))
    buf = vim.api.nvim_get_current_buf()
    send_and_wait(buf)
    assert_kept(buf, "YAML")
    local text = lines(buf)
    assert.matches("permissions_deny: [Bash(rm", text, true, "the frontmatter is left as it was")
  end)
end)
