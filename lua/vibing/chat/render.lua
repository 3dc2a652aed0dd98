---@mod vibing.chat.render Lines for run events: tool calls, decisions, outcomes, errors.
---Pure functions (no buffer access), so they are easy to test.
local M = {}

---@class vibing.ApprovalRequest
---@field id string tool_use id
---@field tool string
---@field input table
---@field level string read_only | mutating | network
---@field action string
---@field rule string|nil the rule that asked
---@field reason string|nil
---@field suggested_rule string|nil
---@field options string[]|nil answers offered
---@field timeout_s integer|nil

-- The six answers in the order the block lists them.
M.decisions = { "allow_once", "deny_once", "allow_for_session", "deny_for_session", "always_allow", "always_deny" }

M.labels = {
  allow_once = "allow once",
  deny_once = "deny",
  allow_for_session = "allow for session",
  deny_for_session = "deny for session",
  always_allow = "always allow",
  always_deny = "always deny",
}

-- What the record line says once an answer is applied.
local outcomes = {
  allow_once = "allowed once",
  deny_once = "denied",
  allow_for_session = "allowed for this session",
  deny_for_session = "denied for this session",
  always_allow = "always allowed",
  always_deny = "always denied",
}

---A table field that is a real value (json_decode turns null into vim.NIL).
-- "1 line", "2 lines": a count and its noun, in the singular for one.
local function count(n, noun)
  return ("%d %s%s"):format(n, noun, n == 1 and "" or "s")
end

local function field(t, k)
  if type(t) ~= "table" then
    return nil
  end
  local v = t[k]
  if v == vim.NIL then
    return nil
  end
  return v
end
M.field = field

---What a tool call acts on, in one string: the `detail` the Go side built
---(the command, the path, the URL, …); the compact JSON input when an event
---has none.
---@param ev table tool_use, decision or approval_request event
---@return string
function M.detail(ev)
  local d = field(ev, "detail")
  if type(d) == "string" and d ~= "" then
    return d
  end
  local input = field(ev, "input")
  if type(input) ~= "table" or vim.tbl_isempty(input) then
    return ""
  end
  local ok, json = pcall(vim.fn.json_encode, input)
  return ok and json or "?"
end

---One line of at most n display characters; line breaks become ⏎.
---@param s string
---@param n integer
---@return string
function M.oneline(s, n)
  s = tostring(s):gsub("\r?\n", " ⏎ ")
  if vim.fn.strchars(s) > n then
    s = vim.fn.strcharpart(s, 0, n - 1) .. "…"
  end
  return s
end

---The compact line for a decided tool call:
---`⏺ Bash: npm test — allowed (Bash(npm:*))`.
---@param tool string
---@param detail string what the call acts on (M.detail)
---@param d table decision event
---@return string line, string hl group
function M.tool_line(tool, detail, d)
  local head = ("⏺ %s: %s"):format(tool, M.oneline(detail, 80))
  local why = field(d, "rule")
  if not why or why == "" then
    why = field(d, "source") or ""
  end
  local suffix = why ~= "" and (" (" .. why .. ")") or ""
  if d.decision == "allow" then
    return head .. " — allowed" .. suffix, "VibingAllowed"
  elseif d.decision == "deny" then
    local reason = field(d, "reason")
    if reason and reason ~= "" then
      return head .. " — refused: " .. M.oneline(reason, 200), "VibingDenied"
    end
    return head .. " — refused" .. suffix, "VibingDenied"
  end
  return head .. " — asks" .. suffix, "VibingAsked"
end

