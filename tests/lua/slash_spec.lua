-- Slash commands end to end: the real `vibing-agent rpc` edits the frontmatter.
local h = require("harness")
local helpers = require("helpers")
local describe, it, assert = h.describe, h.it, h.assert

local function frontmatter(path)
  local text = helpers.read(path)
  return text:match("^(%-%-%-\n.-\n%-%-%-)\n")
end

describe("/allow /ask /deny", function()
  it("adds a rule, saves the file and clears the line", function()
    local buf, path = helpers.new_chat()
    helpers.say(buf, "/allow Bash(npm:*)")
    assert.equals({ "Read(**)", "Bash(npm:*)" }, helpers.settings(path).allow)
    assert.equals("", vim.api.nvim_buf_get_lines(buf, -2, -1, false)[1], "slash line cleared")
    assert.falsy(vim.bo[buf].modified, "saved")
    assert.equals(table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n", helpers.read(path))
    assert.equals("vibing: Added Bash(npm:*) to permissions_allow.", helpers.last().msg)
    assert.equals(vim.log.levels.INFO, helpers.last().level)
  end)
  it("leaves no blank line behind: the slash line is removed, the section keeps its line to type on", function()
    local buf, path = helpers.new_chat()
    local before = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    -- each command typed on a new line below the empty one (o in Normal mode)
    for _, cmd in ipairs({ "/allow Grep", "/ask Bash(git push:*)", "/deny WebFetch", "/permission acceptEdits", "/preset standard" }) do
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, { cmd })
      require("vibing.chat").submit(buf)
    end
    assert.equals({ "Grep" }, vim.tbl_filter(function(r)
      return r == "Grep"
    end, helpers.settings(path).allow))
    local after = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    local n = #before
    assert.equals({ "## User", "", "" }, vim.list_slice(after, #after - 2, #after), "the section as a new chat has it")
    assert.equals(vim.list_slice(before, n - 2, n), vim.list_slice(after, #after - 2, #after))
    -- a draft below the slash line stays, with nothing left between
    vim.api.nvim_buf_set_lines(buf, -2, -1, false, { "/allow Glob", "my draft" })
    require("vibing.chat").submit(buf)
    after = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    assert.equals({ "## User", "", "my draft" }, vim.list_slice(after, #after - 2, #after))
    assert.falsy(vim.bo[buf].modified, "saved")
  end)
  it("adds several rules, spaces inside parentheses included", function()
    local buf, path = helpers.new_chat()
    helpers.say(buf, "/deny Bash(rm -rf) bash(git push:*)")
    assert.equals({ "Bash(rm -rf)", "Bash(git push:*)" }, helpers.settings(path).deny)
  end)
  it("removes with -X", function()
    local buf, path = helpers.new_chat()
    helpers.say(buf, "/allow Grep")
    helpers.say(buf, "/allow -Grep")
    assert.falsy(frontmatter(path):find("- Grep", 1, true))
    assert.matches("Removed Grep from permissions_allow", helpers.last().msg, true)
  end)
  it("shows the list without an argument", function()
    local buf = helpers.new_chat()
    helpers.say(buf, "/allow")
    assert.equals("vibing: permissions_allow: Read(**)", helpers.last().msg)
    helpers.say(buf, "/deny")
    assert.matches("permissions_deny is empty", helpers.last().msg, true)
  end)
  it("notes that allow overrides ask", function()
    local buf = helpers.new_chat()
    helpers.say(buf, "/ask Bash")
    helpers.say(buf, "/allow Bash")
    assert.matches("Note: Allow list overrides ask list - tool will be auto-approved", helpers.last().msg, true)
    helpers.say(buf, "/allow Read")
    helpers.say(buf, "/ask Read")
    assert.matches("Note: Allow list overrides ask list - tool will be auto-approved", helpers.last().msg, true)
  end)
  it("notes a deny that shadows allow and ask entries", function()
    local buf = helpers.new_chat()
    helpers.say(buf, "/allow Bash(npm:*)")
    helpers.say(buf, "/ask Bash(git:*)")
    helpers.say(buf, "/deny Bash")
    assert.matches("Bash(npm:*) (allow), Bash(git:*) (ask)", helpers.last().msg, true)
    assert.equals(vim.log.levels.WARN, helpers.last().level)
  end)
  it("refuses unknown tools and bad patterns with an example; nothing written", function()
    local buf, path = helpers.new_chat()
    local before = helpers.read(path)
    for _, line in ipairs({ "/allow Nope(x)", "/deny Bash(npm", "/ask Skill(x)", "/allow Read Frob" }) do
      helpers.notes = {}
      helpers.say(buf, line)
      assert.equals(vim.log.levels.ERROR, helpers.last().level, line)
      assert.matches("invalid rule", helpers.last().msg, true)
      assert.equals(before, helpers.read(path), line)
      assert.equals(line, vim.api.nvim_buf_get_lines(buf, -2, -1, false)[1], "the line stays for fixing")
    end
    assert.matches("example: ", helpers.notified(), true)
    assert.equals(before, helpers.read(path))
  end)
end)

describe("/permission /preset /new-session /help", function()
  it("sets the mode", function()
    local buf, path = helpers.new_chat()
    helpers.say(buf, "/permission acceptEdits")
    assert.matches("\npermissions_mode: acceptEdits\n", frontmatter(path))
    helpers.say(buf, "/permission yolo")
    assert.matches("unknown permission mode", helpers.last().msg, true)
    assert.matches("\npermissions_mode: acceptEdits\n", frontmatter(path))
  end)
  it("sets and removes a preset", function()
    local buf, path = helpers.new_chat()
    helpers.say(buf, "/preset standard")
    assert.matches("\npermissions_preset: standard\n", frontmatter(path))
    helpers.say(buf, "/preset nope")
    assert.matches("unknown preset", helpers.last().msg, true)
    helpers.say(buf, "/preset -")
    assert.falsy(frontmatter(path):find("permissions_preset", 1, true))
  end)
  it("knows the user's presets", function()
    require("vibing").setup({ presets = { team = { mode = "plan", allow = { "Read" } } } })
    local buf, path = helpers.new_chat()
    helpers.say(buf, "/preset team")
    assert.matches("\npermissions_preset: team\n", frontmatter(path))
  end)
  it("clears the session", function()
    local path = helpers.write(vim.fn.getcwd() .. "/s.md", {
      "---", "vibing.nvim: true", "session_id: abc", "permissions_mode: default", "---", "", "## User", "", "/new-session",
    })
    vim.cmd("edit " .. path)
    require("vibing.chat").submit(0)
    assert.falsy(helpers.read(path):find("session_id", 1, true))
    assert.matches("Started a new session", helpers.last().msg, true)
  end)
  it("lists the commands", function()
    local buf = helpers.new_chat()
    helpers.say(buf, "/help")
    for _, c in ipairs({ "/allow", "/ask", "/deny", "/permissions", "/permission <mode>", "/preset", "/new-session" }) do
      assert.matches(c, helpers.last().msg, true)
    end
  end)
  it("warns about an unknown command", function()
    local buf = helpers.new_chat()
    helpers.say(buf, "/frobnicate now")
    assert.matches("unknown command /frobnicate", helpers.last().msg, true)
  end)
end)

describe("frontmatter safety", function()
  it("keeps every byte outside the edited keys", function()
    local body = {}
    for i = 1, 3000 do
      body[#body + 1] = ("line %d with trailing space and tabs\t "):format(i)
    end
    local head = {
      "---",
      "vibing.nvim: true",
      "# a comment",
      "title: 'quoted: value'   # trailing comment",
      "anchors: &a {x: 1}",
      "alias: *a",
      "multi: |",
      "  keep",
      "    this",
      "permissions_allow: [Read]",
      "---",
    }
    local lines = vim.list_extend(vim.deepcopy(head), { "", "## User", "" })
    vim.list_extend(lines, body)
    vim.list_extend(lines, { "## User", "", "/allow Bash(git status:*)" })
    local path = helpers.write(vim.fn.getcwd() .. "/safe.md", lines)
    vim.cmd("edit " .. path)
    require("vibing.chat").submit(0)
    local out = vim.fn.readfile(path)
    assert.equals({ "Read", "Bash(git status:*)" }, helpers.settings(path).allow)
    local close
    for i = 2, #out do
      if out[i] == "---" then
        close = i
        break
      end
    end
    for i, l in ipairs(head) do
      if l ~= "permissions_allow: [Read]" and l ~= "---" then
        assert.truthy(vim.tbl_contains(vim.list_slice(out, 1, close), l), "kept " .. l)
      end
    end
    local want = vim.list_slice(lines, #head + 1)
    want[#want] = ""
    local bytes = helpers.read(path)
    local body_at = #table.concat(vim.list_slice(out, 1, close), "\n") + 2
    assert.truthy(bytes:sub(body_at) == table.concat(want, "\n") .. "\n", "the body is byte-identical")
  end)
  it("reports a malformed frontmatter and writes nothing", function()
    local path = helpers.write(vim.fn.getcwd() .. "/bad.md", {
      "---", "vibing.nvim: true", "permissions_allow: [unclosed", "---", "", "## User", "", "/allow Bash",
    })
    local before = helpers.read(path)
    vim.cmd("edit " .. path)
    require("vibing.chat").submit(0)
    assert.equals(vim.log.levels.ERROR, helpers.last().level)
    assert.equals(before, helpers.read(path))
  end)
end)

describe("/permissions builder", function()
  local real_select, real_input
  local function stub(select_answers, input_answer)
    real_select, real_input = vim.ui.select, vim.ui.input
    local seen = { items = {}, prompts = {} }
    vim.ui.select = function(items, opts, cb)
      local want = table.remove(select_answers, 1)
      local shown = {}
      for _, it in ipairs(items) do
        table.insert(shown, opts.format_item and opts.format_item(it) or it)
      end
      table.insert(seen.items, shown)
      cb(want)
    end
    vim.ui.input = function(opts, cb)
      table.insert(seen.prompts, opts.prompt)
      cb(input_answer)
    end
    return seen
  end
  local function unstub()
    vim.ui.select, vim.ui.input = real_select, real_input
  end

  it("builds Bash(npm test:*) for ask", function()
    local buf, path = helpers.new_chat()
    helpers.say(buf, "/allow Bash(git:*)")
    local seen = stub({ "Bash", "ask" }, "npm test")
    helpers.say(buf, "/permissions")
    unstub()
    assert.equals({ "Bash(npm test:*)" }, helpers.settings(path).ask)
    assert.truthy(vim.tbl_contains(seen.items[1], "Bash  [allow: Bash(git:*)]"), vim.inspect(seen.items[1]))
    assert.equals({ "allow", "ask", "deny" }, seen.items[2])
    assert.matches("[allow: Bash(git:*)] Command prefix", seen.prompts[1], true)
    assert.equals("", vim.api.nvim_buf_get_lines(buf, -2, -1, false)[1])
  end)
  it("/perm adds a bare tool when the argument is empty", function()
    local buf, path = helpers.new_chat()
    stub({ "WebFetch", "deny" }, "")
    helpers.say(buf, "/perm")
    unstub()
    assert.equals({ "WebFetch" }, helpers.settings(path).deny)
  end)
  it("cancelling changes nothing", function()
    local buf, path = helpers.new_chat()
    local before = frontmatter(path)
    stub({ "Read", nil }, nil)
    helpers.say(buf, "/permissions")
    unstub()
    assert.equals(before, frontmatter(path))
    assert.matches("cancelled", helpers.last().msg, true)
  end)
  it("refuses a bad pattern from the builder", function()
    local buf, path = helpers.new_chat()
    local before = frontmatter(path)
    stub({ "Read", "allow" }, "src/(")
    helpers.say(buf, "/permissions")
    unstub()
    if helpers.last().level == vim.log.levels.ERROR then
      assert.equals(before, frontmatter(path))
    else
      assert.matches("Read(src/(", frontmatter(path), true)
    end
  end)
end)

describe("the rpc host", function()
  it("restarts after it dies, with one notification", function()
    local buf, path = helpers.new_chat()
    helpers.say(buf, "/allow Glob")
    local rpc = require("vibing.rpc")
    local chan = rpc.channel()
    assert.truthy(chan)
    vim.fn.jobstop(chan)
    vim.wait(2000, function()
      return rpc.channel() == nil
    end)
    local stops = 0
    for _, n in ipairs(helpers.notes) do
      if n.msg:find("vibing-agent rpc stopped", 1, true) then
        stops = stops + 1
        assert.equals(vim.log.levels.WARN, n.level)
      end
    end
    assert.equals(1, stops)
    helpers.say(buf, "/allow Bash(make:*)")
    assert.matches("Bash(make:*)", frontmatter(path), true)
  end)
  it("says how to build a missing binary", function()
    require("vibing").setup({ bin = vim.fn.getcwd() .. "/nowhere/vibing-agent" })
    local buf = helpers.new_chat()
    helpers.say(buf, "/allow Bash")
    assert.matches("vibing%-agent not found at .*/nowhere/vibing%-agent; run make in ", helpers.last().msg)
    assert.equals(vim.log.levels.ERROR, helpers.last().level)
  end)
  it("refuses a binary of another version", function()
    require("vibing").setup({ bin = require("vibing.rpc").plugin_root() .. "/tests/lua/old-agent.sh" })
    local buf = helpers.new_chat()
    helpers.say(buf, "/allow Bash")
    assert.matches("vibing-agent is version 0.0.1 but the plugin is 0.1.0; run make in", helpers.last().msg, true)
  end)
end)

describe("/model", function()
  it("sets, shows and removes the chat's model", function()
    local buf, path = helpers.new_chat()
    helpers.say(buf, "/model opus")
    assert.equals("vibing: Set model to opus (from the next message on).", helpers.last().msg)
    assert.truthy(helpers.read(path):find("\nmodel: opus\n", 1, true))
    helpers.say(buf, "/model")
    assert.matches("model: opus (choose one of sonnet, opus, haiku, -", helpers.last().msg, true)
    helpers.say(buf, "/model -")
    assert.falsy(helpers.read(path):find("model:", 1, true))
    helpers.say(buf, "/model --help")
    assert.matches("not a model name", helpers.last().msg, true)
  end)
  it("completes model aliases", function()
    local start, items = require("vibing.complete").candidates("/model so")
    assert.equals(7, start)
    assert.truthy(vim.tbl_contains(items, "sonnet"))
  end)
end)
