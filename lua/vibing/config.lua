---@mod vibing.config Options: the documented defaults and their validation.
local M = {}

---@class vibing.Permissions
---@field mode string permission mode of new chats
---@field allow string[] rules that run without asking
---@field ask string[] rules that ask first
---@field deny string[] rules that are refused
---@field preset string|nil preset of new chats

---@class vibing.Options
---@field bin string|nil path of vibing-agent (default: <plugin>/bin/vibing-agent)
---@field claude_cmd string the claude CLI
---@field chat_dir string where new chats are created
---@field permissions vibing.Permissions template for new chats
---@field policies table<string, string> tool -> trust|once|always
---@field presets table<string, table> user-defined presets
---@field approval_timeout_s integer
---@field idle_timeout_s integer
---@field live_timeout_s integer seconds a chat's agent process waits for the next message (0: until the chat closes)
---@field rpc_timeout_s integer
---@field resume_ask string deny|prompt
---@field default_deny_rules boolean
---@field claude_settings boolean read Claude Code's settings files as policy layers
---@field audit_path string|nil
---@field sandbox string auto|on|off: run the CLI inside bubblewrap
---@field sandbox_writable string[] more folders the sandbox leaves writable
---@field sandbox_env_allow string[] secret-looking environment variables (patterns) that reach the sandbox
---@field sandbox_hosts string[] more hosts (example.com, *.example.com) the sandbox's network proxy lets through
---@field approval_preview_lines integer
---@field keymaps table
---@field backend string claude | demo
---@field window table

-- The defaults. doc/vibing.txt (|vibing-options|) repeats this table.
M.defaults = {
  -- vibing-agent binary; nil means <plugin root>/bin/vibing-agent (built by `make`).
  bin = nil,
  -- The claude CLI (a name on PATH or a path).
  claude_cmd = "claude",
  -- The agent: "claude" (the claude CLI) or "demo" (a scripted agent, no API key).
  backend = "claude",
  -- Folder of new chats, relative to the current directory.
  chat_dir = ".vibing/chat",
  -- Permission template written into every new chat's frontmatter.
  permissions = {
    mode = "default", -- default | acceptEdits | plan | dontAsk | bypassPermissions
    allow = { "Read(**)" },
    ask = {},
    deny = {},
    preset = nil, -- open | standard | locked | one of `presets`
  },
  -- Approval policy per tool: trust | once | always.
  policies = {},
  -- Your own presets: name = { mode = ..., allow = {...}, ask = {...}, deny = {...} }.
  presets = {},
  -- Seconds an approval prompt waits before it counts as a denial.
  approval_timeout_s = 60,
  -- Seconds the agent may stay silent (no event, no approval waiting) before
  -- the run is stopped with an error; 0 means no limit.
  idle_timeout_s = 900,
  live_timeout_s = 1800,
  -- Seconds a call to the vibing-agent rpc host may take before it is given up.
  rpc_timeout_s = 10,
  -- What an ask does in a resumed session: "deny" (with guidance) or "prompt".
  resume_ask = "deny",
  -- Refuse well-known destructive shell commands (rm -rf /, sudo, ...).
  default_deny_rules = true,
  -- Read Claude Code's own settings (~/.claude/settings.json, the project's
  -- .claude/settings*.json, its managed settings) as policy layers.
  claude_settings = true,
  -- Audit database; nil means $XDG_STATE_HOME/vibing/audit.sqlite (~/.local/state/...).
  audit_path = nil,
  -- Run the claude CLI inside bubblewrap with a view derived from the policy
  -- (|vibing-sandbox|): "auto" (where bwrap starts, else a notice), "on"
  -- (refuse to run without it) or "off".
  sandbox = "auto",
  -- More folders the sandbox leaves writable (a tool's cache outside the
  -- project), e.g. { "~/.m2" }.
  sandbox_writable = {},
  sandbox_env_allow = {},
  -- More hosts the sandbox reaches besides the API and the hosts allow
  -- rules name, e.g. { "docs.example.com", "*.example.org" }.
  sandbox_hosts = {},
  -- Lines of a preview (diff, new file, command) shown in an approval block;
  -- the rest is one key away (review).
  approval_preview_lines = 40,
  -- Buffer-local keys in chats; false disables one.
  keymaps = {
    send = "<CR>",
    cancel = "<C-c>",
    -- On a tool line or its output summary: show or hide the whole output
    -- (`za` does too). The same key as send sends everywhere else.
    output = "<CR>",
    -- Answers to an approval: mapped only while one waits in that chat, and
    -- acting only with the cursor inside the pending block (elsewhere the key
    -- does what it did before, your own buffer-local map included).
    approval = {
      allow_once = "y",
      deny_once = "n",
      allow_for_session = "s",
      deny_for_session = "S",
      always_allow = "a", -- asks for the rule first, prefilled with the suggestion
      always_deny = "A",
      review = "d", -- side by side in a new tab; edit the proposal, then approve it there
      deny_reason = "r", -- deny, with a reason typed for the agent
    },
    -- On a "Modified files" list under an answer (elsewhere the key does
    -- what it does in Neovim).
    changes = {
      diff = "gd", -- the file's diff against its content before the turn
      revert = "gr", -- put the file back as it was before the turn
      revert_all = "gR", -- every file of the list
    },
  },
  -- Where :VibingChat opens a chat.
  window = {
    position = "current", -- current | split | vsplit | tab | float
    width = 0.8, -- float: fraction of the editor (or columns when > 1)
    height = 0.8,
    border = "rounded",
  },
}

