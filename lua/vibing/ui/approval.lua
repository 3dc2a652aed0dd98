---@mod vibing.ui.approval Approval prompts inside the chat buffer.
---One block at a time per chat (the active request); later requests wait in
---a queue and the block says how many. While a chat has a pending request,
---single keys (keymaps.approval) answer it, but only with the cursor inside
---the block: elsewhere a key does what it did before (a `yy` stays a yank, a
---buffer-local map of yours still runs), and your maps come back once the
---last request is answered. After the answer (or a timeout or a cancel) the
---block collapses to one line.
local M = {}

local render = require("vibing.chat.render")

local ns = vim.api.nvim_create_namespace("vibing_approval")
M.ns = ns

---@class vibing.Pending
---@field req vibing.ApprovalRequest
---@field send fun(msg: table) writes one JSON line to the run's stdin
---@field writer vibing.Writer
---@field mark integer|nil extmark on the block's first line (when shown)
---@field nlines integer lines the block takes
---@field deadline number hrtime (ns) when the run times the request out
---@field answered string|nil the decision sent
---@field rule string|nil the rule sent with an always answer
---@field shown_at number|nil hrtime when the block became visible

---@type table<integer, vibing.Pending[]> chat buffer -> requests, active first
local queues = {}

---Highlight groups (linked with default = true so a colorscheme may override them).
M.highlights = {
  VibingApprovalTitle = "WarningMsg",
  VibingApproval = "Normal",
  VibingApprovalRule = "String",
  VibingApprovalKey = "Special",
  VibingApprovalCountdown = "WarningMsg",
  VibingAllowed = "DiagnosticInfo",
  VibingDenied = "DiagnosticWarn",
  VibingAsked = "DiagnosticHint",
  VibingToolResult = "Comment",
  VibingError = "ErrorMsg",
  VibingNotice = "DiagnosticHint",
  VibingStatus = "Comment",
  VibingDiffAdd = "DiffAdd",
  VibingDiffDelete = "DiffDelete",
  VibingDiffHunk = "DiffChange",
  VibingDiffFile = "Title",
  VibingApprovalFence = "Comment",
  VibingApprovalCode = "Normal",
  VibingApprovalEffect = "WarningMsg",
}

---Define the highlight groups (idempotent).
function M.setup_highlights()
  for group, link in pairs(M.highlights) do
    vim.api.nvim_set_hl(0, group, { link = link, default = true })
  end
end

local function keys()
  return require("vibing").options().keymaps.approval or {}
end

local function preview_lines()
  return require("vibing").options().approval_preview_lines or 40
end

-- The answers besides the six decisions.
local extra_actions = { "review", "deny_reason" }

---@type table<integer, table<string, table>> chat buffer -> key -> the person's own buffer-local map it hid
local hidden = {}

---Fire a `User` autocmd (for statuslines, tests and the demo).
---@param pattern string
---@param data table|nil
function M.fire(pattern, data)
  -- `data` arrived in Neovim 0.8; buffer variables carry the same facts everywhere.
  local opts = { pattern = pattern, modeline = false }
  if vim.fn.has("nvim-0.8") == 1 then
    opts.data = data
  end
  vim.api.nvim_exec_autocmds("User", opts)
end
local fire = M.fire

---Requests waiting in a chat (the active one included).
---@param bufnr integer
---@return integer
function M.pending(bufnr)
  return #(queues[bufnr] or {})
end

---The active request of a chat, or nil.
---@param bufnr integer
---@return vibing.Pending|nil
function M.active(bufnr)
  return (queues[bufnr] or {})[1]
end

local function remaining(p)
  return math.max(0, math.ceil((p.deadline - vim.loop.hrtime()) / 1e9))
end

local function set_countdown(bufnr, p)
  if not p.mark or not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  local pos = vim.api.nvim_buf_get_extmark_by_id(bufnr, ns, p.mark, {})
  if not pos[1] then
    return
  end
  local text = p.answered and ("⏳ sending " .. render.labels[p.answered] .. "…") or render.countdown(remaining(p))
  vim.api.nvim_buf_set_extmark(bufnr, ns, pos[1], 0, {
    id = p.mark,
    virt_text = { { "  " .. text, "VibingApprovalCountdown" } },
    virt_text_pos = "eol",
  })
end

-- Replace the block's lines (or write them at the end the first time).
local function draw(bufnr, p, lines, hls)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return -- closed (:bd): its text is gone, nothing may be written into it
  end
  local row
  if p.mark then
    row = vim.api.nvim_buf_get_extmark_by_id(bufnr, ns, p.mark, {})[1]
  end
  if row then
    vim.api.nvim_buf_clear_namespace(bufnr, ns, row, row + p.nlines)
    vim.api.nvim_buf_set_lines(bufnr, row, row + p.nlines, false, lines)
    for i, g in ipairs(hls) do
      vim.api.nvim_buf_add_highlight(bufnr, ns, g, row + i - 1, 0, -1)
    end
  else
    row = p.writer:lines(lines)
    for i, g in ipairs(hls) do
      vim.api.nvim_buf_add_highlight(bufnr, ns, g, row + i - 1, 0, -1)
    end
  end
  p.nlines = #lines
  p.mark = vim.api.nvim_buf_set_extmark(bufnr, ns, row, 0, { id = p.mark })
