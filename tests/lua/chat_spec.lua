local h = require("harness")
local helpers = require("helpers")
local describe, it, assert = h.describe, h.it, h.assert
local fm = require("vibing.chat.frontmatter")
local chat = require("vibing.chat")

describe("chat.frontmatter.scalar", function()
  local cases = {
    { "Read", "Read" },
    { "Bash(npm:*)", "Bash(npm:*)" },
    { "Bash(npm run build)", "Bash(npm run build)" },
    { "Bash(echo a: b)", '"Bash(echo a: b)"' },
    { "Bash(echo #x)", '"Bash(echo #x)"' },
    { "/tool:Bash:git .*/", '"/tool:Bash:git .*/"' },
    { "yes", '"yes"' },
    { 'Grep("x")', '"Grep(\\"x\\")"' },
  }
  for _, c in ipairs(cases) do
    it(("%q"):format(c[1]), function()
      assert.equals(c[2], fm.scalar(c[1]))
    end)
  end
end)

describe("chat.frontmatter.template", function()
  it("follows the permission template", function()
    local lines = fm.template({ mode = "acceptEdits", allow = { "Read" }, ask = {}, deny = { "Bash(rm -rf)" }, preset = "standard" }, "2026-11-22T10:00:00")
    assert.equals({
      "---",
      "vibing.nvim: true",
      "created_at: 2026-11-22T10:00:00",
      "permissions_mode: acceptEdits",
      "permissions_preset: standard",
      "permissions_allow:",
      "  - Read",
      "permissions_ask: []",
      "permissions_deny:",
      "  - Bash(rm -rf)",
      "---",
      "",
      "## User",
      "",
      "",
    }, lines)
  end)
end)