M.modes = { "default", "acceptEdits", "plan", "dontAsk", "bypassPermissions" }
M.policies = { "trust", "once", "always" }
M.resume_asks = { "deny", "prompt" }
M.sandboxes = { "auto", "on", "off" }
M.positions = { "current", "split", "vsplit", "tab", "float" }

---@type vibing.Options
M.options = vim.deepcopy(M.defaults)

local function one_of(list)
  return function(v)
    return type(v) == "string" and vim.tbl_contains(list, v), "must be one of " .. table.concat(list, ", ")
  end
end

local function is(t, optional)
  return function(v)
    return type(v) == t or (optional and v == nil), "must be a " .. t
  end
end

local function list_of_strings(v)
  if type(v) ~= "table" then
    return false, "must be a list of strings"
  end
  for k, x in pairs(v) do
    if type(k) ~= "number" or type(x) ~= "string" then
      return false, "must be a list of strings"
    end
  end
  return true
end

local function positive_integer(v)
  return type(v) == "number" and v > 0 and math.floor(v) == v, "must be a positive whole number of seconds"
end

local function seconds_or_zero(v)
  return type(v) == "number" and v >= 0 and math.floor(v) == v, "must be a whole number of seconds (0: no limit)"
end

local function key_or_false(v)
  return v == false or type(v) == "string", "must be a key (string) or false"
end

local function size(v)
  return type(v) == "number" and v > 0, "must be a positive number"
end

-- A schema leaf is a checker; a table is a nested option group.
local schema = {
  bin = is("string", true),
  claude_cmd = is("string"),
  backend = one_of({ "claude", "demo" }),
  chat_dir = is("string"),
  permissions = {
    mode = one_of(M.modes),
    allow = list_of_strings,
    ask = list_of_strings,
    deny = list_of_strings,
    preset = is("string", true),
  },
  policies = "policies",
  presets = "presets",
  approval_timeout_s = positive_integer,
  idle_timeout_s = seconds_or_zero,
  live_timeout_s = seconds_or_zero,
  rpc_timeout_s = positive_integer,
  resume_ask = one_of(M.resume_asks),
  default_deny_rules = is("boolean"),
  claude_settings = is("boolean"),
  audit_path = is("string", true),
  sandbox = one_of(M.sandboxes),
  sandbox_writable = list_of_strings,
  sandbox_env_allow = list_of_strings,
  sandbox_hosts = list_of_strings,
  approval_preview_lines = positive_integer,
  keymaps = {
    send = key_or_false,
    cancel = key_or_false,
    output = key_or_false,
    approval = {
      allow_once = key_or_false,
      deny_once = key_or_false,
      allow_for_session = key_or_false,
      deny_for_session = key_or_false,
      always_allow = key_or_false,
      always_deny = key_or_false,
      review = key_or_false,
      deny_reason = key_or_false,
    },
    changes = {
      diff = key_or_false,
      revert = key_or_false,
      revert_all = key_or_false,
    },
  },
  window = {
    position = one_of(M.positions),
    width = size,
    height = size,
    border = is("string"),
  },
}

