---@mod vibing.chat.changes What a turn changed: the "Modified files" list under the answer.
---At the end of a turn that changed files, `vibing-agent run` sends one
---`files_changed` event (docs/protocol.md): the files whose content differs
---from the copy the runner kept before the turn, under the project's
---`.vibing/turns/<chat>/<turn>/` folder (internal/changes). The list names
---that folder (relative to the chat file), so it works after the chat is
---reopened: its `manifest.json` holds the files in the list's order, each
---with its pre-turn copy (`N.before`) and its content at the end of the turn
---(`N.after`); a file the agent may not read has no copy (`no copy`). On a
---list line, `gd` shows the file's diff against its pre-turn content, `gr`
---reverts it, `gR` reverts the whole list. A file the person changed after
---the turn (on disk, or unsaved in a buffer) is never reverted without
---asking.
local M = {}

local log = require("vibing.log")

M.header = "Modified files"
local hl = "VibingChanges"

local function options()
  return require("vibing").options()
end

local function keys()
  return options().keymaps.changes or {}
end

-- dir relative to base (both absolute), with ".." where needed.
local function relpath(base, dir)
  local a = vim.split(vim.fn.simplify(base):gsub("/$", ""), "/", { plain = true })
  local b = vim.split(vim.fn.simplify(dir):gsub("/$", ""), "/", { plain = true })
  local i = 1
  while i <= #a and i <= #b and a[i] == b[i] do
    i = i + 1
  end
  if i <= 2 then
    return dir -- nothing in common but the root: keep it absolute
  end
  local out = {}
  for _ = i, #a do
    table.insert(out, "..")
  end
  for j = i, #b do
    table.insert(out, b[j])
  end
  return table.concat(out, "/")
end

local function hints()
  local k = keys()
  local out = {}
  for _, p in ipairs({ { k.diff, "diff" }, { k.revert, "revert" }, { k.revert_all, "revert all" } }) do
    if p[1] then
      table.insert(out, p[1] .. " " .. p[2])
    end
  end
  return out
end