describe("chat.create", function()
  it("writes chat-YYYYMMDD-HHMMSS.md under chat_dir", function()
    local path = chat.create()
    assert.matches("/%.vibing/chat/chat%-%d%d%d%d%d%d%d%d%-%d%d%d%d%d%d%.md$", path)
    local text = helpers.read(path)
    assert.matches("^%-%-%-\nvibing%.nvim: true\ncreated_at: %d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d\npermissions_mode: default\n", text)
    assert.matches("\n## User\n", text, true)
  end)
  it("gives the .vibing/chat folder it creates a .gitignore, as .vibing/turns has; one there already stays", function()
    local path = chat.create()
    local ignore = vim.fn.fnamemodify(path, ":h") .. "/.gitignore"
    local lines = vim.fn.readfile(ignore)
    assert.matches("^# vibing: ", lines[1])
    assert.equals("*", lines[#lines])
    vim.fn.writefile({ "# mine", "!*.md" }, ignore)
    chat.create()
    assert.equals({ "# mine", "!*.md" }, vim.fn.readfile(ignore), "an existing .gitignore is kept")
    -- a chat folder of the person's own choosing gets none
    require("vibing").setup({ chat_dir = "notes/chats" })
    path = chat.create()
    assert.equals(0, vim.fn.filereadable(vim.fn.fnamemodify(path, ":h") .. "/.gitignore"))
  end)
  it("never reuses a name", function()
    local dir = vim.fn.getcwd()
    local t = os.time()
    local first = chat.new_path(dir, t)
    helpers.write(first, { "x" })
    local second = chat.new_path(dir, t)
    assert.truthy(first ~= second, "a second name")
    assert.matches("%-2%.md$", second)
  end)
  it("opens the new chat with the cursor in the User section", function()
    local buf = helpers.new_chat()
    assert.truthy(vim.b[buf].vibing_chat)
    assert.equals("markdown", vim.bo[buf].filetype)
    assert.equals(vim.api.nvim_buf_line_count(buf), vim.api.nvim_win_get_cursor(0)[1])
    assert.matches("vibing.complete", vim.bo[buf].omnifunc, true)
  end)
  it("keeps its completion when the file is read again (:e sets the filetype again)", function()
    local buf = helpers.new_chat()
    vim.cmd("silent write")
    vim.cmd("filetype plugin on")
    vim.cmd("edit")
    assert.equals("markdown", vim.bo[buf].filetype)
    assert.matches("vibing.complete", vim.bo[buf].omnifunc, true)
    vim.bo[buf].filetype = "markdown"
    assert.matches("vibing.complete", vim.bo[buf].omnifunc, true)
  end)
  it("opens in a float when window.position is float", function()
    require("vibing").setup({ window = { position = "float" } })
    helpers.new_chat()
    assert.equals("editor", vim.api.nvim_win_get_config(0).relative)
  end)
  it("refuses a missing file", function()
    vim.cmd("VibingChat nowhere.md")
    assert.matches("no chat at nowhere.md", helpers.last().msg, true)
    assert.equals(vim.log.levels.ERROR, helpers.last().level)
  end)
end)

describe("chat buffers", function()
  it("finds the frontmatter and the last User section", function()
    local path = helpers.write(vim.fn.getcwd() .. "/c.md", {
      "---", "vibing.nvim: true", "---", "", "## User", "", "one", "", "## Assistant", "", "hi", "", "## User", "", "/allow Bash", "",
    })
    vim.cmd("edit " .. path)
    local buf = vim.api.nvim_get_current_buf()
    assert.truthy(chat.is_chat(buf))
    assert.truthy(vim.b[buf].vibing_chat, "attached on BufRead")
    assert.equals({ 1, 3 }, { fm.range(buf) })
    assert.equals({ 14, 16 }, { chat.last_user_section(buf) })
  end)
  it("leaves other Markdown alone", function()
    local path = helpers.write(vim.fn.getcwd() .. "/n.md", { "---", "title: x", "---", "text" })
    vim.cmd("edit " .. path)
    assert.falsy(chat.is_chat(0))
    assert.falsy(vim.b.vibing_chat)
  end)
  it("sends a message that is not a slash command (demo backend)", function()
    require("vibing").setup({ backend = "demo" })
    local buf = helpers.new_chat()
    helpers.say(buf, "please refactor")
    assert.equals("vibing: running", require("vibing").status(buf))
    local approval = require("vibing.ui.approval")
    local done = vim.wait(15000, function()
      local p = approval.active(buf)
      if p and not p.answered then
        approval.answer(buf, "deny_once")
      end
      return vim.b[buf].vibing_runs == 1
    end, 10)
    assert.truthy(done, "the run ended")
    local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
    assert.matches("## Assistant\n\nHi! I am the vibing **demo** agent", text, true)
    assert.matches("⏺ Edit: hello.py — denied by you", text, true)
    -- the demo agent reports no cost: the quiet line says the duration alone
    assert.matches("\n· [%d.]+ s\n\n## User\n\n$", text, false, "the cost line closes the answer")
    assert.matches("session_id: demo-", text, true)
    assert.equals("", require("vibing").status(buf))
  end)
end)

describe("complete.candidates", function()
  local complete = require("vibing.complete")
  it("completes slash commands", function()
    local start, items = complete.candidates("/al")
    assert.equals(0, start)
    assert.truthy(vim.tbl_contains(items, "/allow") and vim.tbl_contains(items, "/new-session"))
  end)
  it("completes modes", function()
    local start, items = complete.candidates("/permission acc")
    assert.equals(12, start)
    assert.truthy(vim.tbl_contains(items, "acceptEdits"))
  end)
  it("completes tool names after - too", function()
    local start, items = complete.candidates("/deny Bash -We")
    assert.equals(12, start)
    assert.truthy(vim.tbl_contains(items, "WebFetch"), vim.inspect(items))
  end)
  it("completes presets", function()
    local _, items = complete.candidates("/preset ")
    assert.truthy(vim.tbl_contains(items, "standard"), vim.inspect(items))
  end)
  it("is quiet outside slash lines", function()
    assert.equals(nil, (complete.candidates("hello")))
  end)
  it("works through <C-x><C-o> in a chat", function()
    local buf = helpers.new_chat()
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("i/permission dontA<C-x><C-o><Esc>", true, false, true), "xt", false)
    assert.equals("/permission dontAsk", vim.api.nvim_buf_get_lines(buf, -2, -1, false)[1])
  end)
end)

describe("permissions.builder", function()
  local b = require("vibing.permissions.builder")
  local cases = {
    { "Bash", "command", "npm test", "Bash(npm test:*)" },
    { "Bash", "command", "npm run *", "Bash(npm run *)" },
    { "Bash", "command", "", "Bash" },
    { "Read", "path", " src/**/*.ts ", "Read(src/**/*.ts)" },
    { "WebFetch", "domain", "github.com", "WebFetch(github.com)" },
    { "Grep", "pattern", "TODO", "Grep(TODO)" },
    { "TodoWrite", "none", "x", "TodoWrite" },
  }
  for _, c in ipairs(cases) do
    it(("rule(%s, %s, %q)"):format(c[1], c[2], c[3]), function()
      assert.equals(c[4], b.rule(c[1], c[2], c[3]))
    end)
  end
  it("shows what is set for a tool", function()
    local s = { allow = { "Bash(npm:*)", "Read" }, ask = { "bash" }, deny = vim.NIL }
    assert.equals("allow: Bash(npm:*); ask: bash", b.current(s, "Bash"))
    assert.equals("", b.current(s, "Write"))
  end)
end)

describe(":VibingChats", function()
  local function with_select(answers, fn)
    local real = vim.ui.select
    local seen = {}
    vim.ui.select = function(items, opts, cb)
      local shown = {}
      for _, it in ipairs(items) do
        table.insert(shown, opts.format_item and opts.format_item(it) or it)
      end
      table.insert(seen, shown)
      local want = table.remove(answers, 1)
      for _, it in ipairs(items) do
        local text = opts.format_item and opts.format_item(it) or it
        if want and text:find(want, 1, true) then
          return cb(it)
        end
      end
      cb(nil)
    end
    local ok, err = pcall(fn)
    vim.ui.select = real
    assert.truthy(ok, err)
    return seen
  end
  it("lists chats by title and last activity, opens one", function()
    local buf1, p1 = helpers.new_chat()
    vim.api.nvim_buf_set_lines(buf1, -1, -1, false, { "first question about Go" })
    vim.cmd("silent write")
    local buf2, p2 = helpers.new_chat()
    vim.api.nvim_buf_set_lines(buf2, -1, -1, false, { "second question about Lua" })
    vim.cmd("silent write")
    vim.loop.fs_utime(p1, os.time() - 3600, os.time() - 3600)
    vim.cmd("enew")
    local seen = with_select({ "first question", "open" }, function()
      vim.cmd("VibingChats")
    end)
    assert.matches("second question about Lua", seen[1][1], true)
    assert.matches("first question about Go", seen[1][2], true)
    assert.equals(p1, vim.api.nvim_buf_get_name(0))
    assert.truthy(vim.b.vibing_chat)
    assert.truthy(p2)
  end)
  it("deletes a chat after confirmation only", function()
    local buf, path = helpers.new_chat()
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "delete me" })
    vim.cmd("silent write")
    vim.cmd("enew")
    local real_confirm = vim.fn.confirm
    vim.fn.confirm = function() return 2 end
    with_select({ "delete me", "delete" }, function() vim.cmd("VibingChats") end)
    assert.equals(1, vim.fn.filereadable(path))
    vim.fn.confirm = function() return 1 end
    with_select({ "delete me", "delete" }, function() vim.cmd("VibingChats") end)
    vim.fn.confirm = real_confirm
    assert.equals(0, vim.fn.filereadable(path))
  end)
  it("says when there is no chat", function()
    vim.cmd("VibingChats")
    assert.matches("no chats yet", helpers.last().msg, true)
  end)