---The one-line record an approval block collapses to.
---@param req vibing.ApprovalRequest
---@param ev table approval_resolved event
---@param rule string|nil the rule an always answer added
---@return string line, string hl group
function M.outcome_line(req, ev, rule)
  local detail = M.detail(req)
  local head = ("⏺ %s: %s — "):format(req.tool, M.oneline(detail, 80))
  local by = field(ev, "by") or "user"
  local decision = field(ev, "decision") or "deny_once"
  local allowed = decision:match("^allow") or decision == "always_allow"
  local hl = allowed and "VibingAllowed" or "VibingDenied"
  if by == "timeout" then
    return head .. ("denied: no answer within %d s"):format(req.timeout_s or 60), "VibingDenied"
  elseif by == "cancel" then
    return head .. "denied: cancelled before an answer", "VibingDenied"
  elseif by == "agent" then
    return head .. "withdrawn by the agent (it no longer needs the answer)", "VibingDenied"
  end
  local text = outcomes[decision] or decision
  if M.is_question(req) then
    local given = {}
    for _, a in ipairs(req._answers or {}) do
      table.insert(given, a)
    end
    head = ("⏺ The agent asked: %s — "):format(M.oneline(detail, 80))
    if allowed then
      return head .. "you answered " .. M.oneline(table.concat(given, "; "), 120), hl
    end
    return head .. "you declined", hl
  end
  if field(ev, "edited") == true then
    text = text .. " (as you edited it)"
  end
  if rule and rule ~= "" and decision:match("^always") then
    text = ("%s (%s added to permissions_%s)"):format(text, rule, decision == "always_allow" and "allow" or "deny")
  elseif rule and rule ~= "" and decision:match("_for_session$") then
    text = ("%s (%s)"):format(text, rule)
  end
  local reason = field(ev, "reason")
  if type(reason) == "string" and vim.trim(reason) ~= "" and not allowed then
    return head .. text .. " by you: " .. M.oneline(reason, 120), hl
  end
  return head .. text .. " by you", hl
end

-- A tool's output as lines: the CLI's <tool_use_error> wrapper, carriage
-- returns and the blank lines at the end dropped.
local function output_lines(content)
  content = content:gsub("^%s*<tool_use_error>", ""):gsub("</tool_use_error>%s*$", "")
  local lines = vim.split(content, "\n", { plain = true })
  for i, l in ipairs(lines) do
    lines[i] = l:gsub("\r$", "")
  end
  while #lines > 0 and lines[#lines]:match("^%s*$") do
    table.remove(lines)
  end
  return lines
end

-- The summary of output lines: "first line (+N lines)"; the second result
-- says whether it shows all of them.
local function summary(lines)
  local first = vim.trim(lines[1])
  local short = M.oneline(first, 100)
  local more = #lines > 1 and (" (+%s)"):format(count(#lines - 1, "line")) or ""
  return short .. more, #lines == 1 and short == first
end

---The short line under a tool call that ran: `  ⎿ first line (+N lines)`.
---@param content string|nil
---@param is_error boolean
---@return string|nil line
function M.result_line(content, is_error)
  if type(content) ~= "string" then
    return nil
  end
  local lines = output_lines(content)
  if #lines == 0 then
    return "  ⎿ (no output)"
  end
  return (is_error and "  ⎿ error: " or "  ⎿ ") .. (summary(lines))
end

M.output_info = "output" -- the info string of an output block's fence

