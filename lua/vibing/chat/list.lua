---@mod vibing.chat.list :VibingChats — find, open and delete saved chats.
local M = {}

---@class vibing.ChatEntry
---@field path string absolute path
---@field title string the first line of the first User message ("(empty)" when none)
---@field created string created_at, or the date in the file name
---@field mtime integer last activity (seconds since the epoch)
---@field running boolean a message of this chat is running now
---@field fork boolean the chat is a fork (`fork_of:` in its frontmatter)
---@field bufnr integer|nil the chat's buffer when loaded

local function first_message(lines)
  local in_user, in_fm = false, false
  for i, l in ipairs(lines) do
    if i == 1 and l == "---" then
      in_fm = true
    elseif in_fm then
      if l == "---" then
        in_fm = false
      end
    elseif l:match("^## User%s*$") then
      in_user = true
    elseif l:match("^## Assistant%s*$") then
      in_user = false
    elseif in_user and l:match("%S") then
      return vim.trim(l)
    end
  end
  return nil
end

local function fork_of(lines)
  for i = 2, math.min(#lines, 40) do
    if lines[i] == "---" then
      break
    end
    local v = lines[i]:match("^fork_of:%s*(.-)%s*$")
    if v and v ~= "" and v ~= "''" and v ~= '""' then
      return true
    end
  end
  return false
end

local function created_of(lines, path)
  for i = 2, math.min(#lines, 40) do
    if lines[i] == "---" then
      break
    end
    local v = lines[i]:match("^created_at:%s*(.-)%s*$")
    if v and v ~= "" then
      return (v:gsub("^['\"]", ""):gsub("['\"]$", ""))
    end
  end
  local y, mo, d, h, mi = vim.fn.fnamemodify(path, ":t"):match("(%d%d%d%d)(%d%d)(%d%d)%-(%d%d)(%d%d)")
  return y and ("%s-%s-%sT%s:%s"):format(y, mo, d, h, mi) or ""
end

---The chats in folder dir (default: chat_dir), newest activity first.
---@param dir string|nil
---@return vibing.ChatEntry[]
function M.entries(dir)
  dir = dir or vim.fn.fnamemodify(vim.fn.expand(require("vibing").options().chat_dir), ":p"):gsub("/$", "")
  local run = require("vibing.chat.run")
  local out = {}
  for _, path in ipairs(vim.fn.glob(dir .. "/*.md", false, true)) do
    local lines = require("vibing.safefile").readfile(path, "", 400) or {} -- a FIFO would block
    if lines[1] == "---" and table.concat(lines, "\n", 1, math.min(#lines, 40)):find("\nvibing%.nvim:%s*true") then
      local bufnr = vim.fn.bufnr(path)
      local stat = vim.loop.fs_stat(path)
      table.insert(out, {
        path = path,
        title = first_message(lines) or "(empty)",
        created = created_of(lines, path),
        mtime = stat and stat.mtime.sec or 0,
        running = bufnr > 0 and run.running(bufnr),
        fork = fork_of(lines),
        bufnr = bufnr > 0 and bufnr or nil,
      })
    end
  end
  table.sort(out, function(a, b)
    if a.mtime ~= b.mtime then
      return a.mtime > b.mtime
    end
    return a.path > b.path
  end)
  return out
end

---One line for the picker.
---@param e vibing.ChatEntry
---@return string
function M.format(e)
  local title = e.title
  if e.fork then
    title = "⑂ " .. title
  end
  if vim.fn.strchars(title) > 60 then
    title = vim.fn.strcharpart(title, 0, 59) .. "…"
  end
  return ("%s %-60s  %s  (last %s)"):format(e.running and "▶" or " ", title, e.created ~= "" and e.created or "-", os.date("%Y-%m-%d %H:%M", e.mtime))
end

---Delete a chat after the person confirms; a running chat is not deleted.
---@param e vibing.ChatEntry
---@return boolean deleted
function M.delete(e)
  local log = require("vibing.log")
  if e.running then
    log.warn("this chat is running; cancel it first (:VibingCancel)")
    return false
  end
  if vim.fn.confirm(("Delete the chat %s (%s)?"):format(vim.fn.fnamemodify(e.path, ":~:."), e.title), "&Delete\n&Keep", 2) ~= 1 then
    return false
  end
  if os.remove(e.path) == nil then
    log.error("could not delete " .. e.path)
    return false
  end
  if e.bufnr and vim.api.nvim_buf_is_valid(e.bufnr) then
    pcall(vim.api.nvim_buf_delete, e.bufnr, { force = true })
  end
  -- the copies of what its turns changed go with it
  local _, err = require("vibing.rpc").call("forget_changes", { chat = e.path, cwd = vim.fn.getcwd() })
  if err then
    log.warn(("Deleted %s, but not the copies of what its turns changed: %s"):format(vim.fn.fnamemodify(e.path, ":~:."), err))
    return true
  end
  log.info("Deleted " .. vim.fn.fnamemodify(e.path, ":~:."))
  return true
end

---:VibingChats — pick a chat, then open or delete it.
function M.pick()
  local entries = M.entries()
  if #entries == 0 then
    require("vibing.log").info("no chats yet in " .. require("vibing").options().chat_dir .. " (:VibingChat starts one)")
    return
  end
  vim.ui.select(entries, { prompt = "vibing chats", format_item = M.format }, function(e)
    if not e then
      return
    end
    vim.ui.select({ "open", "delete" }, { prompt = e.title }, function(action)
      if action == "open" then
        require("vibing.chat").open(e.path)
      elseif action == "delete" then
        M.delete(e)
      end
    end)
  end)
end

return M