end

local function show(bufnr, p)
  local q = queues[bufnr]
  local lines, hls = render.block(p.req, keys(), #q - 1, preview_lines())
  draw(bufnr, p, lines, hls)
  set_countdown(bufnr, p)
  p.shown_at = p.shown_at or vim.loop.hrtime()
  vim.b[bufnr].vibing_approval = p.req.id
  fire("VibingApproval", { buf = bufnr, id = p.req.id })
end

---Whether the cursor of the current window is inside the pending block of bufnr.
---@param bufnr integer
---@return boolean
function M.cursor_inside(bufnr)
  local p = M.active(bufnr)
  if not p or not p.mark or vim.api.nvim_get_current_buf() ~= bufnr then
    return false
  end
  local row = vim.api.nvim_buf_get_extmark_by_id(bufnr, ns, p.mark, {})[1]
  local cur = vim.api.nvim_win_get_cursor(0)[1] - 1
  return row ~= nil and cur >= row and cur < row + p.nlines
end

-- Restore one of the person's buffer-local maps hidden by ours.
local function restore(bufnr, m)
  local opts = {
    buffer = bufnr,
    expr = m.expr == 1,
    remap = m.noremap ~= 1,
    silent = m.silent == 1,
    nowait = m.nowait == 1,
    desc = m.desc,
  }
  pcall(vim.keymap.set, "n", m.lhs, m.callback or m.rhs, opts)
end

local function unmap(bufnr)
  local saved = hidden[bufnr] or {}
  hidden[bufnr] = nil
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  local k = keys()
  for _, d in ipairs(vim.list_extend(vim.deepcopy(render.decisions), extra_actions)) do
    if k[d] then
      pcall(vim.keymap.del, "n", k[d], { buffer = bufnr })
    end
  end
  for _, m in pairs(saved) do
    restore(bufnr, m)
  end
end

-- Outside the block a key does what it did before: the person's own map,
-- else Neovim's own command, with the count and register typed before it.
local function fallback(saved, key)
  if saved and saved.callback and saved.expr ~= 1 then
    saved.callback()
    return
  end
  local prefix = ""
  if vim.v.register ~= "" and vim.v.register ~= '"' then
    prefix = '"' .. vim.v.register
  end
  if vim.v.count > 0 then
    prefix = prefix .. vim.v.count
  end
  local rhs, mode = key, "n"
  if saved then
    rhs = (saved.callback and saved.callback()) or saved.rhs or key
    mode = saved.noremap == 1 and "n" or "m"
  end
  -- "i": before what is still typed, so `yy` stays one yank
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(prefix .. rhs, true, false, true), mode .. "i", false)
end

local function map(bufnr)
  local k = keys()
  hidden[bufnr] = {}
  for _, d in ipairs(vim.list_extend(vim.deepcopy(render.decisions), extra_actions)) do
    local key = k[d]
    if key then
      local own = vim.fn.maparg(key, "n", false, true)
      if type(own) == "table" and own.buffer == 1 then
        -- maparg's callback is not callable from Lua on Neovim 0.7; the keymap list's is
        own.callback = nil
        for _, m in ipairs(vim.api.nvim_buf_get_keymap(bufnr, "n")) do
          if m.lhs == own.lhs and type(m.callback) == "function" then
            own.callback = m.callback
          end
        end
        hidden[bufnr][key] = own
      end
      local label = render.labels[d] or d:gsub("_", " ")
      vim.keymap.set("n", key, function()
        if M.cursor_inside(bufnr) then
          M.act(bufnr, d)
        else
          fallback((hidden[bufnr] or {})[key], key)
        end
      end, { buffer = bufnr, nowait = true, desc = "vibing: " .. label .. " (inside the approval block)" })
    end
  end
end

---Move the current window's cursor to the pending block of bufnr (when the
---window shows it), so the answer keys act.
---@param bufnr integer
---@return boolean moved
function M.focus(bufnr)
  local p = M.active(bufnr)
  if not p or not p.mark or vim.api.nvim_get_current_buf() ~= bufnr then
    return false
  end
  local row = vim.api.nvim_buf_get_extmark_by_id(bufnr, ns, p.mark, {})[1]
  if not row then
    return false
  end
  vim.api.nvim_win_set_cursor(0, { row + 1, 0 })
  return true
end

---Run an answer key's action on the active request.
---@param bufnr integer
---@param action string one of render.decisions, "review" or "deny_reason"
function M.act(bufnr, action)
  if action == "review" then
    local p = M.active(bufnr)
    if p then
      require("vibing.ui.review").open(bufnr, p.req)
    end
  elseif action == "deny_reason" then
    M.deny_with_reason(bufnr)
  else
    M.answer(bufnr, action)
  end
end

