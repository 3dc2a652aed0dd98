local h = require("harness")
local describe, it, assert = h.describe, h.it, h.assert
local render = require("vibing.chat.render")

describe("render.tool_line", function()
  local tests = {
    { "allowed by a rule", "Bash", { command = "npm test" }, { decision = "allow", rule = "Bash(npm:*)", source = "allow_list" },
      "⏺ Bash: npm test — allowed (Bash(npm:*))", "VibingAllowed" },
    { "allowed by the mode", "Read", { file_path = "README.md" }, { decision = "allow", rule = vim.NIL, source = "mode" },
      "⏺ Read: README.md — allowed (mode)", "VibingAllowed" },
    { "refused with its reason", "Bash", { command = "sudo rm -rf /" }, { decision = "deny", reason = "sudo is refused.", rule = "default: sudo" },
      "⏺ Bash: sudo rm -rf / — refused: sudo is refused.", "VibingDenied" },
    { "a url", "WebFetch", { url = "https://example.com/", prompt = "x" }, { decision = "allow", rule = "WebFetch(example.com)" },
      "⏺ WebFetch: https://example.com/ — allowed (WebFetch(example.com))", "VibingAllowed" },
    { "a multi-line command stays one line", "Bash", { command = "echo a\necho b" }, { decision = "allow", rule = "Bash" },
      "⏺ Bash: echo a ⏎ echo b — allowed (Bash)", "VibingAllowed" },
  }
  for _, tt in ipairs(tests) do
    it(tt[1], function()
      -- the detail comes from the Go side; here it is the command, path or URL
      local detail = tt[3].command or tt[3].file_path or tt[3].url
      local line, hl = render.tool_line(tt[2], detail, tt[4])
      assert.equals(tt[5], line)
      assert.equals(tt[6], hl)
    end)
  end
end)

describe("render.outcome_line", function()
  local req = { id = "t1", tool = "Bash", input = { command = "npm install" }, detail = "npm install", timeout_s = 60 }
  local tests = {
    { { decision = "allow_once", by = "user" }, nil, "⏺ Bash: npm install — allowed once by you" },
    { { decision = "deny_once", by = "user" }, nil, "⏺ Bash: npm install — denied by you" },
    { { decision = "allow_for_session", by = "user" }, "Bash(npm install:*)", "⏺ Bash: npm install — allowed for this session (Bash(npm install:*)) by you" },
    { { decision = "always_deny", by = "user" }, "Bash(npm install:*)", "⏺ Bash: npm install — always denied (Bash(npm install:*) added to permissions_deny) by you" },
    { { decision = "deny_once", by = "timeout" }, nil, "⏺ Bash: npm install — denied: no answer within 60 s" },
    { { decision = "deny_once", by = "cancel" }, nil, "⏺ Bash: npm install — denied: cancelled before an answer" },
    { { decision = "withdrawn", by = "agent" }, nil, "⏺ Bash: npm install — withdrawn by the agent (it no longer needs the answer)" },
    { { decision = "allow_once", by = "user", edited = true }, nil, "⏺ Bash: npm install — allowed once (as you edited it) by you" },
  }
  for _, tt in ipairs(tests) do
    it(tt[1].decision .. " by " .. tt[1].by .. (tt[1].edited and " edited" or ""), function()
      assert.equals(tt[3], (render.outcome_line(req, tt[1], tt[2])))
    end)
  end
end)

describe("render.error_line", function()
  local tests = {
    { "claude CLI not found: set $VIBING_CLAUDE_BIN or the claude_cmd option, or put claude on PATH", "npm install -g @anthropic-ai/claude-code" },
    { "claude exited with status 1 (claude: Invalid API key · Please run /login)", "log in (/login)" },
    { "vibing-agent not found at /x; run make in /y", "run make in /y" },
    { "claude stopped in the middle of an output line", ":checkhealth vibing" },
  }
  for _, tt in ipairs(tests) do
    it(tt[1], function()
      local line = render.error_line(tt[1])
      assert.matches("^⚠ Error: ", line)
      assert.matches(tt[2], line, true)
      assert.falsy(line:find("\n"), "one line")
    end)
  end
  it("keeps stderr on one line", function()
    assert.falsy(render.error_line("a\nb\nc"):find("\n"))
  end)
end)

describe("render.result_line", function()
  it("shows the first line and how many more", function()
    assert.equals("  ⎿ added 12 packages (+2 lines)", render.result_line("added 12 packages\nx\ny\n", false))
    assert.equals("  ⎿ error: boom", render.result_line("boom", true))
    assert.equals("  ⎿ (no output)", render.result_line("", false))
    assert.equals(nil, render.result_line(vim.NIL, false))
  end)
  it("says line, not lines, for one more", function()
    assert.equals("  ⎿ a (+1 line)", render.result_line("a\nb\n", false))
  end)
end)

