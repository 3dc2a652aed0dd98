local h = require("harness")
local helpers = require("helpers")
local describe, it, assert = h.describe, h.it, h.assert

local chat_lines = {
  "---", "vibing.nvim: true", "session_id: abc-123", "permissions_mode: default", "permissions_allow:", "  - Read(**)",
  "permissions_deny:", "  - Bash(rm:*)", "model: haiku", "---", "", "## User", "", "first question", "", "## Assistant", "",
  "an answer", "· $0.0010 · 1.0 s", "", "## User", "", "",
}

describe("fork", function()
  for _, how in ipairs({ "/fork", ":VibingFork" }) do
    it(how .. " opens a new chat with the rules and transcript, fork_of and no session_id", function()
      local path = helpers.write(vim.fn.getcwd() .. "/.vibing/chat/old.md", chat_lines)
      vim.cmd("edit " .. path)
      local old = vim.api.nvim_get_current_buf()
      if how == "/fork" then
        helpers.say(old, "/fork")
      else
        vim.cmd("VibingFork")
      end
      local buf = vim.api.nvim_get_current_buf()
      assert.truthy(buf ~= old, "a new chat is open")
      assert.truthy(vim.b[buf].vibing_chat)
      local new = vim.api.nvim_buf_get_name(buf)
      assert.equals(vim.fn.fnamemodify(path, ":h"), vim.fn.fnamemodify(new, ":h"), "next to the old chat")
      local want = vim.deepcopy(chat_lines)
      table.remove(want, 3) -- session_id
      table.insert(want, 9, "fork_of: abc-123")
      assert.equals(want, vim.fn.readfile(new))
      assert.equals(chat_lines, vim.fn.readfile(path), "the old chat is unchanged")
      assert.matches("forked into", helpers.last().msg, true)
    end)
  end
  it("refuses a chat without a session", function()
    local buf = helpers.new_chat()
    vim.cmd("VibingFork")
    assert.equals(buf, vim.api.nvim_get_current_buf())
    assert.matches("no session yet", helpers.last().msg, true)
  end)
end)
