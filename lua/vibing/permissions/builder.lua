---@mod vibing.permissions.builder /permissions: build a rule with vim.ui.select and vim.ui.input.
local M = {}

local log = require("vibing.log")

local function nonil(v)
  return type(v) == "table" and v or {}
end

---Rules in the settings that name tool, as "allow: X, Y; deny: Z".
---@param settings table
---@param tool string
---@return string
function M.current(settings, tool)
  local parts = {}
  local lower = tool:lower()
  for _, list in ipairs({ "allow", "ask", "deny" }) do
    local hits = {}
    for _, r in ipairs(nonil(settings[list])) do
      local name = r:match("^([^%(]+)") or r
      if name:lower() == lower then
        table.insert(hits, r)
      end
    end
    if #hits > 0 then
      table.insert(parts, list .. ": " .. table.concat(hits, ", "))
    end
  end
  return table.concat(parts, "; ")
end

local prompts = {
  command = "Command prefix for %s (e.g. npm test gives %s(npm test:*); empty = every command): ",
  path = "Path glob for %s (e.g. src/**/*.ts; empty = every file): ",
  domain = "Domain for %s (e.g. github.com or *.example.org; empty = every URL): ",
  pattern = "Pattern for %s (exact; empty = every use): ",
}

---The rule for a tool and the person's answer to the argument prompt.
---@param tool string
---@param kind string none|command|path|domain|pattern
---@param arg string
---@return string
function M.rule(tool, kind, arg)
  arg = vim.trim(arg or "")
  if arg == "" or kind == "none" then
    return tool
  end
  if kind == "command" and not arg:find("*", 1, true) then
    arg = arg .. ":*"
  end
  return tool .. "(" .. arg .. ")"
end

local function cancelled(ctx)
  require("vibing.slash").finish(ctx)
  log.info("permission builder cancelled; nothing changed")
end

---Run the builder for the chat of ctx: tool -> allow/ask/deny -> argument.
---@param ctx vibing.SlashContext
function M.run(ctx)
  local slash = require("vibing.slash")
  local info, err = require("vibing.rpc").info()
  local settings, serr = slash.settings(ctx.bufnr)
  if not info or not settings then
    log.error(err or serr)
    return
  end
  vim.ui.select(nonil(info.tools), {
    prompt = "Tool:",
    format_item = function(tool)
      local cur = M.current(settings, tool)
      return cur == "" and tool or (tool .. "  [" .. cur .. "]")
    end,
  }, function(tool)
    if not tool then
      return cancelled(ctx)
    end
    vim.ui.select({ "allow", "ask", "deny" }, { prompt = "Permission for " .. tool .. ":" }, function(list)
      if not list then
        return cancelled(ctx)
      end
      local kind = nonil(info.args)[tool] or "none"
      local finish = function(arg)
        slash.edit_and_report(ctx, { { op = "add", list = list, rules = { M.rule(tool, kind, arg) } } })
      end
      if kind == "none" then
        return finish("")
      end
      local cur = M.current(settings, tool)
      local prompt = prompts[kind]:format(tool, tool)
      if cur ~= "" then
        prompt = "[" .. cur .. "] " .. prompt
      end
      vim.ui.input({ prompt = prompt }, function(arg)
        if arg == nil then
          return cancelled(ctx)
        end
        finish(arg)
      end)
    end)
  end)
end

return M
