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
---@field reason string|nil the reason sent with a deny (shown in the record line)
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
  VibingCost = "Comment",
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
    p.writer:replace(row, row + p.nlines, lines)
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

local map_digits

-- The windows that show bufnr, in the current tab first.
local function windows_of(bufnr)
  local out = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == bufnr then
      table.insert(out, win)
    end
  end
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == bufnr and not vim.tbl_contains(out, win) then
      table.insert(out, win)
    end
  end
  return out
end

---The name a person knows a chat by (its file name).
---@param bufnr integer
---@return string
function M.chat_name(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  return name ~= "" and vim.fn.fnamemodify(name, ":t") or ("buffer " .. bufnr)
end

---A new block needs the person: every other window showing the chat moves
---its cursor to the block; the window the person is in takes the cursor to
---the block when the person waits for it (ui/follow.lua), else scrolls until
---the block's last line shows without putting the cursor into the block (a
---`y` typed there must not answer by surprise). When no window shows the chat
---or the person works in another window, a WARN notification names the chat.
---@param bufnr integer
---@param p vibing.Pending
function M.attend(bufnr, p)
  if not p.mark then
    return
  end
  local row = vim.api.nvim_buf_get_extmark_by_id(bufnr, ns, p.mark, {})[1]
  local cur = vim.api.nvim_get_current_win()
  local wins = windows_of(bufnr)
  for _, win in ipairs(wins) do
    if row and win ~= cur then
      pcall(vim.api.nvim_win_set_cursor, win, { row + 1, 0 })
      vim.api.nvim_win_call(win, function()
        vim.cmd("normal! zt")
      end)
    elseif row and require("vibing.ui.follow").takes_cursor(bufnr, win) then
      -- the person waits for it (ui/follow.lua): the cursor goes to the
      -- block's last line, so the whole block scrolls into view
      pcall(vim.api.nvim_win_set_cursor, win, { row + p.nlines, 0 })
    elseif row then
      local last = row + p.nlines -- 1-based line of the block's end
      local height = vim.api.nvim_win_get_height(win)
      vim.api.nvim_win_call(win, function()
        local view = vim.fn.winsaveview()
        local top = last - height + 1
        if last > view.topline + height - 1 and top <= row and view.lnum <= row then
          view.topline = math.max(1, top)
          if view.lnum < view.topline then
            view.lnum = view.topline
          end
          vim.fn.winrestview(view)
        end
      end)
    end
  end
  if #wins == 0 or vim.api.nvim_win_get_buf(cur) ~= bufnr then
    local what = render.is_question(p.req) and "a question from the agent" or ("approval: %s %s"):format(p.req.tool, render.oneline(render.detail(p.req), 60))
    require("vibing.log").warn(("%s waits for your %s — :VibingApprovals to answer"):format(M.chat_name(bufnr), what))
  end
end

---Every waiting request across chats, active ones first in each chat.
---@return { buf: integer, req: vibing.ApprovalRequest, active: boolean }[]
function M.all()
  local out = {}
  local bufs = vim.tbl_keys(queues)
  table.sort(bufs)
  for _, b in ipairs(bufs) do
    for i, p in ipairs(queues[b]) do
      table.insert(out, { buf = b, req = p.req, active = i == 1 })
    end
  end
  return out
end

---Requests waiting across every chat.
---@return integer
function M.total()
  local n = 0
  for _, q in pairs(queues) do
    n = n + #q
  end
  return n
end

---Show a chat's pending block: in a window that shows the chat, else in the
---current window, with the cursor on the block.
---@param bufnr integer
function M.jump(bufnr)
  local win = windows_of(bufnr)[1]
  if win then
    vim.api.nvim_set_current_win(win)
  else
    vim.api.nvim_win_set_buf(0, bufnr)
  end
  M.focus(bufnr)
end

