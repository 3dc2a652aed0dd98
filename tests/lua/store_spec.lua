local h = require("harness")
local helpers = require("helpers")
local describe, it, assert = h.describe, h.it, h.assert

-- Another process rewrites the chat file behind the editor's back.
local function rewrite(path, fn)
  local lines = vim.fn.readfile(path)
  vim.fn.writefile(fn(lines), path)
end

describe("saving a chat changed on disk", function()
  local store = require("vibing.chat.store")

  it("takes in a rule another process added, keeping the buffer's new message", function()
    local buf, path = helpers.new_chat()
    assert.truthy(store.save(buf))
    rewrite(path, function(lines)
      for i, l in ipairs(lines) do
        if l:match("^permissions_deny:") then
          lines[i] = 'permissions_deny: ["Bash(rm:*)"]'
        end
      end
      return lines
    end)
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "my new message" })
    local ok, err = store.save(buf)
    assert.truthy(ok, err)
    local disk = table.concat(vim.fn.readfile(path), "\n")
    assert.truthy(disk:find('permissions_deny: ["Bash(rm:*)"]', 1, true), disk)
    assert.truthy(disk:find("my new message", 1, true), disk)
  end)

  it("stops, saying why, when the body changed on disk too", function()
    local buf, path = helpers.new_chat()
    assert.truthy(store.save(buf))
    rewrite(path, function(lines)
      table.insert(lines, "appended elsewhere")
      return lines
    end)
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "mine" })
    local ok, err = store.save(buf)
    assert.falsy(ok)
    assert.truthy(err and err:find("changed on disk", 1, true), err)
    local disk = table.concat(vim.fn.readfile(path), "\n")
    assert.truthy(disk:find("appended elsewhere", 1, true), "the other process's line was overwritten")
    assert.falsy(disk:find("mine", 1, true))
  end)

  it("a save of the person's own :write is not a change from elsewhere", function()
    local buf = helpers.new_chat()
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "typed" })
    vim.cmd("silent write!")
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "more" })
    assert.truthy(store.save(buf))
  end)
end)
