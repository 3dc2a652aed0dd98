---@mod vibing.chat.fork `/fork` and `:VibingFork`: continue a chat's session in a new chat.
---The new chat file is a copy of the chat (its frontmatter rules and its
---transcript) without a `session_id` and with `fork_of: <session id>`: its
---first message resumes that session with `--fork-session`, so the CLI gives
---it a new session id, which its first result writes as its `session_id`.
---The old chat and its session are left as they are.
local M = {}

local fm = require("vibing.chat.frontmatter")
local log = require("vibing.log")

---The session id in the chat's frontmatter, or nil.
---@param lines string[]
---@param last integer the frontmatter's closing line
local function session_of(lines, last)
  for i = 2, last - 1 do
    local v = lines[i]:match("^session_id:%s*(.-)%s*$")
    if v then
      v = v:gsub([[^(["'])(.*)%1$]], "%2")
      return v ~= "" and v or nil
    end
  end
end

---The new chat's lines: the frontmatter without session_id and fork_of, then
---fork_of, then the transcript up to the last User heading, which is left empty.
---@param bufnr integer
---@return string[]|nil lines, string|nil err
function M.lines(bufnr)
  local first, last = fm.range(bufnr)
  if not first then
    return nil, "this buffer is not a vibing chat"
  end
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local id = session_of(lines, last)
  if not id then
    return nil, "this chat has no session yet: send a message first, then fork it"
  end
  local out = {}
  for i = 1, last - 1 do
    if not (i > 1 and (lines[i]:match("^session_id:") or lines[i]:match("^fork_of:"))) then
      table.insert(out, lines[i])
    end
  end
  table.insert(out, "fork_of: " .. id)
  local head = require("vibing.chat").last_user_section(bufnr)
  local stop = head and head - 2 or #lines -- the line before "## User"
  for i = last, stop do
    table.insert(out, lines[i])
  end
  while #out > 0 and out[#out] == "" do
    table.remove(out)
  end
  vim.list_extend(out, { "", "## User", "", "" })
  return out
end

---Fork the chat in bufnr into a new chat file next to it and open it.
---@param bufnr integer|nil
---@return string|nil path of the new chat
function M.fork(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not require("vibing.chat").is_chat(bufnr) then
    log.error("this buffer is not a vibing chat: open the chat to fork")
    return nil
  end
  if require("vibing.chat.run").running(bufnr) then
    log.error("a reply is being written: fork once it is done")
    return nil
  end
  local lines, err = M.lines(bufnr)
  if not lines then
    log.error(err)
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = name ~= "" and vim.fn.fnamemodify(name, ":p:h") or vim.fn.fnamemodify(vim.fn.expand(require("vibing").options().chat_dir), ":p"):gsub("/$", "")
  local path = require("vibing.chat").new_path(dir)
  if vim.fn.writefile(lines, path) ~= 0 then
    log.error("could not write the forked chat " .. path)
    return nil
  end
  require("vibing.chat").open(path)
  log.info(("forked into %s: its first message continues this session under a new id"):format(vim.fn.fnamemodify(path, ":~:.")))
  return path
end

return M
