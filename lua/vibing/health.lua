---@mod vibing.health :checkhealth vibing
local M = {}

-- Neovim 0.10 has vim.health.start/ok/...; 0.7 has require("health").report_*.
local function reporter()
  local h = vim.health
  if h and h.start then
    return { start = h.start, ok = h.ok, warn = h.warn, error = h.error, info = h.info }
  end
  h = require("health")
  return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error, info = h.report_info }
end

local function first_line(cmd)
  local out = vim.fn.systemlist(cmd)
  if vim.v.shell_error ~= 0 then
    return nil, table.concat(out, " ")
  end
  return out[1] or ""
end

-- The Neovim releases the plugin is tested on (make test runs all three of 0.7.2, 0.10, 0.12).
M.tested = "0.7.2 through 0.12"

---The health level ("ok", "warn" or "error") and sentence for Neovim version v.
---@param v table { major, minor, patch } as vim.version() returns it
---@return string level, string message
function M.nvim_status(v)
  local nv = ("%d.%d.%d"):format(v.major, v.minor, v.patch)
  if v.major == 0 and (v.minor < 7 or (v.minor == 7 and v.patch < 2)) then
    return "error", ("Neovim %s is too old: vibing needs 0.7.2 or later (tested on %s)"):format(nv, M.tested)
  elseif v.major == 0 and v.minor <= 12 then
    return "ok", ("Neovim %s (vibing is tested on %s)"):format(nv, M.tested)
  end
  return "warn", ("Neovim %s is newer than the releases vibing is tested on (%s)"):format(nv, M.tested)
end

function M.check()
  local r = reporter()
  r.start("vibing")
  local level, msg = M.nvim_status(vim.version())
  r[level](msg)

  local rpc = require("vibing.rpc")
  local want = require("vibing.version")
  local bin = rpc.bin()
  local missing = rpc.missing(bin)
  if missing then
    r.error("vibing-agent unavailable: " .. missing)
  else
    local line, err = first_line({ bin, "version" })
    local got = line and line:match("^vibing%-agent%s+(%S+)")
    if not line then
      r.error("vibing-agent unavailable: `" .. bin .. " version` failed: " .. err)
    elseif got ~= want then
      r.error(("vibing-agent is version %s but the plugin is %s; run make in %s"):format(tostring(got), want, rpc.plugin_root()))
    else
      r.ok("vibing-agent ready (" .. line .. ") at " .. bin)
    end
  end

  local o = require("vibing").options()
  local claude = vim.env.VIBING_CLAUDE_BIN ~= nil and vim.env.VIBING_CLAUDE_BIN ~= "" and vim.env.VIBING_CLAUDE_BIN or o.claude_cmd
  if vim.fn.executable(claude) == 1 then
    local line, err = first_line({ claude, "--version" })
    if line then
      r.ok("claude ready (" .. line .. ")")
    else
      r.warn("claude unavailable: `" .. claude .. " --version` failed: " .. err)
    end
  else
    r.warn("claude unavailable: " .. claude .. " is not on PATH (install @anthropic-ai/claude-code or set claude_cmd)")
  end

  if not missing then
    -- the Claude Code hook (vibing-agent hook): installed, current, working
    local out = vim.fn.systemlist({ bin, "hook", "status", "--project", require("vibing.permissions.trust").project_dir() })
    local problems = {}
    for _, l in ipairs(out) do
      if l:match("^problem:") or l:match("^warning:") then
        table.insert(problems, l)
      end
    end
    if vim.v.shell_error == 0 then
      r.ok("Claude Code hook installed and working (vibing-agent hook status)")
      for _, p in ipairs(problems) do
        r.warn("Claude Code hook: " .. p)
      end
    else
      r.info("Claude Code hook not installed: terminal claude sessions are not decided by vibing (vibing-agent hook install; :help vibing-hook)")
      for _, p in ipairs(problems) do
        if not p:find("no vibing%-agent hook entry is installed") then
          r.warn("Claude Code hook: " .. p)
        end
      end
    end
    local trust = require("vibing.permissions.trust")
    local dir = trust.project_dir()
    local waiting, terr = trust.waiting(bin, dir)
    if not waiting then
      r.warn("project policy files of " .. dir .. " could not be listed: " .. tostring(terr))
    elseif #waiting == 0 then
      r.ok("project policy files of " .. dir .. ": nothing waits for trust")
    else
      for _, l in ipairs(waiting) do
        r.warn("waits for trust (:VibingTrust): " .. l)
      end
    end
  end

  local db = o.audit_path
  if not db or db == "" then
    -- The same default as vibing-agent's: $XDG_STATE_HOME/vibing/audit.sqlite.
    local state = vim.env.XDG_STATE_HOME
    if not state or state == "" then
      state = (vim.loop.os_homedir() or "~") .. "/.local/state"
    end
    db = state .. "/vibing/audit.sqlite"
  end
  local dir = vim.fn.fnamemodify(db, ":h")
  vim.fn.mkdir(dir, "p")
  if vim.fn.filewritable(db) == 1 or (vim.fn.filereadable(db) == 0 and vim.fn.filewritable(dir) == 2) then
    r.ok("audit database writable: " .. db)
  else
    r.error("audit database not writable: " .. db)
  end
end

return M
