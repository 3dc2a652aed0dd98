---@mod vibing.slash Slash commands in the User section, handled locally.
local M = {}

local fm = require("vibing.chat.frontmatter")
local log = require("vibing.log")
local parse = require("vibing.slash.parse")
local rpc = require("vibing.rpc")

---@class vibing.SlashContext
---@field bufnr integer the chat buffer
---@field line string the slash line as typed
---@field lnum integer its line number (kept up to date across edits)
---@field args string everything after the command name

---The slash commands and a one-line summary of each, in /help order.
M.summaries = {
  { "allow", "/allow [Rule...|-Rule...]  show, add or remove rules that run without asking" },
  { "ask", "/ask [Rule...|-Rule...]    show, add or remove rules that ask first" },
  { "deny", "/deny [Rule...|-Rule...]   show, add or remove rules that are refused" },
  { "permissions", "/permissions (or /perm)    build a rule step by step" },
  { "perm", nil },
  { "permission", "/permission <mode>         set the mode (default, acceptEdits, plan, dontAsk, bypassPermissions)" },
  { "preset", "/preset <name>|-            use a preset (open, standard, locked, yours); - removes it" },
  { "model", "/model [name|-]            show or set the model (sonnet, opus, haiku or a full name); - for the CLI's default" },
  { "new-session", "/new-session               forget the session: the next message starts fresh" },
  { "fork", "/fork                      continue this chat's session in a new chat (this one stays as it is)" },
  { "help", "/help                      this list (more in :help vibing-slash)" },
}

---Names of every slash command.
---@return string[]
function M.names()
  local out = {}
  for _, s in ipairs(M.summaries) do
    table.insert(out, s[1])
  end
  return out
end

local function nonil(v)
  return type(v) == "table" and v or {}
end

---Read the chat's settings through the host.
---@param bufnr integer
---@return table|nil settings, string|nil err
function M.settings(bufnr)
  local res, err = rpc.call("settings", { lines = (fm.lines(bufnr)) })
  if not res then
    return nil, err
  end
  return res.settings
end

---Remove the slash line and save the chat. The line goes away, leaving no
---blank line behind, unless the User section needs it: a section keeps the
---blank line under its heading and one line to type on.
---@param ctx vibing.SlashContext
function M.finish(ctx)
  local b = ctx.bufnr
  if not vim.api.nvim_buf_is_valid(b) then
    return
  end
  local cur = vim.api.nvim_buf_get_lines(b, ctx.lnum - 1, ctx.lnum, false)[1]
  if cur == ctx.line then
    local first, last = require("vibing.chat").last_user_section(b)
    if first and ctx.lnum >= first and ctx.lnum <= last and last - first + 1 > 2 then
      vim.api.nvim_buf_set_lines(b, ctx.lnum - 1, ctx.lnum, false, {})
    else
      vim.api.nvim_buf_set_lines(b, ctx.lnum - 1, ctx.lnum, false, { "" })
    end
  end
  require("vibing.chat.store").save(b)
end

