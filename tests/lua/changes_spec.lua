local h = require("harness")
local helpers = require("helpers")
local changes = require("vibing.chat.changes")
local describe, it, assert = h.describe, h.it, h.assert

local hello = { "def greet(name):", '    print("Hello, " + name)', "", 'greet("world")' }

-- Run the demo tour in a new chat, allowing its Edit of hello.py and its
-- Write of README.md (a new file when there is none); returns the chat.
local function tour()
  require("vibing").setup({ backend = "demo" })
  local buf = helpers.new_chat()
  helpers.say(buf, "please refactor")
  local approval = require("vibing.ui.approval")
  local done = vim.wait(20000, function()
    local p = approval.active(buf)
    if p and not p.answered then
      local tool = p.req.tool
      approval.answer(buf, (tool == "Edit" or tool == "Write") and "allow_once" or "deny_once")
    end
    return vim.b[buf].vibing_runs == 1
  end, 10)
  assert.truthy(done, "the run ended")
  return buf
end

-- The row (1-based) of the first line of buf matching pattern.
local function row_of(buf, pattern)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if l:match(pattern) then
      return i
    end
  end
  return nil
end

-- Put the cursor of the chat's window on its line matching pattern.
local function cursor_on(buf, pattern)
  local row = row_of(buf, pattern)
  assert.truthy(row, "a line matches " .. pattern)
  vim.api.nvim_set_current_buf(buf)
  vim.api.nvim_win_set_cursor(0, { row, 0 })
end

local function stub_confirm(answer)
  local asked = {}
  local real = vim.fn.confirm
  vim.fn.confirm = function(msg)
    table.insert(asked, msg)
    return answer
  end
  return asked, function()
    vim.fn.confirm = real
  end
end