---:VibingApprovals — pick one of the requests waiting across chats and jump to it.
function M.list()
  local items = M.all()
  if #items == 0 then
    require("vibing.log").info("no approval is waiting")
    return
  end
  vim.ui.select(items, {
    prompt = "Waiting approvals",
    format_item = function(it)
      local what = render.is_question(it.req) and "question: " .. render.oneline(render.detail(it.req), 60)
        or ("%s %s"):format(it.req.tool, render.oneline(render.detail(it.req), 60))
      return ("%s — %s%s"):format(M.chat_name(it.buf), what, it.active and "" or " (queued)")
    end,
  }, function(it)
    if it and vim.api.nvim_buf_is_valid(it.buf) then
      M.jump(it.buf)
    end
  end)
end

local function show(bufnr, p)
  local q = queues[bufnr]
  local lines, hls = render.block(p.req, keys(), #q - 1, preview_lines())
  draw(bufnr, p, lines, hls)
  if render.is_question(p.req) then
    map_digits(bufnr)
  end
  set_countdown(bufnr, p)
  if not p.shown_at then
    p.shown_at = vim.loop.hrtime()
    M.attend(bufnr, p)
  end
  vim.b[bufnr].vibing_approval = p.req.id
  fire("VibingApproval", { buf = bufnr, id = p.req.id })
end

---Whether the cursor of the current window is inside the pending block of bufnr.
---@param bufnr integer
---@return boolean
function M.cursor_inside(bufnr)
  if vim.api.nvim_get_current_buf() ~= bufnr then
    return false
  end
  return M.row_inside(bufnr, vim.api.nvim_win_get_cursor(0)[1] - 1)
end

---Whether row (0-based) of bufnr is a line of its pending block.
---@param bufnr integer
---@param row integer
---@return boolean
function M.row_inside(bufnr, row)
  local p = M.active(bufnr)
  if not p or not p.mark then
    return false
  end
  local start = vim.api.nvim_buf_get_extmark_by_id(bufnr, ns, p.mark, {})[1]
  return start ~= nil and row >= start and row < start + p.nlines
end

---The first row (0-based) of the block of the waiting request id, or nil
---when it is not shown (queued behind another, answered, or unknown).
---@param bufnr integer
---@param id string
---@return integer|nil
function M.block_row(bufnr, id)
  for _, p in ipairs(queues[bufnr] or {}) do
    if p.req.id == id and p.mark then
      return vim.api.nvim_buf_get_extmark_by_id(bufnr, ns, p.mark, {})[1]
    end
  end
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

---@type table<integer, boolean> chat buffer -> the digit keys of a question are mapped
local digits = {}

local function unmap(bufnr)
  local saved = hidden[bufnr] or {}
  hidden[bufnr] = nil
  if not vim.api.nvim_buf_is_valid(bufnr) then
    digits[bufnr] = nil
    return
  end
  if digits[bufnr] then
    digits[bufnr] = nil
    for i = 1, 9 do
      pcall(vim.keymap.del, "n", tostring(i), { buffer = bufnr })
    end
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

-- Keep a person's own buffer-local map of key, to run outside the block
-- and to restore afterwards.
local function hide(bufnr, key)
  local own = vim.fn.maparg(key, "n", false, true)
  if type(own) == "table" and own.buffer == 1 then
    own.callback = nil
    for _, m in ipairs(vim.api.nvim_buf_get_keymap(bufnr, "n")) do
      if m.lhs == own.lhs and type(m.callback) == "function" then
        own.callback = m.callback
      end
    end
    hidden[bufnr][key] = own
  end
end

local function map(bufnr)
  local k = keys()
  hidden[bufnr] = {}
  for _, d in ipairs(vim.list_extend(vim.deepcopy(render.decisions), extra_actions)) do
    local key = k[d]
    if key then
      -- maparg's callback is not callable from Lua on Neovim 0.7; the keymap list's is
      hide(bufnr, key)
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

-- The digit keys answer the agent's question with that option; mapped
-- while a question is the active request (elsewhere a digit stays a count).
map_digits = function(bufnr)
  if digits[bufnr] or not hidden[bufnr] then
    return
  end
  digits[bufnr] = true
  for i = 1, 9 do
    local key = tostring(i)
    hide(bufnr, key)
    vim.keymap.set("n", key, function()
      local p = M.active(bufnr)
      if p and render.is_question(p.req) and M.cursor_inside(bufnr) and vim.v.count == 0 then
        M.pick(bufnr, i)
      else
        fallback((hidden[bufnr] or {})[key], key)
      end
    end, { buffer = bufnr, nowait = true, desc = "vibing: answer the agent's question with option " .. key })
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
    if p and render.is_question(p.req) then
      return -- nothing to review: the block shows the whole question
    end
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
---Returns the record line's 0-based row (nil when the request is unknown or
---the chat is gone).
---@param bufnr integer
---@param ev table approval_resolved event
---@param rule string|nil rule an always answer added (from rule_added)
---@return integer|nil row
function M.resolved(bufnr, ev, rule)
  local i = index(bufnr, ev.id)
  if not i then
    return nil
  end
  local p = table.remove(queues[bufnr], i)
  -- An "always" rule is named only once it is saved to the chat (rule comes
  -- from rule_added after the save); a session grant names the answer's rule.
  local always = ev.decision == "always_allow" or ev.decision == "always_deny"
  if p.reason and ev.by ~= "timeout" and ev.by ~= "cancel" and ev.by ~= "agent" and ev.reason == nil then
    ev = vim.tbl_extend("force", ev, { reason = p.reason })
  end
  local line, hl = render.outcome_line(p.req, ev, rule or (not always and p.rule or nil))
  local row
  if p.mark then
    draw(bufnr, p, { line }, { hl })
    if vim.api.nvim_buf_is_loaded(bufnr) then
      row = vim.api.nvim_buf_get_extmark_by_id(bufnr, ns, p.mark, {})[1]
    end
    pcall(vim.api.nvim_buf_del_extmark, bufnr, ns, p.mark)
  elseif vim.api.nvim_buf_is_loaded(bufnr) then
    row = p.writer:lines({ line }, hl)
  end
  advance(bufnr)
  return row
