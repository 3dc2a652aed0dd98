---@mod vibing.ui.approval Approval prompts inside the chat buffer.
---One block at a time per chat (the active request); later requests wait in
---a queue and the block says how many. While a chat has a pending request,
---single keys in that buffer answer it; the maps go away with the last one.
---After the answer (or a timeout or a cancel) the block collapses to one line.
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
}

---Define the highlight groups (idempotent).
function M.setup_highlights()
  for group, link in pairs(M.highlights) do
    vim.api.nvim_set_hl(0, group, { link = link, default = true })
  end
end

local function keys()
  return require("vibing").options().keymaps
end

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
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
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
  local lines, hls = render.block(p.req, keys(), #q - 1)
  draw(bufnr, p, lines, hls)
  set_countdown(bufnr, p)
  p.shown_at = p.shown_at or vim.loop.hrtime()
  vim.b[bufnr].vibing_approval = p.req.id
  fire("VibingApproval", { buf = bufnr, id = p.req.id })
end

local function unmap(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  for _, d in ipairs(render.decisions) do
    local k = keys()[d]
    if k then
      pcall(vim.keymap.del, "n", k, { buffer = bufnr })
    end
  end
end

local function map(bufnr)
  for _, d in ipairs(render.decisions) do
    local k = keys()[d]
    if k then
      vim.keymap.set("n", k, function()
        M.answer(bufnr, d)
      end, { buffer = bufnr, nowait = true, desc = "vibing: " .. render.labels[d] })
    end
  end
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
function M.answer(bufnr, decision)
  local p = M.active(bufnr)
  if not p or p.answered then
    return
  end
  local offered = render.field(p.req, "options")
  if type(offered) == "table" and not vim.tbl_contains(offered, decision) then
    require("vibing.log").warn(("%s is not offered for this request"):format(render.labels[decision]))
    return
  end
  local function send(rule)
    if M.active(bufnr) ~= p or p.answered then
      return -- answered, timed out or cancelled meanwhile
    end
    p.answered, p.rule = decision, rule
    local msg = { type = "approval_response", id = p.req.id, decision = decision }
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

---The run ended: every request still waiting collapses as cancelled.
---@param bufnr integer
function M.cancel_all(bufnr)
  while M.active(bufnr) do
    M.resolved(bufnr, { id = M.active(bufnr).req.id, decision = "deny_once", by = "cancel" })
  end
  queues[bufnr] = nil
end

return M