end)

describe("chat files opened any way", function()
  local function write_chat(path)
    vim.fn.writefile({ "---", "vibing.nvim: true", "---", "", "## User", "", "hi" }, path)
  end
  it("attach when read with :edit", function()
    local path = vim.fn.getcwd() .. "/c.md"
    write_chat(path)
    vim.cmd("edit " .. vim.fn.fnameescape(path))
    assert.truthy(vim.b.vibing_chat)
    assert.truthy(vim.fn.maparg("<CR>", "n") ~= "")
  end)
  it("attach when the plugin loads after the file was opened (lazy loading)", function()
    local path = vim.fn.getcwd() .. "/late.md"
    write_chat(path)
    vim.cmd("autocmd! vibing")
    vim.cmd("edit " .. vim.fn.fnameescape(path))
    assert.falsy(vim.b.vibing_chat)
    vim.g.loaded_vibing = nil
    vim.cmd("runtime plugin/vibing.lua")
    assert.truthy(vim.b.vibing_chat)
  end)
  it("attach when a buffer becomes markdown later", function()
    local path = vim.fn.getcwd() .. "/notes.txt"
    write_chat(path)
    vim.cmd("edit " .. vim.fn.fnameescape(path))
    assert.falsy(vim.b.vibing_chat)
    vim.cmd("setfiletype markdown")
    assert.truthy(vim.b.vibing_chat)
  end)
end)