end

---Send an answer for the active request. Always answers ask for the rule
---first (prefilled with the suggested rule); an empty or dismissed input
---leaves the request waiting.
---@param bufnr integer
---@param decision string one of render.decisions
---@param extra table|nil { updated_input = table } (allow_once) or { reason = string } (deny_once)
---@param again table|nil { default = rule typed before, why = what was wrong } after a refused rule
function M.answer(bufnr, decision, extra, again)
  local p = M.active(bufnr)
  if not p or p.answered then
    return
  end
  if M.cursor_inside(bufnr) then
    require("vibing.ui.follow").answered(bufnr, vim.api.nvim_get_current_win())
  end
  local offered = render.field(p.req, "options")
  if type(offered) == "table" and not vim.tbl_contains(offered, decision) then
    local limit = render.field(p.req, "limit")
    require("vibing.log").warn(("%s is not offered for this request%s"):format(render.labels[decision], (limit and limit ~= "") and (": " .. limit) or ""))
    return
  end
  if decision == "allow_once" and render.is_question(p.req) and not extra then
    M.answer_question(bufnr)
    return
  end
  local function send(rule)
    if M.active(bufnr) ~= p or p.answered then
      return -- answered, timed out or cancelled meanwhile
    end
    p.answered, p.rule = decision, rule
    p.reason = (extra or {}).reason
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
  if again then
    M.ask_rule(bufnr, p, decision, again.default, again.why, send)
    return
  end
  if decision:match("^always") then
    M.ask_rule(bufnr, p, decision, render.field(p.req, "suggested_rule") or "", nil, send)
    return
  end
  send(render.field(p.req, "suggested_rule"))
end

---Ask for the rule set of an always answer (rules separated by spaces, as
---/allow takes them), prefilled; an empty or dismissed input leaves the
---request waiting.
---@param why string|nil what was wrong with the rule typed before
function M.ask_rule(bufnr, p, decision, default, why, send)
  local list = decision == "always_allow" and "allow" or "deny"
  local prompt = ("Rules to add to permissions_%s (space-separated): "):format(list)
  if decision:match("_for_session$") then
    prompt = ("Rules to %s for this session: "):format(decision == "allow_for_session" and "allow" or "deny")
  end
  if why then
    prompt = why .. "\n" .. prompt
  end
  vim.ui.input({ prompt = prompt, default = default }, function(rule)
    rule = rule and vim.trim(rule)
    if rule and rule ~= "" then
      send(rule)
    end
  end)
