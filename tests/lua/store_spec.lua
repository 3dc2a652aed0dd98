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

  it("waits for the chat's lock, held by another writer (run --write-back)", function()
    if vim.fn.executable("flock") == 0 then
      return -- util-linux flock(1) takes the same lock
    end
    local buf, path = helpers.new_chat()
    assert.truthy(store.save(buf))
    local job = vim.fn.jobstart({ "flock", path, "sleep", "0.5" })
    vim.wait(100)
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "after the lock" })
    local t0 = vim.loop.hrtime()
    assert.truthy(store.save(buf))
    local waited = (vim.loop.hrtime() - t0) / 1e6
    vim.fn.jobwait({ job }, 2000)
    assert.truthy(waited > 300, ("the save waited %.0f ms for the lock"):format(waited))
    assert.truthy(table.concat(vim.fn.readfile(path), "\n"):find("after the lock", 1, true))
  end)

  it("a save of the person's own :write is not a change from elsewhere", function()
    local buf = helpers.new_chat()
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "typed" })
    vim.cmd("silent write!")
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "more" })
    assert.truthy(store.save(buf))
  end)
end)

describe("odd files in the chat folder", function()
  it("lists the chats without blocking on a FIFO or reading a device", function()
    local dir = vim.fn.tempname()
    vim.fn.mkdir(dir, "p")
    vim.fn.writefile({ "---", "vibing.nvim: true", "---", "", "## User", "", "hello" }, dir .. "/chat-1.md")
    vim.fn.system({ "mkfifo", dir .. "/fifo.md" })
    assert.equals(0, vim.v.shell_error, "mkfifo")
    vim.loop.fs_symlink("/dev/zero", dir .. "/zero.md")
    -- a writer comes after 2 s: a read that blocked on the FIFO would end then
    local job = vim.fn.jobstart({ "sh", "-c", "sleep 2; echo x > " .. dir .. "/fifo.md" })
    local t0 = vim.loop.hrtime()
    local entries = require("vibing.chat.list").entries(dir)
    local ms = (vim.loop.hrtime() - t0) / 1e6
    vim.fn.jobstop(job)
    assert.truthy(ms < 1500, ("listing took %.0f ms: it waited on the FIFO"):format(ms))
    assert.equals(1, #entries)
    assert.truthy(entries[1].path:find("chat%-1%.md$"), entries[1].path)
    assert.falsy(require("vibing.safefile").readfile(dir .. "/fifo.md"))
    assert.falsy(require("vibing.safefile").readfile(dir .. "/zero.md"))
  end)
end)

describe(":VibingChats", function()
  it("marks forks (fork_of: in the frontmatter) in the list", function()
    local dir = vim.fn.tempname()
    vim.fn.mkdir(dir, "p")
    vim.fn.writefile({ "---", "vibing.nvim: true", "session_id: abc", "---", "", "## User", "", "the original" }, dir .. "/chat-1.md")
    vim.fn.writefile({ "---", "vibing.nvim: true", "fork_of: abc", "---", "", "## User", "", "the fork" }, dir .. "/chat-2.md")
    local list = require("vibing.chat.list")
    local lines = {}
    for _, e in ipairs(list.entries(dir)) do
      lines[e.title] = list.format(e)
    end
    assert.matches("⑂ the fork", lines["the fork"], true)
    assert.falsy(lines["the original"]:find("⑂", 1, true), "the original is no fork")
  end)
end)