---The list's lines for a files_changed event of the chat at chat_path.
---@param ev table { dir, files = { { path, by, created, deleted } } }
---@param chat_path string
---@return string[]
function M.lines(ev, chat_path)
  local dir = relpath(vim.fn.fnamemodify(chat_path, ":p:h"), ev.dir)
  local head = { M.header }
  vim.list_extend(head, hints())
  table.insert(head, dir)
  local out = { table.concat(head, " · ") }
  for _, f in ipairs(ev.files) do
    local marks = {}
    if f.created then
      table.insert(marks, "new")
    end
    if f.deleted then
      table.insert(marks, "deleted")
    end
    if f.by == "bash" then
      table.insert(marks, "bash")
    end
    if f.no_copy then
      table.insert(marks, "no copy")
    end
    local name = vim.fn.fnamemodify(f.path, ":~:.")
    table.insert(out, "  " .. name .. (#marks > 0 and (" (" .. table.concat(marks, ", ") .. ")") or ""))
  end
  return out
end

---Write the list under the answer (the files_changed handler).
---@param r vibing.Run
---@param ev table
function M.show(r, ev)
  if type(ev.files) ~= "table" or #ev.files == 0 or type(ev.dir) ~= "string" then
    return
  end
  vim.api.nvim_set_hl(0, hl, { link = "Comment", default = true })
  r.writer:lines(M.lines(ev, vim.api.nvim_buf_get_name(r.buf)), hl, true)
end

local function is_item(line)
  return line ~= nil and line:match("^  %S") ~= nil
end

---@class vibing.ChangeList
---@field dir string the turn's folder (absolute)
---@field row integer the header's line (1-based)
---@field count integer file lines under it
---@field index integer|nil the file under the cursor (nil: the header)

---The list at line row (1-based) of buf, or nil when row is not in one.
---@param buf integer
---@param row integer
---@return vibing.ChangeList|nil
function M.at(buf, row)
  local first = math.max(1, row - 500)
  local lines = vim.api.nvim_buf_get_lines(buf, first - 1, row, false)
  local i = #lines
  while i >= 1 and is_item(lines[i]) do
    i = i - 1
  end
  local head = lines[i]
  if not head or not vim.startswith(head, M.header .. " · ") then
    return nil
  end
  -- the folder is the last " · " field (a byte class cannot hold "·")
  local last
  local from = 1
  while true do
    local i = head:find(" · ", from, true)
    if not i then
      break
    end
    last, from = i, i + 1
  end
  local rel = vim.trim(head:sub(last + #" · "))
  if rel == "" then
    return nil
  end
  local dir = rel:sub(1, 1) == "/" and rel or vim.fn.simplify(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":p:h") .. "/" .. rel)
  local hrow = first + i - 1
  local count = 0
  for _, l in ipairs(vim.api.nvim_buf_get_lines(buf, hrow, hrow + 1000, false)) do
    if not is_item(l) then
      break
    end
    count = count + 1
  end
  return { dir = dir, row = hrow, count = count, index = row > hrow and (row - hrow) or nil }
end

---The turn's manifest, or nil and why.
---@param dir string
---@return table|nil, string|nil
function M.manifest(dir)
  local path = dir .. "/manifest.json"
  if vim.fn.filereadable(path) ~= 1 then
    return nil, "the copies of this turn are gone (" .. vim.fn.fnamemodify(dir, ":~:.") .. "; a chat keeps its last turns)"
  end
  local ok, m = pcall(vim.fn.json_decode, table.concat(vim.fn.readfile(path, "b"), "\n"))
  if not ok or type(m) ~= "table" or type(m.files) ~= "table" then
    return nil, "the record of this turn cannot be read: " .. path
  end
  return m
end

-- The file's bytes; false when it does not exist; nil and why when it
-- cannot be read.
local function slurp(path)
  if not vim.loop.fs_stat(path) then
    return false
  end
  local f, err = io.open(path, "rb")
  if not f then
    return nil, err
  end
  local s = f:read("*a")
  f:close()
  return s
end

-- The loaded file buffer of path (names compared exactly, not as bufnr()'s pattern).
local function loaded_buf(path)
  local want = vim.fn.fnamemodify(path, ":p")
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == "" and vim.api.nvim_buf_get_name(b) == want then
      return b
    end
  end
  return nil
end

local function name(e)
  return vim.fn.fnamemodify(e.path, ":~:.")
end

local function no_copy(e)
  return ("vibing kept no copy of %s from before the turn: the chat's rules do not let the agent read it, and it could have read a copy; it has no diff and cannot be reverted"):format(name(e))
end

---The entry's states: before the turn, at its end (nil: unknown) and now
---(false: missing). Nil and why when they cannot be read.
local function states(dir, e)
  if e.no_copy then
    return nil, no_copy(e)
  end
  local before = false
  if e.existed then
    before = slurp(dir .. "/" .. (e.before or ""))
    if not before then
      return nil, "the copy of " .. name(e) .. " from before the turn is gone"
    end
  end
  local after
  if e.deleted then
    after = false
  elseif type(e.after) == "string" and e.after ~= "" then
    after = slurp(dir .. "/" .. e.after) or nil
  end
  local now, err = slurp(e.path)
  if now == nil then
    return nil, ("%s cannot be read: %s"):format(name(e), tostring(err))
  end
  return { before = before, after = after, now = now }
end

-- Why the person may not want e reverted ("" when nothing changed since the turn).
local UNSAVED = "has unsaved changes in a buffer"
local function changed_since(e, st)
  local b = loaded_buf(e.path)
  if b and vim.bo[b].modified then
    return UNSAVED
  end
  if st.after == nil then
    return "may have changed since the turn (its state at the end of the turn was not kept)"
  end
  if st.now ~= st.after then
    return "changed after the turn"
  end
  return ""
end

local function write_atomic(path, data, mode)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  local tmp = ("%s.vibing-revert-%d"):format(path, vim.loop.getpid())
  local f, err = io.open(tmp, "wb")
  if not f then
    return false, err
  end
  local ok, werr = f:write(data)
  local closed, cerr = f:close()
  if not ok or not closed then
    os.remove(tmp)
    return false, werr or cerr
  end
  if type(mode) == "number" and mode > 0 then
    vim.loop.fs_chmod(tmp, mode)
  end
  local rok, rerr = os.rename(tmp, path)
  if not rok then
    os.remove(tmp)
    return false, rerr
  end
  return true
end

-- Put e back as it was before the turn; reload its unchanged buffer.
local function restore(e, st)
  if st.before == false then
    local ok, err = os.remove(e.path)
    if not ok then
      return false, ("could not delete %s: %s"):format(name(e), tostring(err))
    end
  else
    -- through a symlink to its file, as the agent's write went
    local ok, err = write_atomic(vim.loop.fs_realpath(e.path) or e.path, st.before, e.mode)
    if not ok then
      return false, ("could not write %s: %s"):format(name(e), tostring(err))
    end
  end
  local b = loaded_buf(e.path)
  if b and vim.bo[b].modified then
    log.warn(name(e) .. " was reverted on disk; its buffer keeps your unsaved changes (:e! loads the reverted file)")
  elseif b and st.before ~= false then
    require("vibing.chat.reload").after("Write", { file_path = e.path })
  end
  return true
end

local function busy(buf)
  if require("vibing.chat.run").running(buf) then
    log.warn("the agent is still working in this chat; revert once its turn has ended")
    return true
  end
  return false
end

-- The list and manifest under the cursor, or nil (told why).
local function here(buf)
  local l = M.at(buf, vim.api.nvim_win_get_cursor(0)[1])
  if not l then
    return nil
  end
  local m, err = M.manifest(l.dir)
  if not m then
    log.error(err)
    return l, nil
  end
  if l.index and not m.files[l.index] then
    log.error("this line is not in the turn's record (" .. l.dir .. "/manifest.json)")
    return l, nil
  end
  return l, m
end

local marks = vim.api.nvim_create_namespace("vibing_changes_reverted")
M.marks = marks

-- mark_reverted says, at the end of the list line row (1-based), that its
-- file was put back (a mark on the screen only: the chat file is left as
-- the turn wrote it).
local function mark_reverted(buf, row)
  if not row or row > vim.api.nvim_buf_line_count(buf) then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, marks, row - 1, row)
  vim.api.nvim_buf_set_extmark(buf, marks, row - 1, 0, {
    virt_text = { { "← reverted", hl } },
    virt_text_pos = "eol",
  })
end

---Revert entries of the list at the cursor: one (index) or all.
---@param buf integer
---@param all boolean
---@return boolean|nil acted nil when the cursor is not on a list
function M.revert(buf, all)
  local l, m = here(buf)
  if not l or not m then
    return l ~= nil or nil
  end
  if busy(buf) then
    return true
  end
  local todo, rows = {}, {}
  for i, e in ipairs(m.files) do
    if all or i == (l.index or 0) then
      table.insert(todo, e)
      rows[e] = l.row + i -- its line in the list
    end
  end
  if #todo == 0 then
    log.info("put the cursor on a file of the list (" .. (keys().revert_all or "revert all") .. " on the header reverts them all)")
    return true
  end
  local plan, asked = {}, {}
  for _, e in ipairs(todo) do
    local st, err = states(l.dir, e)
    if not st then
      log.warn(e.no_copy and err or (err .. "; it was not reverted"))
    elseif st.now == st.before then
      log.info(name(e) .. " is already as it was before the turn")
    else
      local why = changed_since(e, st)
      table.insert(plan, { e = e, st = st, why = why })
      if why ~= "" then
        table.insert(asked, name(e) .. " " .. why)
      end
    end
  end
  if #asked > 0 then
    -- what happens to the person's changes: lost on disk, kept in a buffer
    local on_disk, unsaved = false, false
    for _, p in ipairs(plan) do
      if p.why == UNSAVED then
        unsaved = true
        on_disk = on_disk or p.st.after == nil or p.st.now ~= p.st.after
      elseif p.why ~= "" then
        on_disk = true
      end
    end
    local after = {}
    if on_disk then
      table.insert(after, "Changes made on disk after the turn would be lost.")
    end
    if unsaved then
      table.insert(after, "The file on disk is reverted; its buffer keeps your unsaved changes (:e! loads the reverted file).")
    end
    local msg = table.concat(asked, "\n") .. "\n\nRevert to the content before the turn anyway? " .. table.concat(after, " ")
    local mixed = #plan > #asked
    local c = vim.fn.confirm(msg, mixed and "&Revert all\n&Only the others\n&Cancel" or "&Revert\n&Cancel", mixed and 3 or 2)
    -- clear the question's lines, or the next message waits for a key (hit-enter)
    vim.cmd("redraw")
    if mixed and c == 2 then
      plan = vim.tbl_filter(function(p)
        return p.why == ""
      end, plan)
    elseif c ~= 1 then
      log.info("nothing was reverted")
      return true
    end
  end
  local done = {}
  for _, p in ipairs(plan) do
    local ok, err = restore(p.e, p.st)
    if ok then
      table.insert(done, name(p.e))
      mark_reverted(buf, rows[p.e])
    else
      log.error(err)
    end
  end
  if #done > 0 then
    log.info("reverted to before the turn: " .. table.concat(done, ", "))
  end
  return true
end

local diff_count = 0

-- Make the current buffer a read-only scratch holding lines.
local function scratch(lines, bufname, ft)
  local b = vim.api.nvim_get_current_buf()
  vim.bo[b].buftype = "nofile"
  vim.bo[b].bufhidden = "wipe"
  vim.bo[b].swapfile = false
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.bo[b].modifiable = false
  vim.bo[b].readonly = true
  if ft and ft ~= "" then
    vim.bo[b].filetype = ft
  end
  diff_count = diff_count + 1
  pcall(vim.api.nvim_buf_set_name, b, ("vibing://%d/%s"):format(diff_count, bufname))
  return b
end

local function file_lines(path)
  local lines = vim.fn.readfile(path, "b")
  if lines[#lines] == "" then
    table.remove(lines)
  end
  return lines
end

---Show the diff of the file at the cursor against its pre-turn content, in
---a new tab: the file (or an empty scratch when it is gone now) on the
---right, the pre-turn content read-only on the left.
---@param buf integer
---@return boolean|nil acted nil when the cursor is not on a list
function M.diff(buf)
  local l, m = here(buf)
  if not l or not m then
    return l ~= nil or nil
  end
  local e = m.files[l.index or 0]
  if not e then
    log.info("put the cursor on a file of the list to see its diff")
    return true
  end
  if e.no_copy then
    log.warn(no_copy(e))
    return true
  end
  local before = {}
  if e.existed then
    local copy = l.dir .. "/" .. (e.before or "")
    if vim.fn.filereadable(copy) ~= 1 then
      log.error("the copy of " .. name(e) .. " from before the turn is gone")
      return true
    end
    before = file_lines(copy)
  end
  local ft
  if vim.loop.fs_stat(e.path) then
    vim.cmd("tabedit " .. vim.fn.fnameescape(e.path))
    ft = vim.bo.filetype
  else
    vim.cmd("tabnew")
    scratch({}, name(e) .. " (deleted)")
  end
  local right = vim.api.nvim_get_current_win()
  vim.cmd("diffthis")
  vim.cmd("leftabove vnew")
  scratch(before, name(e) .. " (before the turn)", ft)
  vim.cmd("diffthis")
  vim.api.nvim_set_current_win(right)
  return true
end

-- Outside a list a key does what Neovim does with it.
local function fallback(key)
  local count = vim.v.count > 0 and tostring(vim.v.count) or ""
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(count .. key, true, false, true), "n", false)
end

---Map the list's keys in a chat buffer (they act on list lines only).
---@param buf integer
function M.attach(buf)
  local k = keys()
  local acts = {
    { k.diff, M.diff, "the diff of this file against the state before the turn" },
    { k.revert, function(b)
      return M.revert(b, false)
    end, "revert this file to the state before the turn" },
    { k.revert_all, function(b)
      return M.revert(b, true)
    end, "revert every file of this list" },
  }
  for _, a in ipairs(acts) do
    local key, act = a[1], a[2]
    if key then
      vim.keymap.set("n", key, function()
        if act(buf) == nil then
          fallback(key)
        end
      end, { buffer = buf, nowait = true, desc = "vibing: " .. a[3] .. " (on a Modified files list)" })
    end
  end
end

return M