end

---The run refused the rule sent with an answer (invalid, or it does not
---cover the call): the request is still waiting, so ask for the rule again,
---prefilled with what was typed.
---@param bufnr integer
---@param ev table notice event with id, decision, rule and message
---@return boolean handled
function M.rule_rejected(bufnr, ev)
  local p = M.active(bufnr)
  local decision = render.field(ev, "decision")
  if not p or p.req.id ~= render.field(ev, "id") or p.answered ~= decision then
    return false
  end
  p.answered, p.rule = nil, nil
  set_countdown(bufnr, p)
  M.answer(bufnr, decision, nil, { default = render.field(ev, "rule") or "", why = render.field(ev, "message") })
  return true
end

-- Record the answer to the current question; once every question has one,
-- send them all (allow_once with answers), else show the next question.
local function record(bufnr, p, answer)
  local qi = render.current_question(p.req)
  if not qi or M.active(bufnr) ~= p or p.answered then
    return
  end
  p.req._answers = p.req._answers or {}
  p.req._answers[qi] = answer
  p.req._picked = nil
  if render.current_question(p.req) then
    show(bufnr, p)
    return
  end
  local answers = {}
  for i, q in ipairs(p.req.preview.questions) do
    answers[q.question] = p.req._answers[i]
  end
  p.answered = "allow_once"
  show(bufnr, p)
  p.send({ type = "approval_response", id = p.req.id, decision = "allow_once", answers = answers })
  set_countdown(bufnr, p)
end

local function labels(q, picked)
  local out = {}
  for i, o in ipairs(q.options or {}) do
    if picked[i] then
      table.insert(out, o.label)
    end
  end
  return out
end

---A digit key: answer the current question with option i (a multi-select
---question: pick or unpick it, then confirm with the allow key).
---@param bufnr integer
---@param i integer
function M.pick(bufnr, i)
  local p = M.active(bufnr)
  if not p or p.answered or not render.is_question(p.req) then
    return
  end
  local qi = render.current_question(p.req)
  local q = p.req.preview.questions[qi]
  local o = (q.options or {})[i]
  if not o then
    return
  end
  if q.multi_select then
    p.req._picked = p.req._picked or {}
    p.req._picked[i] = not p.req._picked[i] or nil
    show(bufnr, p)
    return
  end
  record(bufnr, p, o.label)
end

---The allow key on a question: choose an option from a list, or type your
---own words (a multi-select question: the options picked, editable).
---@param bufnr integer
function M.answer_question(bufnr)
  local p = M.active(bufnr)
  if not p or p.answered then
    return
  end
  local qi = render.current_question(p.req)
  local q = p.req.preview.questions[qi]
  local function typed(default)
    vim.ui.input({ prompt = q.question .. " ", default = default or "" }, function(text)
      text = text and vim.trim(text)
      if text and text ~= "" then
        record(bufnr, p, text)
      end
    end)
  end
  if q.multi_select then
    typed(table.concat(labels(q, p.req._picked or {}), ", "))
    return
  end
  local own = "Type my own answer…"
  local items = {}
  for _, o in ipairs(q.options or {}) do
    table.insert(items, o.label)
  end
  table.insert(items, own)
  vim.ui.select(items, { prompt = q.question }, function(choice)
    if choice == own then
      typed()
    elseif choice then
      record(bufnr, p, choice)
    end
  end)
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
  require("vibing.ui.follow").forget(bufnr)
  pcall(unmap, bufnr)
end

---The run ended: every request still waiting collapses as cancelled.
---@param bufnr integer
function M.cancel_all(bufnr)
  while M.active(bufnr) do
    M.resolved(bufnr, { id = M.active(bufnr).req.id, decision = "deny_once", by = "cancel" })
  end
  queues[bufnr] = nil
  require("vibing.ui.follow").forget(bufnr)
end

return M