describe("@mentions", function()
  it("a mention a Read deny covers is not sent, the message stays, the rule is named", function()
    require("vibing").setup({ backend = "demo", audit_path = vim.fn.getcwd() .. "/audit.sqlite" })
    vim.fn.writefile({ "SECRET=1" }, vim.fn.getcwd() .. "/.env")
    local buf = helpers.new_chat()
    helpers.say(buf, "/deny Read(.env)")
    helpers.say(buf, "what is in @.env ?")
    assert.equals("", require("vibing").status(buf), "nothing runs")
    assert.matches("mentions @.env, which the rule Read(.env) keeps from the model", helpers.last().msg, true)
    assert.equals(vim.log.levels.ERROR, helpers.last().level)
    local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
    assert.equals("what is in @.env ?", text:sub(-#"what is in @.env ?"), "the message stays")
    assert.falsy(text:find("## Assistant", 1, true))
  end)
  it("an allowed mention is sent", function()
    require("vibing").setup({ backend = "demo", audit_path = vim.fn.getcwd() .. "/audit.sqlite" })
    vim.fn.writefile({ "print(1)" }, vim.fn.getcwd() .. "/a.py")
    local buf = helpers.new_chat()
    helpers.say(buf, "explain @a.py")
    assert.equals("vibing: running", require("vibing").status(buf))
    require("vibing").cancel(buf)
    vim.wait(10000, function()
      return require("vibing").status(buf) == ""
    end, 10)
  end)
end)

describe("context", function()
  it(":VibingAdd file adds a mention to the chat's next message", function()
    vim.fn.writefile({ "x = 1" }, vim.fn.getcwd() .. "/a.py")
    local buf = helpers.new_chat()
    vim.cmd("VibingAdd a.py")
    local last = vim.api.nvim_buf_get_lines(buf, -2, -1, false)[1]
    assert.equals("@a.py", last)
    assert.matches("Added @a.py to the next message", helpers.last().msg, true)
  end)
  it(":'<,'>VibingAdd adds the selection with path, lines and a fence", function()
    local buf = helpers.new_chat()
    vim.fn.writefile({ "def f():", "    return 1", "", "print(f())" }, vim.fn.getcwd() .. "/b.py")
    vim.cmd("edit b.py")
    vim.cmd("1,2VibingAdd")
    local lines = vim.api.nvim_buf_get_lines(buf, -7, -1, false)
    -- an empty line after the fence to type on: text typed on the fence's line would open a new block
    assert.equals({ "From `b.py` lines 1-2:", "```python", "def f():", "    return 1", "```", "" }, lines)
  end)
  it(":'<,'>VibingChat starts a chat with the selection", function()
    vim.fn.writefile({ "a", "b", "c" }, vim.fn.getcwd() .. "/c.txt")
    vim.cmd("edit c.txt")
    vim.cmd("2,3VibingChat")
    assert.truthy(vim.b.vibing_chat)
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    local want = "From `c.txt` lines 2-3:\n```text\nb\nc\n```\n"
    assert.equals(want, text:sub(-#want))
    assert.equals(vim.api.nvim_buf_line_count(0), vim.api.nvim_win_get_cursor(0)[1], "the cursor on the empty line under the excerpt")
  end)
  it("completes @paths and rewrites :L10-L20 into the CLI's #L10-20", function()
    vim.fn.mkdir(vim.fn.getcwd() .. "/src", "p")
    vim.fn.writefile({ "" }, vim.fn.getcwd() .. "/src/main.go")
    local start, items = require("vibing.complete").candidates("look at @src/ma")
    assert.equals(8, start)
    assert.equals({ "@src/main.go" }, items)
    local m = require("vibing.chat.mentions")
    assert.equals("see @src/main.go#L10-20 and @a.py#L3", m.rewrite("see @src/main.go:L10-L20 and @a.py:L3"))
    assert.equals("mail a@b.c:L1 stays", m.rewrite("mail a@b.c:L1 stays"):gsub("#L1", ":L1"))
  end)
end)

describe("the message sent", function()
  it("keeps a ## heading of the person's own message", function()
    local buf = helpers.new_chat()
    vim.api.nvim_buf_set_lines(buf, -2, -1, false, { "Please do this:", "", "## Plan", "", "1. read", "## Notes", "keep it short" })
    assert.equals("Please do this:\n\n## Plan\n\n1. read\n## Notes\nkeep it short", require("vibing.chat.send").prompt(buf))
  end)
  it("ends at the next chat heading", function()
    local buf = helpers.new_chat()
    vim.api.nvim_buf_set_lines(buf, -2, -1, false, { "question", "", "## Assistant", "", "answer" })
    assert.equals("question", require("vibing.chat.send").prompt(buf))
  end)
end)
