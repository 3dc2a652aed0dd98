local h = require("harness")
local helpers = require("helpers")
local describe, it, assert = h.describe, h.it, h.assert

local function buffer_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false), "\n")
end

describe(":VibingPermissions", function()
  it("explains the chat in a float", function()
    local buf = helpers.new_chat()
    helpers.say(buf, "/deny Bash(rm:*)")
    vim.cmd("VibingPermissions")
    assert.equals("editor", vim.api.nvim_win_get_config(0).relative)
    local text = buffer_text()
    assert.matches("Bash(rm:*)", text, true)
    assert.falsy(vim.bo.modifiable)
  end)
  it("asks for a chat buffer", function()
    vim.cmd("enew")
    vim.cmd("VibingPermissions")
    assert.matches(":VibingPermissions works in a chat buffer", helpers.last().msg, true)
    assert.equals(vim.log.levels.WARN, helpers.last().level)
  end)
end)

describe(":VibingAudit", function()
  it("lists audit rows in a scratch buffer", function()
    require("vibing").setup({ audit_path = vim.fn.getcwd() .. "/audit.sqlite" })
    helpers.new_chat()
    vim.cmd("VibingAudit")
    local text = buffer_text()
    assert.matches("vibing audit", text, true)
    assert.matches("(no audit rows yet)", text, true)
    assert.equals("nofile", vim.bo.buftype)
  end)
end)

describe("audit rows", function()
  it("are aligned in columns and long values are cut", function()
    local views = require("vibing.ui.views")
    local a = views.format_row({ time = "2026-11-22 10:00:00", decision = "deny", tool = "Bash", source = "deny_list", rule = "Bash(rm -rf)", action = "tool:Bash:rm -rf x" })
    local b = views.format_row({ time = "2026-11-22 10:00:01", decision = "ask_approved", tool = "WebFetch", source = "ask_list", rule = string.rep("r", 40), action = "tool:WebFetch:https://x" })
    local function col(line, text)
      return vim.fn.strdisplaywidth(line:sub(1, line:find(text, 1, true) - 1))
    end
    assert.equals(col(a, "tool:Bash"), col(b, "tool:WebFetch"))
    assert.truthy(b:find("…", 1, true))
    assert.truthy(views.format_row({}):find("^%-"))
  end)
end)

describe(":checkhealth vibing", function()
  it("reports the binary, claude, Neovim and the audit database", function()
    vim.cmd("checkhealth vibing")
    local text = buffer_text()
    assert.matches("vibing%-agent ready %(vibing%-agent 0%.1%.0", text)
    assert.matches("Neovim %d+%.%d+%.%d+", text)
    assert.matches("claude", text, true)
    assert.matches("audit database writable", text, true)
    assert.matches(vim.env.XDG_STATE_HOME .. "/vibing/audit.sqlite", text, true)
  end)
  it("says which Neovim releases are tested and flags older and newer ones", function()
    local health = require("vibing.health")
    local cases = {
      { { major = 0, minor = 7, patch = 2 }, "ok", "Neovim 0.7.2 (vibing is tested on 0.7.2 through 0.12)" },
      { { major = 0, minor = 12, patch = 4 }, "ok", "Neovim 0.12.4 (vibing is tested on 0.7.2 through 0.12)" },
      { { major = 0, minor = 7, patch = 0 }, "error", "Neovim 0.7.0 is too old: vibing needs 0.7.2 or later" },
      { { major = 0, minor = 6, patch = 1 }, "error", "Neovim 0.6.1 is too old" },
      { { major = 0, minor = 13, patch = 0 }, "warn", "Neovim 0.13.0 is newer than the releases vibing is tested on (0.7.2 through 0.12)" },
      { { major = 1, minor = 0, patch = 0 }, "warn", "Neovim 1.0.0 is newer" },
    }
    for _, c in ipairs(cases) do
      local level, msg = health.nvim_status(c[1])
      assert.equals(c[2], level)
      assert.matches(c[3], msg, true)
    end
    vim.cmd("checkhealth vibing")
    assert.matches("(vibing is tested on 0.7.2 through 0.12)", buffer_text(), true)
  end)
  it("reports a missing binary as an error", function()
    require("vibing").setup({ bin = "/nowhere/vibing-agent" })
    vim.cmd("checkhealth vibing")
    assert.matches("vibing-agent unavailable: vibing-agent not found at /nowhere/vibing-agent; run make in", buffer_text(), true)
  end)
end)