---The lines under a tool call that ran: the summary line and, when it does
---not show all of the output, the whole output in a fenced block right under
---it, indented by two spaces (so no line of it is a chat heading), with a
---fence longer than any backtick run the output starts a line with. The
---chat folds summary and block into the summary line (vibing.chat.output).
---@param content string|nil
---@param is_error boolean
---@return string[]|nil lines
function M.result_lines(content, is_error)
  local line = M.result_line(content, is_error)
  if not line then
    return nil
  end
  local lines = output_lines(content)
  if #lines == 0 or select(2, summary(lines)) then
    return { line }
  end
  local n = 3
  for _, l in ipairs(lines) do
    local run = l:match("^%s*(`+)")
    if run and #run >= n then
      n = #run + 1
    end
  end
  local fence = "  " .. string.rep("`", n)
  local out = { line, fence .. M.output_info }
  for _, l in ipairs(lines) do
    out[#out + 1] = l == "" and "" or ("  " .. l)
  end
  out[#out + 1] = fence
  return out
end

---The line of a tool call the CLI refused itself, before any permission
---check (invalid input, an unknown tool, an Edit whose text is not in the
---file): `✗ Edit: foo.py — not run: String to replace not found in file.`
---@param tool string
---@param detail string
---@param content string|nil the error the CLI gave the model
---@return string line, string hl
function M.rejected_line(tool, detail, content)
  local lines = type(content) == "string" and output_lines(content) or {}
  local why = #lines > 0 and M.oneline(vim.trim(lines[1]), 200) or "the CLI refused it"
  return ("✗ %s: %s — not run: %s"):format(tool, M.oneline(detail, 80), why), "VibingDenied"
end

---The quiet line under a turn's answer: its cost and duration from the
---`result` event, e.g. "· $0.0123 · 4.2 s"; nil when the event has neither.
---@param ev table the result event
---@return string|nil
function M.cost_line(ev)
  local parts = {}
  local cost, ms = field(ev, "cost_usd"), field(ev, "duration_ms")
  if type(cost) == "number" then
    table.insert(parts, ("$%.4f"):format(cost))
  end
  if type(ms) == "number" then
    table.insert(parts, ms < 60000 and ("%.1f s"):format(ms / 1000) or ("%d min %d s"):format(math.floor(ms / 60000), math.floor(ms / 1000) % 60))
  end
  if #parts == 0 then
    return nil
  end
  return "· " .. table.concat(parts, " · ")
end

-- Error text → what the person should do about it.
local hints = {
  {
    "claude CLI not found",
    "install it (npm install -g @anthropic-ai/claude-code) or set claude_cmd in setup(), then send again",
  },
  { "vibing%-agent not found", nil }, -- already says: run make
  { "is not executable", nil },
  { "version", nil },
  { "[Ll]og ?in", "run `claude` in a terminal and log in (/login), or set ANTHROPIC_API_KEY, then send again" },
  { "[Aa][Pp][Ii] key", "run `claude` in a terminal and log in (/login), or set ANTHROPIC_API_KEY, then send again" },
  { "[Aa]uthenticat", "run `claude` in a terminal and log in (/login), or set ANTHROPIC_API_KEY, then send again" },
  { "[Uu]nknown backend", "set backend to claude or demo in setup()" },
  { "run cancelled", "send the message again when you are ready" },
  { "permissions are invalid", "fix the rules in the frontmatter (:VibingPermissions explains them)" },
}

---What to do about an error message ("" when the message says it already).
---@param msg string
---@return string
function M.hint(msg)
  for _, h in ipairs(hints) do
    if msg:find(h[1]) then
      return h[2] or ""
    end
  end
  return "send the message again; if it keeps failing, run :checkhealth vibing"
end

---The one line an error becomes in the chat.
---@param msg string
---@return string
function M.error_line(msg)
  local hint = M.hint(msg)
  local line = "⚠ Error: " .. M.oneline(vim.trim(msg), 400)
  if hint ~= "" then
    line = line .. " — " .. hint
  end
  return line
end

local function split(text)
  local out = vim.split(text or "", "\n", { plain = true })
  if out[#out] == "" then
    table.remove(out)
  end
  return out
end

-- The highlight of one diff line.
local function diff_hl(l)
  local c = l:sub(1, 1)
  if l:sub(1, 3) == "+++" or l:sub(1, 3) == "---" then
    return "VibingDiffFile"
  elseif c == "+" then
    return "VibingDiffAdd"
  elseif c == "-" then
    return "VibingDiffDelete"
  elseif c == "@" then
    return "VibingDiffHunk"
  end
  return "VibingApproval"
end

-- How a source that decided without a rule reads in a verdict.
local sources = { mode = "the mode", session = "this session", guard = "the guard", autorun = "runs code by itself" }

---One simple command of a compound line with its own verdict:
---`npm test ✓ allowed by Bash(npm:*)`, `rm -rf build ? asks (ask: Bash(rm:*))`.
---@param v table { command, decision, rule, source, reason }
---@return string line, string hl group
function M.verdict_line(v)
  local cmd = M.oneline(field(v, "command") or "", 120)
  local rule = field(v, "rule")
  local by = (rule and rule ~= "") and rule or (sources[field(v, "source") or ""] or field(v, "source") or "")
  if v.decision == "allow" then
    return ("%s ✓ allowed%s"):format(cmd, by ~= "" and (" by " .. by) or ""), "VibingAllowed"
  elseif v.decision == "deny" then
    return ("%s ✗ refused%s"):format(cmd, by ~= "" and (" by " .. by) or ""), "VibingDenied"
  end
  if rule and rule ~= "" then
    return ("%s ? asks (ask: %s)"):format(cmd, rule), "VibingAsked"
  end
  return ("%s ? asks (%s)"):format(cmd, by ~= "" and by or "approval needed"), "VibingAsked"
end

---The lines a preview shows (SPEC §10), each with its highlight; fenced
---code is cut at max lines with "N more lines — press <review key>".
---@param req vibing.ApprovalRequest
---@param max integer
---@param review_key string|false
---@return string[] lines, string[] hls
function M.preview_lines(req, max, review_key)
  local p = field(req, "preview")
  local lines, hls = {}, {}
  local function add(s, hl)
    table.insert(lines, s)
    table.insert(hls, hl or "VibingApproval")
  end
  local function fenced(lang, body, hl_of)
    add("```" .. lang, "VibingApprovalFence")
    for i = 1, math.min(#body, max) do
      add(body[i], hl_of and hl_of(body[i]) or "VibingApprovalCode")
    end
    add("```", "VibingApprovalFence")
    if #body > max then
      local how = review_key and (" — press " .. review_key) or ""
      add(("│ … %d more %s%s"):format(#body - max, #body - max == 1 and "line" or "lines", how), "VibingApprovalKey")
    end
  end
  if type(p) ~= "table" then
    add("│ " .. M.detail(req))
    return lines, hls
  end
  local kind = field(p, "kind")
  if kind == "questions" then
    return M.question_lines(req)
  end
  if kind == "diff" or kind == "new_file" or kind == "binary" then
    local head = "│ " .. (field(p, "path") or M.detail(req))
    if kind == "diff" and (field(p, "added") or field(p, "removed")) then
      head = head .. ("  (+%d −%d)"):format(field(p, "added") or 0, field(p, "removed") or 0)
    elseif kind == "new_file" then
      head = head .. ("  (new file: %s, %s)"):format(count(field(p, "lines") or 0, "line"), count(field(p, "bytes") or 0, "byte"))
    elseif kind == "binary" then
      head = head .. ("  (binary, %s)"):format(count(field(p, "bytes") or 0, "byte"))
    end
    add(head)
  elseif kind == "command" then
    local desc = field(p, "description")
    if desc and desc ~= "" then
      add("│ " .. M.oneline(desc, 200) .. "  (the agent's description)")
    end
  elseif kind == "fetch" then
    add("│ url: " .. (field(p, "url") or ""))
    add("│ host: " .. (field(p, "host") or ""))
  end
  local problem = field(p, "problem")
  if problem and problem ~= "" then
    add("│ ⚠ " .. problem, "VibingDenied")
  end
  if kind == "diff" and field(p, "unified") then
    fenced("diff", split(p.unified), diff_hl)
  elseif kind == "new_file" and field(p, "head") then
    fenced("", split(p.head))
  elseif kind == "command" then
    fenced("sh", split(field(p, "command") or M.detail(req)))
  elseif kind == "json" and field(p, "json") then
    fenced("json", split(p.json))
  end
  local verdicts = field(p, "commands") or {}
  if #verdicts > 0 then
    add("│ each command:")
    for _, v in ipairs(verdicts) do
      local line, hl = M.verdict_line(v)
      add("│  " .. line, hl)
    end
  end
  for _, n in ipairs(field(p, "notes") or {}) do
    add("│ note: " .. n, "VibingNotice")
  end
  local effects = field(p, "effects") or {}
  if #effects > 0 then
    add("│ effects:")
    for _, e in ipairs(effects) do
      add("│  • " .. e, "VibingApprovalEffect")
    end
  end
  return lines, hls
end

---Whether a request is the agent asking the person questions (AskUserQuestion).
---@param req vibing.ApprovalRequest
---@return boolean
function M.is_question(req)
  local p = field(req, "preview")
  return type(p) == "table" and field(p, "kind") == "questions" and type(field(p, "questions")) == "table"
end

---The index of the first question not answered yet (nil when all are).
---@param req vibing.ApprovalRequest
---@return integer|nil
function M.current_question(req)
  local answers = req._answers or {}
  for i = 1, #req.preview.questions do
    if answers[i] == nil then
      return i
    end
  end
end

---The lines of the agent's questions: each with its options numbered, the
---answers given so far, and the options picked of a multi-select question.
---@param req vibing.ApprovalRequest
---@return string[] lines, string[] hls
function M.question_lines(req)
  local lines, hls = {}, {}
  local function add(s, hl)
    table.insert(lines, s)
    table.insert(hls, hl or "VibingApproval")
  end
  local answers, picked = req._answers or {}, req._picked or {}
  local cur = M.current_question(req)
  for qi, q in ipairs(req.preview.questions) do
    local header = field(q, "header")
    local mark = qi == cur and "▶ " or "  "
    add(("│ %s%s%s%s"):format(mark, (header and header ~= "") and ("[" .. header .. "] ") or "", M.oneline(field(q, "question") or "", 200),
      field(q, "multi_select") and "  (pick several)" or ""), qi == cur and "VibingApprovalTitle" or "VibingApproval")
    if answers[qi] ~= nil then
      add("│     → " .. M.oneline(answers[qi], 200), "VibingAllowed")
    else
      for i, o in ipairs(field(q, "options") or {}) do
        local desc = field(o, "description")
        local on = qi == cur and picked[i] and "[x] " or ""
        add(("│     %d. %s%s%s"):format(i, on, field(o, "label") or "", (desc and desc ~= "") and (" — " .. M.oneline(desc, 160)) or ""))
      end
    end
  end
  return lines, hls
end

---The lines of an approval block.
---@param req vibing.ApprovalRequest
---@param keys table<string, string|false> answer -> key (keymaps.approval)
---@param waiting integer how many more requests wait behind this one
---@param max_lines integer|nil preview lines shown (approval_preview_lines)
---@return string[] lines
---@return table<integer, string> hl group per line (1-based)
function M.block(req, keys, waiting, max_lines)
  if M.is_question(req) then
    return M.question_block(req, keys, waiting)
  end
  local title = ("╭─ Approval needed: %s (%s)"):format(req.tool, req.level or "?")
  if waiting > 0 then
    title = title .. (" · %d more waiting"):format(waiting)
  end
  local lines, hls = { title }, { "VibingApprovalTitle" }
  local function add(s, hl)
    table.insert(lines, s)
    table.insert(hls, hl or "VibingApproval")
  end
  local pl, ph = M.preview_lines(req, max_lines or 40, keys.review)
  vim.list_extend(lines, pl)
  vim.list_extend(hls, ph)
  local rule = field(req, "rule")
  local asked = (rule and rule ~= "") and rule or "no rule (the mode asks)"
  local reason = field(req, "reason")
  add("│ asked by: " .. asked .. ((reason and reason ~= "") and (" — " .. M.oneline(reason, 160)) or ""))
  local sugg = field(req, "suggested_rule")
  add("│ suggested rule: " .. ((sugg and sugg ~= "") and sugg or "(none: type one for an always answer)"), "VibingApprovalRule")
  local limit = field(req, "limit")
  if limit and limit ~= "" then
    add("│ answers limited: " .. M.oneline(limit, 160))
  end
  local offered = {}
  for _, o in ipairs(field(req, "options") or M.decisions) do
    offered[o] = true
  end
  local parts = {}
  for _, d in ipairs(M.decisions) do
    if offered[d] and keys[d] then
      table.insert(parts, ("[%s] %s"):format(keys[d], M.labels[d]))
    end
  end
  if keys.review and offered.allow_once then
    table.insert(parts, ("[%s] review side by side (edit, then approve)"):format(keys.review))
  end
  if keys.deny_reason and offered.deny_once then
    table.insert(parts, ("[%s] deny with a reason"):format(keys.deny_reason))
  end
  local half = math.ceil(#parts / 2)
  add("│ " .. table.concat(vim.list_slice(parts, 1, half), "  "), "VibingApprovalKey")
  if #parts > half then
    add("│ " .. table.concat(vim.list_slice(parts, half + 1), "  "), "VibingApprovalKey")
  end
  add("╰─ keys answer with the cursor in this block; always answers let you edit the rule; no answer in time means deny")
  return lines, hls
end

---The block of the agent's questions: the questions, then the keys that
---answer the current one.
---@return string[] lines, table<integer, string> hls
function M.question_block(req, keys, waiting)
  local n = #req.preview.questions
  local title = ("╭─ The agent asks you %s"):format(n > 1 and (("%d questions"):format(n)) or "a question")
  if waiting > 0 then
    title = title .. (" · %d more waiting"):format(waiting)
  end
  local lines, hls = { title }, { "VibingApprovalTitle" }
  local ql, qh = M.question_lines(req)
  vim.list_extend(lines, ql)
  vim.list_extend(hls, qh)
  local cur = M.current_question(req)
  local q = cur and req.preview.questions[cur] or {}
  local parts = {}
  table.insert(parts, field(q, "multi_select") and "[1-9] pick or unpick" or "[1-9] answer with that option")
  if keys.allow_once then
    table.insert(parts, ("[%s] %s"):format(keys.allow_once, field(q, "multi_select") and "done, or type your own words" or "choose from a list or type your own words"))
  end
  if keys.deny_once then
    table.insert(parts, ("[%s] decline"):format(keys.deny_once))
  end
  if keys.deny_reason then
    table.insert(parts, ("[%s] decline with a reason"):format(keys.deny_reason))
  end
  table.insert(lines, "│ " .. table.concat(parts, "  "))
  table.insert(hls, "VibingApprovalKey")
  table.insert(lines, "╰─ keys answer with the cursor in this block; no answer in time means the question goes unanswered")
  table.insert(hls, "VibingApproval")
  return lines, hls
end

---The countdown text shown beside the block's title.
---@param seconds integer
---@return string
function M.countdown(seconds)
  if seconds <= 0 then
    return "⏳ timing out…"
  end
  return ("⏳ %d s left"):format(seconds)
end

return M