---Apply one edit through the host; replaces only the frontmatter lines.
---@param ctx vibing.SlashContext
---@param params table op, list, rules, value
---@return table|nil result, string|nil err (a person's mistake or a host failure)
function M.apply(ctx, params)
  local res, err = require("vibing.chat.store").edit(ctx.bufnr, params, { save = false })
  if res then
    ctx.lnum = ctx.lnum + res.shift
  end
  return res, err
end

---Report an edit: one notification, with its notes.
---@param messages string[]
---@param notes string[]
function M.report(messages, notes)
  local msg = table.concat(messages, " ")
  if #notes > 0 then
    log.warn(msg .. "\n" .. table.concat(notes, "\n"))
  else
    log.info(msg)
  end
end

---Apply an edit, report it, and finish; errors leave the line for fixing.
---@param ctx vibing.SlashContext
---@param edits table[] edits applied in order
---@return boolean ok
function M.edit_and_report(ctx, edits)
  local messages, notes = {}, {}
  for _, e in ipairs(edits) do
    local res, err = M.apply(ctx, e)
    if not res then
      if #messages > 0 then
        M.finish(ctx)
      end
      log.error(err)
      return false
    end
    table.insert(messages, res.message)
    vim.list_extend(notes, nonil(res.notes))
  end
  M.finish(ctx)
  M.report(messages, notes)
  return true
end

local function list_command(list)
  return function(ctx)
    local args = parse.rules(ctx.args)
    if #args == 0 then
      local s, err = M.settings(ctx.bufnr)
      if not s then
        log.error(err)
        return
      end
      local entries = nonil(s[list])
      M.finish(ctx)
      if #entries == 0 then
        log.info(("permissions_%s is empty (add one: /%s %s)"):format(list, list, "Bash(npm test:*)"))
      else
        log.info(("permissions_%s: %s"):format(list, table.concat(entries, ", ")))
      end
      return
    end
    local add, remove = parse.partition(args)
    local edits = {}
    if #add > 0 then
      table.insert(edits, { op = "add", list = list, rules = add })
    end
    if #remove > 0 then
      table.insert(edits, { op = "remove", list = list, rules = remove })
    end
    M.edit_and_report(ctx, edits)
  end
end

local function show_choice(ctx, what, current, choices, example)
  M.finish(ctx)
  log.info(("%s: %s (choose one of %s, e.g. %s)"):format(what, current, table.concat(choices, ", "), example))
end

local commands = {}
commands.allow = list_command("allow")
commands.ask = list_command("ask")
commands.deny = list_command("deny")

function commands.permission(ctx)
  if ctx.args == "" then
    local s, err = M.settings(ctx.bufnr)
    if not s then
      log.error(err)
      return
    end
    local mode = type(s.mode) == "string" and s.mode or "default (not set)"
    show_choice(ctx, "permissions_mode", mode, require("vibing.config").modes, "/permission acceptEdits")
    return
  end
  M.edit_and_report(ctx, { { op = "mode", value = ctx.args } })
end

function commands.preset(ctx)
  if ctx.args == "" then
    local s, err = M.settings(ctx.bufnr)
    local info, ierr = rpc.info()
    if not s or not info then
      log.error(err or ierr)
      return
    end
    local preset = type(s.preset) == "string" and s.preset or "none"
    show_choice(ctx, "permissions_preset", preset, nonil(info.presets), "/preset standard")
    return
  end
  M.edit_and_report(ctx, { { op = "preset", value = ctx.args } })
end

---Model aliases the claude CLI knows (completion of /model; any full model
---name works too).
M.models = { "sonnet", "opus", "haiku", "-" }

function commands.model(ctx)
  if ctx.args == "" then
    local s, err = M.settings(ctx.bufnr)
    if not s then
      log.error(err)
      return
    end
    local model = (type(s.model) == "string" and s.model ~= "") and s.model or "the CLI's default (not set)"
    show_choice(ctx, "model", model, M.models, "/model sonnet")
    return
  end
  M.edit_and_report(ctx, { { op = "model", value = ctx.args } })
end

commands["new-session"] = function(ctx)
  if M.edit_and_report(ctx, { { op = "clear_session" } }) then
    require("vibing.permissions.grants").clear(ctx.bufnr)
    require("vibing.chat.run").stop(ctx.bufnr) -- the next message starts a new session
  end
end

function commands.fork(ctx)
  M.finish(ctx)
  require("vibing.chat.fork").fork(ctx.bufnr)
end

function commands.permissions(ctx)
  require("vibing.permissions.builder").run(ctx)
end
commands.perm = commands.permissions

function commands.help(ctx)
  M.finish(ctx)
  local lines = { "slash commands (type one in the User section, then <CR>):" }
  for _, s in ipairs(M.summaries) do
    if s[2] then
      table.insert(lines, "  " .. s[2])
    end
  end
  table.insert(lines, "Rules: Bash, Bash(npm:*), Read(src/**/*.ts), WebFetch(github.com), Grep(TODO), /tool:Bash:git .*/")
  log.info(table.concat(lines, "\n"))
end

---Run the slash command on line lnum of the chat.
---@param bufnr integer
---@param line string
---@param lnum integer
function M.run(bufnr, line, lnum)
  local name, args = parse.command(line)
  local handler = name and commands[name]
  if not handler then
    log.warn(("unknown command %s; /help lists the slash commands"):format(vim.trim(line):match("^%S+")))
    return
  end
  handler({ bufnr = bufnr, line = line, lnum = lnum, args = args })
end

return M