local preset_schema = {
  mode = one_of(M.modes),
  allow = list_of_strings,
  ask = list_of_strings,
  deny = list_of_strings,
}

---@param opts table user options (only the keys the user gave)
---@param shape table schema for this level
---@param path string dotted path of this level
---@param errors string[]
---@param warnings string[]
local function check(opts, shape, path, errors, warnings)
  for key, v in pairs(opts) do
    local dotted = path == "" and tostring(key) or (path .. "." .. tostring(key))
    local rule = shape[key]
    if rule == nil then
      table.insert(warnings, "unknown option " .. dotted .. " (ignored)")
    elseif type(rule) == "function" then
      local ok, why = rule(v)
      if not ok then
        table.insert(errors, dotted .. " " .. why .. ", got " .. vim.inspect(v))
      end
    elseif rule == "policies" then
      if type(v) ~= "table" then
        table.insert(errors, dotted .. " must be a table of tool = policy")
      else
        for tool, p in pairs(v) do
          if type(tool) ~= "string" or not vim.tbl_contains(M.policies, p) then
            table.insert(errors, dotted .. "." .. tostring(tool) .. " must be one of trust, once, always, got " .. vim.inspect(p))
          end
        end
      end
    elseif rule == "presets" then
      if type(v) ~= "table" then
        table.insert(errors, dotted .. " must be a table of name = preset")
      else
        for name, p in pairs(v) do
          if type(name) ~= "string" or type(p) ~= "table" then
            table.insert(errors, dotted .. "." .. tostring(name) .. " must be a table { mode, allow, ask, deny }")
          else
            check(p, preset_schema, dotted .. "." .. name, errors, warnings)
          end
        end
      end
    elseif type(v) ~= "table" then
      table.insert(errors, dotted .. " must be a table")
    else
      check(v, rule, dotted, errors, warnings)
    end
  end
end

---Validate user options without applying them.
---@param opts table|nil
---@return string[] errors
---@return string[] warnings
function M.validate(opts)
  local errors, warnings = {}, {}
  if opts ~= nil and type(opts) ~= "table" then
    return { "setup() takes a table of options" }, warnings
  end
  check(opts or {}, schema, "", errors, warnings)
  table.sort(errors)
  table.sort(warnings)
  return errors, warnings
end

local function is_map(t)
  if type(t) ~= "table" or next(t) == nil then
    return false
  end
  for k in pairs(t) do
    if type(k) ~= "number" then
      return true
    end
  end
  return false
end

-- Option groups merge key by key; lists (and anything else) replace the default.
local function merge(base, over)
  for k, v in pairs(over) do
    if type(v) == "table" and is_map(base[k]) then
      merge(base[k], v)
    else
      base[k] = vim.deepcopy(v)
    end
  end
  return base
end

---Merge options onto a deepcopy of the defaults.
---@param opts table|nil
---@return vibing.Options
function M.merge(opts)
  return merge(vim.deepcopy(M.defaults), opts or {})
end

---The options the Go side reads (SPEC §6), ready for JSON.
---@param o vibing.Options
---@return table
function M.backend_options(o)
  local out = {
    approval_timeout_s = o.approval_timeout_s,
    idle_timeout_s = o.idle_timeout_s,
    resume_ask = o.resume_ask,
    default_deny_rules = o.default_deny_rules,
    claude_settings = o.claude_settings,
    claude_cmd = o.claude_cmd,
    audit_path = o.audit_path,
    sandbox = o.sandbox,
    permissions = {
      mode = o.permissions.mode,
      allow = o.permissions.allow,
      ask = o.permissions.ask,
      deny = o.permissions.deny,
      preset = o.permissions.preset,
    },
  }
  if #o.sandbox_writable > 0 then
    out.sandbox_writable = o.sandbox_writable
  end
  if #o.sandbox_env_allow > 0 then
    out.sandbox_env_allow = o.sandbox_env_allow
  end
  if #o.sandbox_hosts > 0 then
    out.sandbox_hosts = o.sandbox_hosts
  end
  -- An empty Lua table encodes as a JSON list; maps must stay maps.
  if next(o.policies) then
    out.policies = o.policies
  end
  if next(o.presets) then
    out.presets = o.presets
  end
  return out
end

return M