describe("what the turn changed", function()
  it("is listed under the answer: the edited file and the new one", function()
    helpers.write(vim.fn.getcwd() .. "/hello.py", hello)
    local buf = tour()
    local head = row_of(buf, "^Modified files · ")
    assert.truthy(head, "a Modified files list")
    local lines = vim.api.nvim_buf_get_lines(buf, head - 1, head + 2, false)
    assert.matches("· gd diff · gr revert · gR revert all · ../turns/", lines[1], true)
    assert.equals("  hello.py", lines[2])
    assert.equals("  README.md (new)", lines[3])
    local after = vim.api.nvim_buf_get_lines(buf, head + 2, head + 3, false)[1]
    assert.falsy(after and after:match("^  %S"), "two files listed")
  end)

  it("is a block of its own: a blank line parts it from the answer's last text", function()
    helpers.write(vim.fn.getcwd() .. "/hello.py", hello)
    local buf = tour()
    local head = row_of(buf, "^Modified files · ")
    assert.truthy(head, "a Modified files list")
    assert.equals("", vim.api.nvim_buf_get_lines(buf, head - 2, head - 1, false)[1])
    assert.truthy(vim.api.nvim_buf_get_lines(buf, head - 3, head - 2, false)[1] ~= "", "one blank line")
  end)

  it("gd shows a file's diff against its content before the turn", function()
    helpers.write(vim.fn.getcwd() .. "/hello.py", hello)
    local buf = tour()
    cursor_on(buf, "^  hello%.py$")
    local tabs = #vim.api.nvim_list_tabpages()
    vim.cmd("normal gd")
    assert.equals(tabs + 1, #vim.api.nvim_list_tabpages(), "a new tab")
    local wins = vim.api.nvim_tabpage_list_wins(0)
    assert.equals(2, #wins)
    local left, right = vim.api.nvim_win_get_buf(wins[1]), vim.api.nvim_win_get_buf(wins[2])
    assert.equals(vim.fn.getcwd() .. "/hello.py", vim.api.nvim_buf_get_name(right), "the file on the right")
    assert.truthy(vim.api.nvim_win_get_option(wins[1], "diff"), "diff mode")
    assert.truthy(vim.api.nvim_win_get_option(wins[2], "diff"), "diff mode")
    assert.equals(table.concat(hello, "\n"), table.concat(vim.api.nvim_buf_get_lines(left, 0, -1, false), "\n"), "the old side")
    assert.equals("nofile", vim.bo[left].buftype)
    assert.falsy(vim.bo[left].modifiable, "the old side is read-only")
    assert.equals("python", vim.bo[left].filetype)
    assert.matches('greet("vibing")', table.concat(vim.api.nvim_buf_get_lines(right, 0, -1, false), "\n"), true)
    vim.cmd("tabclose")
    -- a created file: an empty old side
    cursor_on(buf, "^  README%.md %(new%)$")
    vim.cmd("normal gd")
    wins = vim.api.nvim_tabpage_list_wins(0)
    assert.equals("", table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(wins[1]), 0, -1, false), ""))
    vim.cmd("tabclose")
  end)

  it("gr reverts one file and reloads its open buffer; gR the rest (a new file is deleted)", function()
    local path = helpers.write(vim.fn.getcwd() .. "/hello.py", hello)
    vim.cmd("edit " .. path)
    local file = vim.api.nvim_get_current_buf()
    vim.cmd("enew")
    local buf = tour()
    assert.matches('greet("vibing")', table.concat(vim.api.nvim_buf_get_lines(file, 0, -1, false), "\n"), true)
    local asked, restore = stub_confirm(1)
    cursor_on(buf, "^  hello%.py$")
    vim.cmd("normal gr")
    assert.equals(table.concat(hello, "\n") .. "\n", helpers.read(path), "hello.py as before the turn")
    assert.equals(table.concat(hello, "\n"), table.concat(vim.api.nvim_buf_get_lines(file, 0, -1, false), "\n"), "its buffer reloaded")
    local function reverted()
      local out = {}
      for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, changes.marks, 0, -1, { details = true })) do
        out[#out + 1] = vim.api.nvim_buf_get_lines(buf, m[2], m[2] + 1, false)[1] .. " " .. m[4].virt_text[1][1]
      end
      return table.concat(out, "|")
    end
    assert.equals("  hello.py ← reverted", reverted(), "the reverted line is marked, the chat's text unchanged")
    assert.truthy(vim.loop.fs_stat(vim.fn.getcwd() .. "/README.md"), "gr left the other file")
    cursor_on(buf, "^Modified files")
    vim.cmd("normal gR")
    assert.falsy(vim.loop.fs_stat(vim.fn.getcwd() .. "/README.md"), "the created file is deleted")
    assert.equals(0, #asked, "nothing changed after the turn: no question")
    assert.equals("  hello.py ← reverted|  README.md (new) ← reverted", reverted())
    assert.matches("already as it was before the turn", helpers.notified(), true)
    restore()
  end)

  it("asks before reverting a file the person changed after the turn", function()
    local path = helpers.write(vim.fn.getcwd() .. "/hello.py", hello)
    local buf = tour()
    helpers.write(path, { "mine" })
    local asked, restore = stub_confirm(2) -- Cancel
    cursor_on(buf, "^  hello%.py$")
    vim.cmd("normal gr")
    assert.equals(1, #asked)
    assert.matches("hello.py changed after the turn", asked[1], true)
    assert.matches("would be lost", asked[1], true)
    assert.equals("mine\n", helpers.read(path), "kept when the person says no")
    restore()
    -- unsaved changes in a buffer count too
    helpers.write(path, hello)
    vim.cmd("edit " .. path)
    local file = vim.api.nvim_get_current_buf()
    local head = row_of(buf, "^Modified files")
    vim.cmd("normal! G")
    vim.api.nvim_buf_set_lines(file, 0, -1, false, { "unsaved" })
    asked, restore = stub_confirm(1)
    cursor_on(buf, "^  hello%.py$")
    vim.cmd("normal gr")
    restore()
    assert.truthy(head)
    assert.equals(0, #asked, "already as before the turn: nothing to ask")
    helpers.write(path, { "changed" })
    asked, restore = stub_confirm(1) -- Revert
    vim.cmd("normal gr")
    restore()
    assert.equals(1, #asked)
    assert.matches("unsaved changes", asked[1], true)
    -- the question says what happens to each: the buffer keeps its changes, the disk's are lost
    assert.matches("its buffer keeps your unsaved changes", asked[1], true)
    assert.matches("Changes made on disk after the turn would be lost.", asked[1], true)
    assert.equals(table.concat(hello, "\n") .. "\n", helpers.read(path), "reverted once the person agreed")
    assert.equals("unsaved", vim.api.nvim_buf_get_lines(file, 0, -1, false)[1], "the unsaved buffer is not clobbered")
  end)

  it("works after the chat is reopened", function()
    local path = helpers.write(vim.fn.getcwd() .. "/hello.py", hello)
    local buf = tour()
    local chat = vim.api.nvim_buf_get_name(buf)
    vim.cmd("bwipeout! " .. buf)
    vim.cmd("edit " .. vim.fn.fnameescape(chat))
    buf = vim.api.nvim_get_current_buf()
    local _, restore = stub_confirm(1)
    cursor_on(buf, "^  hello%.py$")
    vim.cmd("normal gr")
    restore()
    assert.equals(table.concat(hello, "\n") .. "\n", helpers.read(path))
  end)

  it("keys outside a list do what Neovim does", function()
    helpers.write(vim.fn.getcwd() .. "/hello.py", hello)
    local buf = tour()
    cursor_on(buf, "^## User")
    local tabs = #vim.api.nvim_list_tabpages()
    vim.cmd("normal gd")
    vim.cmd("normal gR")
    assert.equals(tabs, #vim.api.nvim_list_tabpages())
    assert.equals("buffer", vim.api.nvim_get_current_buf() == buf and "buffer" or "other")
  end)

  it("goes when the chat is deleted from :VibingChats", function()
    helpers.write(vim.fn.getcwd() .. "/hello.py", hello)
    local buf = tour()
    local chat = vim.api.nvim_buf_get_name(buf)
    local turns = vim.fn.getcwd() .. "/.vibing/turns/" .. vim.fn.fnamemodify(chat, ":t:r")
    assert.equals(1, vim.fn.isdirectory(turns), "the turn's copies are kept")
    local list = require("vibing.chat.list")
    local entry
    for _, e in ipairs(list.entries()) do
      if e.path == chat then
        entry = e
      end
    end
    local _, restore = stub_confirm(1)
    assert.truthy(list.delete(entry))
    restore()
    assert.equals(0, vim.fn.isdirectory(turns), "the copies went with the chat")
  end)

  it("reverts through a symlink, and says so when the turn's copies are gone", function()
    local cwd = vim.fn.getcwd()
    local dir = cwd .. "/.vibing/turns/chat-¢x/T1" -- "¢" shares a byte with "·"
    vim.fn.mkdir(dir, "p")
    helpers.write(dir .. "/1.before", { "old" })
    helpers.write(dir .. "/1.after", { "new" })
    helpers.write(cwd .. "/real.txt", { "new" })
    vim.loop.fs_symlink(cwd .. "/real.txt", cwd .. "/link.txt")
    local m = { version = 1, done = true, files = { { path = cwd .. "/link.txt", by = "edit", tool = "Write", existed = true, mode = 420, before = "1.before", after = "1.after" } } }
    vim.fn.writefile({ vim.fn.json_encode(m) }, dir .. "/manifest.json")
    local buf = helpers.new_chat()
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "Modified files · gd diff · gr revert · gR revert all · ../turns/chat-¢x/T1", "  link.txt", "" })
    cursor_on(buf, "^  link%.txt$")
    vim.cmd("normal gr")
    assert.equals("old\n", helpers.read(cwd .. "/real.txt"), "the file behind the link is reverted")
    assert.equals("link", vim.loop.fs_lstat(cwd .. "/link.txt").type, "the link stays a link")
    vim.fn.delete(dir, "rf")
    vim.cmd("normal gr")
    assert.matches("the copies of this turn are gone", helpers.last().msg, true)
  end)

  it("a file listed without a copy has no diff and is not reverted, and says why", function()
    local cwd = vim.fn.getcwd()
    local dir = cwd .. "/.vibing/turns/chat-x/T2"
    vim.fn.mkdir(dir, "p")
    helpers.write(cwd .. "/.env", { "A=2" })
    local m = { version = 1, done = true, files = { { path = cwd .. "/.env", by = "bash", tool = "Bash", existed = true, no_copy = true } } }
    vim.fn.writefile({ vim.fn.json_encode(m) }, dir .. "/manifest.json")
    local buf = helpers.new_chat()
    local lines = require("vibing.chat.changes").lines({ dir = dir, files = { { path = cwd .. "/.env", by = "bash", no_copy = true } } }, vim.api.nvim_buf_get_name(buf))
    assert.equals("  .env (bash, no copy)", lines[2])
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, lines)
    cursor_on(buf, "^  %.env")
    local tabs = #vim.api.nvim_list_tabpages()
    vim.cmd("normal gd")
    assert.equals(tabs, #vim.api.nvim_list_tabpages(), "no diff")
    assert.matches("kept no copy of .env", helpers.last().msg, true)
    vim.cmd("normal gR")
    assert.matches("cannot be reverted", helpers.last().msg, true)
    assert.equals("A=2\n", helpers.read(cwd .. "/.env"))
  end)
end)
