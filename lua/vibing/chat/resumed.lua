---@mod vibing.chat.resumed What a chat is told when its next message resumes a session.
---A message sent on a new `vibing-agent run` for a chat that names a session
---(`session_id`, or `fork_of` for a fork's first message) resumes it, and in
---a resumed session every call that would ask is refused unless
---`resume_ask = "prompt"`. The chat says so where that happens: when its live
---process ends after |vibing-options-live_timeout_s| without a message, and
---above the reply to a fork's first message.
local M = {}

local fm = require("vibing.chat.frontmatter")

local function resume_ask()
  return require("vibing").options().resume_ask
end

-- How asks behave in a resumed session, with the way out when they are refused.
local function asks(prompt)
  if prompt then
    return 'asks will still prompt (resume_ask = "prompt").'
  end
  return 'asks will be refused. Send /new-session for a fresh one, or set resume_ask = "prompt".'
end

---The notice written when the chat's live process ends on its idle timeout.
---@param ask string|nil the resume_ask option (default: the configured one)
---@return string
function M.idle_notice(ask)
  return "⏹ The agent's session went idle; the next message resumes it: " .. asks((ask or resume_ask()) == "prompt")
end

---The notice written above the reply to a fork's first message.
---@param ask string|nil the resume_ask option (default: the configured one)
---@return string
function M.fork_notice(ask)
  return "⏹ This chat is a fork: this message resumes the parent's session (under a new id): " .. asks((ask or resume_ask()) == "prompt")
end

---The notice written above the reply to the first message of a chat whose
---agent process had ended (reopened after the editor closed, a crash).
---@param ask string|nil the resume_ask option (default: the configured one)
---@return string
function M.reopen_notice(ask)
  return "⏹ This chat's agent process had ended: this message resumes its session: " .. asks((ask or resume_ask()) == "prompt")
end

---The chat's `fork_of:` and `session_id:` values ("" when absent).
---@param bufnr integer
---@return string fork, string session
local function ids(bufnr)
  local first, last = fm.range(bufnr)
  if not first then
    return "", ""
  end
  local fork, session = "", ""
  for _, l in ipairs(vim.api.nvim_buf_get_lines(bufnr, first, last - 1, false)) do
    local k, v = l:match("^([%w_]+):%s*(.-)%s*$")
    if v == '""' or v == "''" then
      v = ""
    end
    if k == "fork_of" then
      fork = v
    elseif k == "session_id" then
      session = v
    end
  end
  return fork, session
end

---Whether the chat names a session its next run resumes: a `session_id:`.
---@param bufnr integer
---@return boolean
function M.names_session(bufnr)
  local _, session = ids(bufnr)
  return session ~= ""
end

---Whether the chat is a fork whose first message was not answered yet: its
---frontmatter has `fork_of:` and no `session_id:`.
---@param bufnr integer
---@return boolean
function M.is_unsent_fork(bufnr)
  local first, last = fm.range(bufnr)
  if not first then
    return false
  end
  local fork, session = false, false
  for _, l in ipairs(vim.api.nvim_buf_get_lines(bufnr, first, last - 1, false)) do
    local k, v = l:match("^([%w_]+):%s*(.-)%s*$")
    if k == "fork_of" and v ~= "" and v ~= '""' and v ~= "''" then
      fork = true
    elseif k == "session_id" and v ~= "" and v ~= '""' and v ~= "''" then
      session = true
    end
  end
  return fork and not session
end

---Write line at the end of the last reply, above the last `## User`
---heading (what the person types under it stays), after a blank line.
---The chat is saved when it had no unsaved changes before.
---@param bufnr integer
---@param line string
---@return boolean written
function M.write(bufnr, line)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return false
  end
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local user
  for i = #lines, 1, -1 do
    if lines[i]:match("^## User%s*$") then
      user = i
      break
    end
  end
  if not user then
    return false
  end
  local last = user - 1 -- the reply's last line that is not blank (1-based)
  while last > 1 and lines[last]:match("^%s*$") do
    last = last - 1
  end
  local saved = not vim.bo[bufnr].modified
  local w = require("vibing.chat.writer").new(bufnr, { row = last - 1 })
  w:lines({ line }, "VibingNotice", true)
  w:close()
  if saved then
    require("vibing.chat.store").save(bufnr)
  end
  return true
end

return M
