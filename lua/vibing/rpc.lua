---@mod vibing.rpc The vibing-agent msgpack-RPC host: started on first use, restarted if it dies.
local M = {}

local log = require("vibing.log")

---@type integer|nil channel of the running host
local chan = nil
---@type table<integer, boolean> channels we stopped on purpose
local stopping = {}
---@type table<integer, integer> exit code of channels that ended
local exited = {}
---@type table<integer, string> why we stopped a channel (a timeout)
local stop_reason = {}
local stderr = {}
---@type table|nil cached `info` reply
local info_cache = nil
-- The editor is quitting: the host ending then is expected, not news.
local leaving = false

---Path of the plugin's root folder (the one holding lua/ and bin/).
---@return string
function M.plugin_root()
  local src = debug.getinfo(1, "S").source:sub(2)
  return vim.fn.fnamemodify(src, ":p:h:h:h")
end

---The vibing-agent binary the options name (or the plugin's own).
---@return string
function M.bin()
  local o = require("vibing").options()
  if o.bin and o.bin ~= "" then
    return vim.fn.expand(o.bin)
  end
  return M.plugin_root() .. "/bin/vibing-agent"
end

local function state_dir()
  local ok, dir = pcall(vim.fn.stdpath, "state") -- "state" is new in Neovim 0.8
  if not ok then
    dir = vim.fn.stdpath("data")
  end
  return dir .. "/vibing"
end

---Write the Go-relevant options as JSON for `--config`; returns its path.
---@return string
function M.write_config()
  local config = require("vibing.config")
  local dir = state_dir()
  vim.fn.mkdir(dir, "p")
  local path = dir .. "/config.json"
  local data = vim.fn.json_encode(config.backend_options(require("vibing").options()))
  vim.fn.writefile({ data }, path)
  return path
end

---Why the binary cannot be used, or nil when it looks runnable.
---@param bin string
---@return string|nil
function M.missing(bin)
  if vim.fn.executable(bin) == 1 then
    return nil
  end
  local dir = M.plugin_root()
  if vim.fn.filereadable(bin) == 1 then
    return "vibing-agent at " .. bin .. " is not executable; run make in " .. dir
  end
  return "vibing-agent not found at " .. bin .. "; run make in " .. dir
end

local function stderr_text()
  return (table.concat(stderr, "\n"):gsub("%s+$", ""))
end

local function on_exit(id, code)
  exited[id] = code
  if chan == id then
    chan = nil
    info_cache = nil
  end
  if stopping[id] or leaving then
    stopping[id] = nil
    return
  end
  local why = stderr_text()
  log.warn(
    ("vibing-agent rpc stopped (exit %d)%s; it restarts on the next use"):format(
      code,
      why ~= "" and (": " .. why:sub(-300)) or ""
    )
  )
end

---The version `bin version` reports, or nil and why not.
---@param bin string
---@return string|nil, string|nil
function M.version(bin)
  local out = vim.fn.systemlist({ bin, "version" })
  if vim.v.shell_error ~= 0 then
    return nil, ("`%s version` failed (exit %d): %s"):format(bin, vim.v.shell_error, table.concat(out, " "))
  end
  local v = (out[1] or ""):match("^vibing%-agent%s+(%S+)")
  if not v then
    return nil, ("`%s version` printed %q, not a vibing-agent version"):format(bin, out[1] or "")
  end
  return v
end

---Start the host; returns the channel or nil and why not.
---@return integer|nil, string|nil
function M.start()
  if chan then
    return chan
  end
  local bin = M.bin()
  local why = M.missing(bin)
  if why then
    return nil, why
  end
  local ver, verr = M.version(bin)
  local want = require("vibing.version")
  if not ver then
    return nil, verr
  end
  if ver ~= want then
    return nil, ("vibing-agent is version %s but the plugin is %s; run make in %s"):format(ver, want, M.plugin_root())
  end
  stderr = {}
  vim.api.nvim_create_autocmd("VimLeavePre", {
    group = vim.api.nvim_create_augroup("vibing_rpc", { clear = true }),
    desc = "vibing: the rpc host stops with the editor",
    callback = function()
      leaving = true
    end,
  })
  local ok, id = pcall(vim.fn.jobstart, { bin, "rpc", "--config", M.write_config() }, {
    rpc = true,
    on_stderr = function(_, data)
      for _, l in ipairs(data or {}) do
        if l ~= "" then
          table.insert(stderr, l)
          if #stderr > 20 then
            table.remove(stderr, 1)
          end
        end
      end
    end,
    on_exit = function(id, code)
      on_exit(id, code)
    end,
  })
  if not ok or type(id) ~= "number" or id <= 0 then
    return nil, "could not start " .. bin .. " rpc: " .. tostring(id)
  end
  chan = id
  return chan
end

---Stop the host (it starts again on the next request).
function M.stop()
  if chan then
    stopping[chan] = true
    pcall(vim.fn.jobstop, chan)
    chan = nil
    info_cache = nil
  end
end

---The running host's channel, or nil.
---@return integer|nil
function M.channel()
  return chan
end

local function timeout_ms()
  local ok, o = pcall(function()
    return require("vibing").options()
  end)
  local s = ok and type(o) == "table" and tonumber(o.rpc_timeout_s) or nil
  return (s and s > 0 and s or 10) * 1000
end

-- One request with a deadline. vim.rpcrequest blocks the editor and has no
-- timeout of its own (<C-c> does not end it), so a libuv timer kills a host
-- that does not answer in time: the request then fails at once.
local function call(id, method, params)
  local pid = vim.fn.jobpid(id)
  local ms = timeout_ms()
  local timer = vim.loop.new_timer()
  timer:start(ms, 0, function()
    stop_reason[id] = ("did not answer %s within %d s"):format(method, ms / 1000)
    stopping[id] = true
    pcall(vim.loop.kill, pid, 9)
  end)
  local ok, res = pcall(vim.rpcrequest, id, method, params or {})
  timer:stop()
  timer:close()
  return ok, res
end

-- Why channel id failed: the timeout, or the host's exit and stderr.
local function failure(id, msg)
  if stop_reason[id] then
    local why = "vibing-agent rpc " .. stop_reason[id] .. " and was stopped; it restarts on the next use"
    stop_reason[id] = nil
    return why
  end
  -- A host that died (at start-up, say) leaves only "Invalid channel":
  -- wait for its exit to report the code and what it printed.
  vim.wait(1000, function()
    return exited[id] ~= nil
  end, 20)
  if exited[id] ~= nil then
    local err = stderr_text()
    return ("vibing-agent rpc exited (code %d)%s"):format(exited[id], err ~= "" and (": " .. err:sub(-500)) or "")
  end
  return (msg:gsub("^Vim:", ""):gsub("^Error invoking '[^']*' on channel %d+:%s*", ""))
end

---Call a method. Returns the reply, or nil and an error message; it never
---raises, never waits longer than `rpc_timeout_s`, and a host that died is
---started again once.
---@param method string
---@param params table|nil
---@return any|nil, string|nil
function M.request(method, params)
  for attempt = 1, 2 do
    local id, why = M.start()
    if not id then
      return nil, why
    end
    local ok, res = call(id, method, params)
    if ok then
      return res
    end
    local alive = vim.fn.jobwait({ id }, 0)[1] == -1
    if alive or attempt == 2 or stop_reason[id] then
      return nil, failure(id, tostring(res))
    end
    -- Died before this request: start it once more, unless it dies at once.
    if chan == id then
      chan = nil
    end
  end
end

---Call a method whose reply is `{ ok = true, … }` or `{ ok = false, error = "…" }`.
---Returns the reply when it is ok; otherwise nil and why (the host's failure
---or the reply's error), never raising.
---@param method string
---@param params table|nil
---@return table|nil, string|nil
function M.call(method, params)
  local res, err = M.request(method, params)
  if not res then
    return nil, err
  end
  if type(res) ~= "table" then
    return nil, ("vibing-agent rpc answered %s with %s"):format(method, vim.inspect(res))
  end
  if not res.ok then
    return nil, tostring(res.error or (method .. " failed"))
  end
  return res
end

---Tool names, argument kinds, examples, modes and presets (cached per host).
---@return table|nil, string|nil
function M.info()
  if info_cache and chan then
    return info_cache
  end
  local res, err = M.request("info")
  if res then
    info_cache = res
  end
  return res, err
end

return M