describe("render.cost_line", function()
  local tests = {
    { "cost and duration", { cost_usd = 0.0123, duration_ms = 4200 }, "· $0.0123 · 4.2 s" },
    { "duration only (the demo backend has no cost)", { duration_ms = 42 }, "· 0.0 s" },
    { "cost only", { cost_usd = 1.5, duration_ms = vim.NIL }, "· $1.5000" },
    { "minutes", { cost_usd = 0, duration_ms = 125000 }, "· $0.0000 · 2 min 5 s" },
    { "neither", { session_id = "x" }, nil },
  }
  for _, tt in ipairs(tests) do
    it(tt[1], function()
      assert.equals(tt[3], render.cost_line(tt[2]))
    end)
  end
end)

describe("render.block", function()
  local keys = require("vibing.config").defaults.keymaps.approval
  local req = {
    id = "t1", tool = "Bash", input = { command = "npm install" }, detail = "npm install", level = "mutating", rule = "Bash",
    reason = "Bash needs approval (ask: Bash).", suggested_rule = "Bash(npm install:*)",
    options = { "allow_once", "deny_once", "allow_for_session", "deny_for_session", "always_allow", "always_deny" },
    preview = { kind = "command", command = "npm install", description = "Install the deps",
      effects = { "installs packages, which may run their install scripts (npm install)" } },
  }
  it("names the tool, level, command, effects, rule, suggestion and keys", function()
    local lines, hls = render.block(req, keys, 2)
    local text = table.concat(lines, "\n")
    for _, want in ipairs({ "Approval needed: Bash (mutating) · 2 more waiting", "│ Install the deps  (the agent's description)",
      "```sh\nnpm install\n```", "│ effects:\n│  • installs packages", "asked by: Bash — Bash needs approval",
      "suggested rule: Bash(npm install:*)", "[y] allow once", "[n] deny", "[s] allow for session", "[S] deny for session",
      "[a] always allow", "[A] always deny", "[d] review side by side", "[r] deny with a reason" }) do
      assert.matches(want, text, true)
    end
    assert.equals(#lines, #hls)
  end)
  it("lists only the offered answers and the configured keys", function()
    local r = vim.deepcopy(req)
    r.options = { "allow_once", "deny_once" }
    local text = table.concat((render.block(r, vim.tbl_extend("force", keys, { deny_once = "x" }), 0)), "\n")
    assert.matches("[x] deny", text, true)
    assert.falsy(text:find("always", 1, true) and text:find("%[a%]"), "no always key")
    assert.falsy(text:find("more waiting", 1, true))
  end)
  it("says why answers are limited by managed policy", function()
    local r = vim.deepcopy(req)
    r.options = { "allow_once", "deny_once" }
    r.limit = "the ask rule Bash(git push:*) is managed policy (managed:/etc/vibing/policy.yaml): it can be approved once, never always or for the session"
    local text = table.concat((render.block(r, keys, 0)), "\n")
    assert.matches("answers limited: the ask rule Bash(git push:*) is managed policy", text, true)
    assert.falsy(text:find("[a] always allow", 1, true))
    assert.falsy(text:find("[s] allow for session", 1, true))
  end)
  it("shows each command of a compound line with its own verdict", function()
    local r = vim.deepcopy(req)
    r.preview.command = "npm test && rm -rf build; curl -s x | sh; make"
    r.preview.commands = {
      { command = "npm test", decision = "allow", rule = "Bash(npm:*)", source = "allow_list" },
      { command = "rm -rf build", decision = "ask", rule = "Bash(rm:*)", source = "ask_list" },
      { command = "curl -s x", decision = "deny", rule = "Bash(curl:*)", source = "deny_list" },
      { command = "make", decision = "ask", source = "mode" },
    }
    local lines, hls = render.block(r, keys, 0)
    local text = table.concat(lines, "\n")
    assert.matches("│ each command:\n│  npm test ✓ allowed by Bash(npm:*)\n│  rm -rf build ? asks (ask: Bash(rm:*))\n│  curl -s x ✗ refused by Bash(curl:*)\n│  make ? asks (the mode)", text, true)
    for i, l in ipairs(lines) do
      if l:find("npm test ✓", 1, true) then
        assert.equals("VibingAllowed", hls[i])
      elseif l:find("rm -rf build ?", 1, true) then
        assert.equals("VibingAsked", hls[i])
      elseif l:find("curl -s x ✗", 1, true) then
        assert.equals("VibingDenied", hls[i])
      end
    end
  end)
  it("cuts a long command and says how to see the rest", function()
    local r = vim.deepcopy(req)
    r.preview.command = table.concat({ "1", "2", "3", "4", "5", "6", "7", "8", "9", "10" }, "\n")
    local text = table.concat((render.block(r, keys, 0, 8)), "\n")
    assert.matches("\n8\n```\n│ … 2 more lines — press d", text, true)
  end)
  it("shows an Edit's diff lines, highlighted as a diff", function()
    local r = vim.deepcopy(req)
    r.tool, r.detail = "Edit", "src/a.go"
    r.preview = { kind = "diff", path = "src/a.go", added = 1, removed = 1,
      unified = "--- a/src/a.go\n+++ b/src/a.go\n@@ -1,3 +1,3 @@\n package a\n-var x = 1\n+var x = 2\n \n" }
    local lines, hls = render.block(r, keys, 0)
    local text = table.concat(lines, "\n")
    assert.matches("│ src/a.go  (+1 −1)\n```diff\n--- a/src/a.go\n+++ b/src/a.go\n@@ -1,3 +1,3 @@\n package a\n-var x = 1\n+var x = 2\n \n```", text, true)
    local by = {}
    for i, l in ipairs(lines) do
      by[l] = hls[i]
    end
    assert.equals("VibingDiffDelete", by["-var x = 1"])
    assert.equals("VibingDiffAdd", by["+var x = 2"])
    assert.equals("VibingDiffHunk", by["@@ -1,3 +1,3 @@"])
  end)
  it("says plainly when an edit cannot apply", function()
    local r = vim.deepcopy(req)
    r.tool = "Edit"
    r.preview = { kind = "diff", path = "a.go", problem = "the old_string is not in the file (\"x\"), so the edit will fail" }
    assert.matches("│ ⚠ the old_string is not in the file", table.concat((render.block(r, keys, 0)), "\n"), true)
  end)
  it("shows a new file's size and head", function()
    local r = vim.deepcopy(req)
    r.tool = "Write"
    r.preview = { kind = "new_file", path = "hello.py", lines = 2, bytes = 25, head = "print('hi')\nprint('bye')" }
    assert.matches("│ hello.py  (new file: 2 lines, 25 bytes)\n```\nprint('hi')\nprint('bye')\n```", table.concat((render.block(r, keys, 0)), "\n"), true)
  end)
  it("says 1 line, 1 byte, 1 more line in the singular", function()
    local r = vim.deepcopy(req)
    r.tool = "Write"
    r.preview = { kind = "new_file", path = "one.txt", lines = 1, bytes = 1, head = "x" }
    assert.matches("│ one.txt  (new file: 1 line, 1 byte)", table.concat((render.block(r, keys, 0)), "\n"), true)
    r.preview = { kind = "new_file", path = "two.txt", lines = 2, bytes = 4, head = "a\nb" }
    assert.matches("\na\n```\n│ … 1 more line — press d", table.concat((render.block(r, keys, 0, 1)), "\n"), true)
  end)
end)

describe("render.detail", function()
  it("uses the Go side's detail, else the compact input", function()
    assert.equals("npm test", render.detail({ detail = "npm test", input = { command = "x" } }))
    assert.equals('{"a": 1}', (render.detail({ input = { a = 1 } }):gsub('":1', '": 1')))
    assert.equals("", render.detail({ input = {} }))
  end)
end)

describe("the cost line of a turn", function()
  it("is the part of the process's running total since its previous result", function()
    local events = require("vibing.chat.events")
    local buf = vim.api.nvim_create_buf(true, false)
    local live = {}
    local function turn(total, ms)
      local r = { buf = buf, writer = require("vibing.chat.writer").new(buf, { delay_ms = 0 }), live = live, tools = {}, rules = {} }
      events.handlers.result(r, { type = "result", is_error = false, cost_usd = total, duration_ms = ms })
      local n = vim.api.nvim_buf_line_count(buf)
      return vim.api.nvim_buf_get_lines(buf, n - 1, n, false)[1]
    end
    -- the CLI reports 0.00014, 0.00028, 0.00042 for three equal turns
    assert.equals("· $0.0001 · 0.1 s", turn(0.00014, 150))
    assert.equals("· $0.0001 · 0.0 s", turn(0.00028, 38))
    assert.equals("· $0.0120 · 2.0 s", turn(0.01228, 2000))
    vim.api.nvim_buf_delete(buf, { force = true })
  end)
end)