---Deny the active request with a reason the person types (sent to the agent).
---An empty or dismissed input leaves the request waiting.
---@param bufnr integer
function M.deny_with_reason(bufnr)
  local p = M.active(bufnr)
  if not p or p.answered then
    return
  end
  vim.ui.input({ prompt = "Deny — your reason, sent to the agent: " }, function(reason)
    reason = reason and vim.trim(reason)
    if reason and reason ~= "" then
      M.answer(bufnr, "deny_once", { reason = reason })
    end
  end)
end

---A run asked for approval: queue it, show it when it is first in line.
---@param bufnr integer
---@param req vibing.ApprovalRequest
---@param send fun(msg: table)
---@param writer vibing.Writer
function M.request(bufnr, req, send, writer)
  queues[bufnr] = queues[bufnr] or {}
  local q = queues[bufnr]
  local timeout = tonumber(render.field(req, "timeout_s")) or 60
  req.timeout_s = timeout
  table.insert(q, { req = req, send = send, writer = writer, nlines = 0, deadline = vim.loop.hrtime() + timeout * 1e9 })
  if #q == 1 then
    map(bufnr)
    show(bufnr, q[1])
  else
    show(bufnr, q[1]) -- the title's "N more waiting"
  end
end

local function index(bufnr, id)
  for i, p in ipairs(queues[bufnr] or {}) do
    if p.req.id == id then
      return i
    end
  end
end

local function advance(bufnr)
  local q = queues[bufnr]
  if not q or #q == 0 then
    queues[bufnr] = nil
    unmap(bufnr)
    if vim.api.nvim_buf_is_valid(bufnr) then
      vim.b[bufnr].vibing_approval = nil
    end
    return
  end
  show(bufnr, q[1])
end

---Collapse a request's block to its one-line record and show the next.
---@param bufnr integer
---@param ev table approval_resolved event
---@param rule string|nil rule an always answer added (from rule_added)
function M.resolved(bufnr, ev, rule)
  local i = index(bufnr, ev.id)
  if not i then
    return
  end
  local p = table.remove(queues[bufnr], i)
  -- An "always" rule is named only once it is saved to the chat (rule comes
  -- from rule_added after the save); a session grant names the answer's rule.
  local always = ev.decision == "always_allow" or ev.decision == "always_deny"
  local line, hl = render.outcome_line(p.req, ev, rule or (not always and p.rule or nil))
  if p.mark then
    draw(bufnr, p, { line }, { hl })
    pcall(vim.api.nvim_buf_del_extmark, bufnr, ns, p.mark)
  else
    p.writer:lines({ line }, hl)
  end
  advance(bufnr)
end

---Send an answer for the active request. Always answers ask for the rule
---first (prefilled with the suggested rule); an empty or dismissed input
---leaves the request waiting.
---@param bufnr integer
---@param decision string one of render.decisions
---@param extra table|nil { updated_input = table } (allow_once) or { reason = string } (deny_once)
function M.answer(bufnr, decision, extra)
  local p = M.active(bufnr)
  if not p or p.answered then
    return
  end
  local offered = render.field(p.req, "options")
  if type(offered) == "table" and not vim.tbl_contains(offered, decision) then
    local limit = render.field(p.req, "limit")
    require("vibing.log").warn(("%s is not offered for this request%s"):format(render.labels[decision], (limit and limit ~= "") and (": " .. limit) or ""))
    return
  end
  local function send(rule)
    if M.active(bufnr) ~= p or p.answered then
      return -- answered, timed out or cancelled meanwhile
    end
    p.answered, p.rule = decision, rule
    local msg = { type = "approval_response", id = p.req.id, decision = decision }
    for k, v in pairs(extra or {}) do
      msg[k] = v
    end
    local sugg = render.field(p.req, "suggested_rule")
    if rule and rule ~= sugg then
      msg.rule = rule
    end
    p.send(msg)
    set_countdown(bufnr, p)
  end
  if decision:match("^always") then
    local list = decision == "always_allow" and "allow" or "deny"
    vim.ui.input({ prompt = ("Rule to add to permissions_%s: "):format(list), default = render.field(p.req, "suggested_rule") or "" }, function(rule)
      rule = rule and vim.trim(rule)
      if rule and rule ~= "" then
        send(rule)
      end
    end)
    return
  end
  send(render.field(p.req, "suggested_rule"))
end

---Refresh the countdown of the active request (the run's timer calls this).
---@param bufnr integer
function M.tick(bufnr)
  local p = M.active(bufnr)
  if p then
    set_countdown(bufnr, p)
  end
end

---The chat was closed (:bd, :bd!) while requests waited: forget them
---without writing into the buffer (the run denies them: its stdin closes).
---@param bufnr integer
function M.forget(bufnr)
  queues[bufnr] = nil
  pcall(unmap, bufnr)
end

---The run ended: every request still waiting collapses as cancelled.
---@param bufnr integer
function M.cancel_all(bufnr)
  while M.active(bufnr) do
    M.resolved(bufnr, { id = M.active(bufnr).req.id, decision = "deny_once", by = "cancel" })
  end
  queues[bufnr] = nil
end

return M