describe(":help vibing", function()
  it("opens the help file", function()
    -- helptags writes a tags file; build it in a copy, not in the repository.
    local dir = vim.fn.getcwd() .. "/rtp/doc"
    vim.fn.mkdir(dir, "p")
    vim.fn.writefile(vim.fn.readfile(vim.g.vibing_test_root .. "/doc/vibing.txt"), dir .. "/vibing.txt")
    vim.opt.runtimepath:append(vim.fn.getcwd() .. "/rtp")
    vim.cmd("helptags " .. vim.fn.fnameescape(dir))
    vim.cmd("help vibing")
    assert.matches("vibing.txt", vim.api.nvim_buf_get_name(0), true)
    for _, tag in ipairs({ "vibing-slash-allow", ":VibingChat", "vibing-options-permissions" }) do
      vim.cmd("help " .. tag)
      assert.matches("vibing.txt", vim.api.nvim_buf_get_name(0), true)
    end
  end)
end)

describe(":VibingTrust", function()
  it("shows what waits, trusts after a yes, and checkhealth follows", function()
    local dir = vim.fn.getcwd()
    vim.fn.mkdir(dir .. "/.vibing", "p")
    vim.fn.writefile({ 'allow: ["Bash(npm test)"]' }, dir .. "/.vibing/policy.yaml")
    vim.cmd("checkhealth vibing")
    assert.matches("waits for trust (:VibingTrust): .vibing/policy.yaml", buffer_text(), true)
    local asked
    local real_confirm = vim.fn.confirm
    vim.fn.confirm = function(msg)
      asked = msg
      return 1
    end
    local ok, err = pcall(vim.cmd, "VibingTrust " .. vim.fn.fnameescape(dir))
    vim.fn.confirm = real_confirm
    assert.truthy(ok, err)
    assert.matches("waiting: Bash(npm test)", asked, true)
    assert.matches("Trusted .vibing/policy.yaml", helpers.notified(), true)
    vim.cmd("VibingTrust " .. vim.fn.fnameescape(dir))
    assert.matches("Nothing to trust", helpers.last().msg, true)
    vim.cmd("checkhealth vibing")
    assert.matches("nothing waits for trust", buffer_text(), true)
  end)
  it("trusts nothing when the person says no", function()
    local dir = vim.fn.getcwd()
    vim.fn.mkdir(dir .. "/.vibing", "p")
    vim.fn.writefile({ 'allow: ["Bash(npm test)"]' }, dir .. "/.vibing/policy.yaml")
    local real_confirm = vim.fn.confirm
    vim.fn.confirm = function()
      return 2
    end
    vim.cmd("VibingTrust " .. vim.fn.fnameescape(dir))
    vim.fn.confirm = real_confirm
    assert.matches("Nothing trusted", helpers.last().msg, true)
    vim.cmd("checkhealth vibing")
    assert.matches("waits for trust", buffer_text(), true)
  end)
end)

describe("a chat opened in a project with untrusted policy", function()
  local function untrusted_notes()
    local n = 0
    for _, note in ipairs(helpers.notes) do
      if note.msg:find("not trusted", 1, true) then
        n = n + 1
      end
    end
    return n
  end
  it("says once that its allow rules wait for :VibingTrust", function()
    local dir = vim.fn.getcwd()
    vim.fn.mkdir(dir .. "/.vibing", "p")
    vim.fn.writefile({ 'allow: ["Bash(npm test)"]' }, dir .. "/.vibing/policy.yaml")
    helpers.new_chat()
    assert.truthy(vim.wait(5000, function()
      return untrusted_notes() > 0
    end, 20), "a notice about the untrusted policy: " .. helpers.notified())
    local note
    for _, n in ipairs(helpers.notes) do
      if n.msg:find("not trusted", 1, true) then
        note = n
      end
    end
    assert.matches(":VibingTrust", note.msg, true)
    assert.matches(".vibing/policy.yaml untrusted (waiting: Bash(npm test))", note.msg, true)
    assert.equals(vim.log.levels.WARN, note.level)
    helpers.new_chat()
    vim.wait(1000)
    assert.equals(1, untrusted_notes(), "said once: " .. helpers.notified())
  end)
  it("says nothing when the policy only denies, or there is none", function()
    local dir = vim.fn.getcwd()
    vim.fn.mkdir(dir .. "/.vibing", "p")
    vim.fn.writefile({ 'deny: ["Bash(curl:*)"]' }, dir .. "/.vibing/policy.yaml")
    helpers.new_chat()
    vim.wait(1500)
    assert.equals(0, untrusted_notes(), helpers.notified())
  end)
end)

describe(":checkhealth vibing and the Claude Code hook", function()
  it("says when the hook is not installed, and when it is installed and working", function()
    local home = vim.fn.getcwd() .. "/home"
    vim.fn.mkdir(home, "p")
    local real_home = vim.env.HOME
    vim.env.HOME = home
    vim.cmd("checkhealth vibing")
    local before = buffer_text()
    local bin = require("vibing.rpc").bin()
    vim.fn.system({ bin, "hook", "install" })
    vim.cmd("checkhealth vibing")
    local after = buffer_text()
    vim.fn.system({ bin, "hook", "uninstall" })
    vim.env.HOME = real_home
    assert.matches("Claude Code hook not installed", before, true)
    assert.matches("Claude Code hook installed and working", after, true)
  end)
end)
