---@mod vibing.permissions.trust :VibingTrust — trust a project's policy files.
---A project's .vibing/policy.yaml and .claude/settings*.json are written by
---whoever wrote the repository: their deny and ask rules apply at once, their
---allow rules and mode only after the person trusted the file's exact content
---(vibing-agent trust records its SHA-256; any change needs trusting again).
local M = {}

---The project folder of the current buffer: the folder holding the .vibing/
---of a chat file, else the current directory.
---@return string
function M.project_dir()
  local name = vim.api.nvim_buf_get_name(0)
  local root = name:match("^(.*)/%.vibing/")
  if root and root ~= "" then
    return root
  end
  return vim.fn.getcwd()
end

---Lines of `vibing-agent trust --list` for dir that wait for trust.
---@param bin string
---@param dir string
---@return string[]|nil waiting, string|nil err
function M.waiting(bin, dir)
  local out = vim.fn.systemlist({ bin, "trust", "--dir", dir, "--list", "--config", require("vibing.rpc").write_config() })
  if vim.v.shell_error ~= 0 then
    return nil, table.concat(out, " ")
  end
  local waiting = {}
  for _, l in ipairs(out) do
    if l:find(" untrusted", 1, true) or l:find(" changed", 1, true) then
      table.insert(waiting, l)
    end
  end
  return waiting
end

local noted = {} -- project folders already told about, this editor session

---Say once per project folder and editor session, when a chat opens there,
---that the project's policy files hold allow rules waiting for trust (they
---ask until :VibingTrust). Runs `vibing-agent trust --list` in the
---background; says nothing when the binary is missing or nothing waits.
---@param dir string the project folder
function M.note_once(dir)
  if noted[dir] then
    return
  end
  -- only a project that has a policy file of its own can wait for trust:
  -- without one, no process is started
  local has = false
  for _, f in ipairs({ "/.vibing/policy.yaml", "/.claude/settings.json", "/.claude/settings.local.json" }) do
    has = has or vim.loop.fs_stat(dir .. f) ~= nil
  end
  if not has then
    return
  end
  noted[dir] = true
  local rpc = require("vibing.rpc")
  local bin = rpc.bin()
  if rpc.missing(bin) then
    return
  end
  local lines = {}
  local ok = pcall(vim.fn.jobstart, { bin, "trust", "--dir", dir, "--list", "--config", rpc.write_config() }, {
    stdout_buffered = true,
    on_stdout = function(_, data)
      lines = data or {}
    end,
    on_exit = function(_, code)
      if code ~= 0 then
        return
      end
      local waiting = {}
      for _, l in ipairs(lines) do
        if l:find("(waiting: ", 1, true) then
          table.insert(waiting, (l:gsub("%s+", " ")))
        end
      end
      if #waiting > 0 then
        require("vibing.log").warn(
          "This project's policy files are not trusted, so calls their allow rules name ask until you trust them with :VibingTrust: "
            .. table.concat(waiting, "; ")
        )
      end
    end,
  })
  if not ok then
    noted[dir] = nil
  end
end

---The project folder of chat buffer bufnr: the folder holding its .vibing/,
---else the current directory.
---@param bufnr integer
---@return string
function M.chat_project(bufnr)
  local root = vim.api.nvim_buf_get_name(bufnr):match("^(.*)/%.vibing/")
  if root and root ~= "" then
    return root
  end
  return vim.fn.getcwd()
end

---:VibingTrust — show what waits, ask, then trust.
---@param dir string|nil the project folder (default: M.project_dir())
function M.run(dir)
  local log = require("vibing.log")
  local rpc = require("vibing.rpc")
  local bin = rpc.bin()
  local missing = rpc.missing(bin)
  if missing then
    log.error("vibing-agent unavailable: " .. missing)
    return
  end
  dir = dir or M.project_dir()
  local waiting, err = M.waiting(bin, dir)
  if not waiting then
    log.error("vibing-agent trust --list failed: " .. tostring(err))
    return
  end
  if #waiting == 0 then
    log.info("Nothing to trust in " .. dir .. ": every project policy file is trusted already (or there is none).")
    return
  end
  local msg = "Trust these policy files of " .. dir .. "? Their allow rules and mode will apply:\n" .. table.concat(waiting, "\n")
  if vim.fn.confirm(msg, "&Trust\n&Cancel", 2) ~= 1 then
    log.info("Nothing trusted.")
    return
  end
  local out = vim.fn.systemlist({ bin, "trust", "--dir", dir, "--config", rpc.write_config() })
  if vim.v.shell_error ~= 0 then
    log.error("vibing-agent trust failed: " .. table.concat(out, " "))
    return
  end
  log.info(table.concat(out, "\n"))
end

return M
