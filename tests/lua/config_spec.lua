local h = require("harness")
local helpers = require("helpers")
local describe, it, assert = h.describe, h.it, h.assert

describe("config.validate", function()
  local config = require("vibing.config")
  local cases = {
    { name = "no options", opts = nil, errors = {}, warnings = {} },
    { name = "the defaults", opts = vim.deepcopy(config.defaults), errors = {}, warnings = {} },
    {
      name = "a bad mode",
      opts = { permissions = { mode = "yolo" } },
      errors = { "permissions.mode must be one of default, acceptEdits, plan, dontAsk, bypassPermissions" },
    },
    { name = "an unknown key", opts = { colour = "red" }, warnings = { "unknown option colour (ignored)" } },
    { name = "a nested unknown key", opts = { window = { side = "left" } }, warnings = { "unknown option window.side (ignored)" } },
    { name = "allow not a list", opts = { permissions = { allow = "Read" } }, errors = { "permissions.allow must be a list of strings" } },
    { name = "allow holding a number", opts = { permissions = { allow = { "Read", 3 } } }, errors = { "permissions.allow must be a list of strings" } },
    { name = "a bad timeout", opts = { approval_timeout_s = -5 }, errors = { "approval_timeout_s must be a positive whole number" } },
    { name = "a bad resume_ask", opts = { resume_ask = "maybe" }, errors = { "resume_ask must be one of deny, prompt" } },
    { name = "a bad policy", opts = { policies = { Bash = "sometimes" } }, errors = { "policies.Bash must be one of trust, once, always" } },
    { name = "a bad preset mode", opts = { presets = { mine = { mode = "x" } } }, errors = { "presets.mine.mode must be one of" } },
    { name = "an unknown preset key", opts = { presets = { mine = { colour = 1 } } }, warnings = { "unknown option presets.mine.colour (ignored)" } },
    { name = "a bad window position", opts = { window = { position = "left" } }, errors = { "window.position must be one of current, split, vsplit, tab, float" } },
    { name = "a keymap turned off", opts = { keymaps = { send = false } }, errors = {} },
    { name = "a keymap of the wrong type", opts = { keymaps = { send = 1 } }, errors = { "keymaps.send must be a key (string) or false" } },
    { name = "sandbox_hosts", opts = { sandbox_hosts = { "docs.example.com", "*.example.org" } }, errors = {} },
    { name = "sandbox_hosts not a list", opts = { sandbox_hosts = "docs.example.com" }, errors = { "sandbox_hosts must be a list of strings" } },
    { name = "not a table", opts = "yes", errors = { "setup() takes a table of options" } },
  }
  for _, c in ipairs(cases) do
    it(c.name, function()
      local errors, warnings = config.validate(c.opts)
      assert.equals(#(c.errors or {}), #errors, "error count " .. vim.inspect(errors))
      for i, want in ipairs(c.errors or {}) do
        assert.matches(want, errors[i], true)
      end
      assert.equals(#(c.warnings or {}), #warnings, "warning count " .. vim.inspect(warnings))
      for i, want in ipairs(c.warnings or {}) do
        assert.matches(want, warnings[i], true)
      end
    end)
  end
end)

describe("config.merge", function()
  local config = require("vibing.config")
  it("keeps defaults in groups and replaces lists", function()
    local o = config.merge({ permissions = { allow = { "Bash" } }, window = { position = "float" } })
    assert.equals({ "Bash" }, o.permissions.allow)
    assert.equals("default", o.permissions.mode)
    assert.equals("float", o.window.position)
    assert.equals("rounded", o.window.border)
    assert.equals({ "Read(**)" }, config.defaults.permissions.allow, "defaults untouched")
  end)
  it("writes maps as JSON objects and leaves empty ones out", function()
    local b = config.backend_options(config.merge({}))
    assert.equals(nil, b.policies)
    assert.equals(nil, b.presets)
    local json = vim.fn.json_encode(config.backend_options(config.merge({ policies = { Bash = "once" } })))
    assert.equals({ Bash = "once" }, vim.fn.json_decode(json).policies)
    assert.matches('"policies": ?{', json)
  end)
  it("passes sandbox_hosts to the agent", function()
    assert.equals(nil, config.backend_options(config.merge({})).sandbox_hosts)
    local b = config.backend_options(config.merge({ sandbox_hosts = { "docs.example.com" } }))
    assert.equals({ "docs.example.com" }, b.sandbox_hosts)
  end)
end)

describe("setup", function()
  it("reports errors through vim.notify and keeps the options", function()
    assert.falsy(require("vibing").setup({ permissions = { mode = "yolo" } }))
    assert.equals(vim.log.levels.ERROR, helpers.last().level)
    assert.matches("vibing: permissions.mode must be one of", helpers.last().msg, true)
    assert.equals("default", require("vibing").options().permissions.mode)
  end)
  it("warns about unknown keys and applies the rest", function()
    assert.truthy(require("vibing").setup({ colour = 1, chat_dir = "chats" }))
    assert.equals(vim.log.levels.WARN, helpers.last().level)
    assert.matches("unknown option colour", helpers.last().msg, true)
    assert.equals("chats", require("vibing").options().chat_dir)
  end)
end)

describe("the help file", function()
  it("doc/tags is what :helptags makes of doc/vibing.txt, so :help vibing works from a plain runtimepath", function()
    local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h")
    local tmp = vim.fn.tempname()
    vim.fn.mkdir(tmp, "p")
    vim.fn.writefile(vim.fn.readfile(root .. "/doc/vibing.txt", "b"), tmp .. "/vibing.txt", "b")
    vim.cmd("helptags " .. vim.fn.fnameescape(tmp))
    local want = vim.fn.readfile(tmp .. "/tags")
    local have = vim.fn.filereadable(root .. "/doc/tags") == 1 and vim.fn.readfile(root .. "/doc/tags") or {}
    assert.equals(table.concat(want, "\n"), table.concat(have, "\n"), "doc/tags is stale: run make doc")
    local found = false
    for _, l in ipairs(have) do
      found = found or l:match("^vibing\t") ~= nil or l:match("^vibing%.txt\t") ~= nil
    end
    assert.truthy(found, "doc/tags has no tag for vibing")
  end)
end)
