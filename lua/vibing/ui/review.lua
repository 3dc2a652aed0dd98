---@mod vibing.ui.review Side-by-side review of a pending approval (the `d` key).
---A new tab in diff mode: the file as it is now on the left (read-only), the
---proposal on the right (an ordinary, editable buffer); for Bash one editable
---buffer holding the command (an edited command that does not parse as shell
---is not sent: the review stays open to fix it). In the review, the allow-once key approves what
---the right side holds (an edit becomes `updated_input`), the deny key denies,
---the deny-reason key denies with a reason, and `q` closes the tab.
local M = {}

local render = require("vibing.chat.render")

local field = render.field

local function split(text)
  local out = vim.split((text or ""):gsub("\r\n", "\n"), "\n", { plain = true })
  local nl = out[#out] == ""
  if nl and #out > 1 then
    table.remove(out)
  end
  return out, nl
end

local function scratch(name, lines, ft, modifiable)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  if ft and ft ~= "" then
    vim.bo[buf].filetype = ft
  end
  vim.bo[buf].modifiable = modifiable
  vim.bo[buf].modified = false
  return buf
end

local function current_lines(path)
  if type(path) ~= "string" or vim.fn.filereadable(path) ~= 1 then
    return {}
  end
  local lines = vim.fn.readfile(path)
  for i, l in ipairs(lines) do
    lines[i] = l:gsub("\r$", "")
  end
  return lines
end

local function count(hay, needle)
  local n, from = 0, 1
  while true do
    local i = hay:find(needle, from, true)
    if not i then
      return n
    end
    n, from = n + 1, i + 1
  end
end

---The Edit that turns the file's lines cur into the edited lines new: the
---changed lines (grown by whole lines until old_string is unique in the
---file), or nil when nothing differs.
---@param cur string[]
---@param new string[]
---@return string|nil old_string, string|nil new_string
function M.edit_between(cur, new)
  local p = 0
  while p < #cur and p < #new and cur[p + 1] == new[p + 1] do
    p = p + 1
  end
  if p == #cur and p == #new then
    return nil
  end
  local s = 0
  while s < #cur - p and s < #new - p and cur[#cur - s] == new[#new - s] do
    s = s + 1
  end
  local text = table.concat(cur, "\n")
  local a, b = p + 1, #cur - s -- the changed lines of cur: a..b (may be empty)
  local c, d = p + 1, #new - s
  local function region()
    return table.concat(vim.list_slice(cur, a, b), "\n"), table.concat(vim.list_slice(new, c, d), "\n")
  end
  local old, repl = region()
  while (old == "" or count(text, old) > 1) and (a > 1 or b < #cur) do
    if a > 1 then
      a, c = a - 1, c - 1
    end
    if b < #cur then
      b, d = b + 1, d + 1
    end
    old, repl = region()
  end
  if old == "" then
    return nil
  end
  return old, repl
end

---The updated_input for what the proposal buffer holds, or nil when it is
---the proposal as the agent made it.
local function updated_input(req, kind, lines, orig, nl)
  if vim.deep_equal(lines, orig) then
    return nil
  end
  local text = table.concat(lines, "\n")
  if req.tool == "Bash" or kind == "command" then
    return { command = text }
  elseif req.tool == "Write" then
    return { content = text .. (nl and "\n" or "") }
  elseif req.tool == "Edit" or req.tool == "MultiEdit" then
    local old, new = M.edit_between(current_lines(field(req.input, "file_path")), lines)
    if not old then
      return nil, "the edited proposal leaves the file as it is; deny the call instead"
    end
    if req.tool == "Edit" then
      return { old_string = old, new_string = new, replace_all = false }
    end
    return { edits = { { old_string = old, new_string = new } } }
  end
  return nil, ("%s calls cannot be edited before approval; approve or deny them as they are"):format(req.tool)
end

---Why an edited Bash command cannot be sent (it does not parse as shell),
---or nil. A host that cannot tell (an older vibing-agent) lets it through:
---the run checks the edited call again anyway.
---@param command string
---@return string|nil
function M.command_problem(command)
  local res = require("vibing.rpc").request("check_command", { command = command })
  if type(res) == "table" and res.ok == false and type(res.error) == "string" then
    return res.error
  end
  return nil
end

local function close(tab)
  if vim.api.nvim_tabpage_is_valid(tab) and #vim.api.nvim_list_tabpages() > 1 then
    vim.cmd("tabclose " .. vim.api.nvim_tabpage_get_number(tab))
  end
end

local function keymaps(chat, req, tab, right, kind, orig, nl)
  local approval = require("vibing.ui.approval")
  local k = require("vibing").options().keymaps.approval or {}
  local function still_pending()
    local p = approval.active(chat)
    if not p or p.req.id ~= req.id or p.answered then
      require("vibing.log").warn("this approval is no longer waiting")
      close(tab)
      return false
    end
    return true
  end
  local function set(key, fn, desc)
    if key then
      for _, b in ipairs(vim.fn.tabpagebuflist(vim.api.nvim_tabpage_get_number(tab))) do
        vim.keymap.set("n", key, fn, { buffer = b, nowait = true, desc = "vibing review: " .. desc })
      end
    end
  end
  set(k.allow_once, function()
    if not still_pending() then
      return
    end
    local lines = vim.api.nvim_buf_get_lines(right, 0, -1, false)
    local upd, err = updated_input(req, kind, lines, orig, nl)
    if err then
      require("vibing.log").warn(err)
      return
    end
    if upd and type(upd.command) == "string" then
      err = M.command_problem(upd.command)
      if err then
        require("vibing.log").warn(("%s — fix the command and press %s again (q closes, the approval waits)"):format(err, k.allow_once))
        return
      end
    end
    close(tab)
    approval.answer(chat, "allow_once", upd and { updated_input = upd } or nil)
  end, "approve what the right side holds")
  set(k.deny_once, function()
    if still_pending() then
      close(tab)
      approval.answer(chat, "deny_once")
    end
  end, "deny")
  set(k.deny_reason, function()
    if still_pending() then
      close(tab)
      approval.deny_with_reason(chat)
    end
  end, "deny with a reason")
  set("q", function()
    close(tab)
  end, "close the review (the approval keeps waiting)")
end

---Open the side-by-side review of a pending request.
---@param chat integer the chat buffer
---@param req vibing.ApprovalRequest
function M.open(chat, req)
  local p = field(req, "preview") or {}
  local kind = field(p, "kind")
  local input = field(req, "input") or {}
  local path = field(input, "file_path") or field(input, "notebook_path")
  local ft
  if path and vim.filetype and vim.filetype.match then
    local ok, got = pcall(vim.filetype.match, { filename = path })
    ft = ok and got or nil
  end
  local name = "vibing://review/" .. req.id
  local left, right, orig, nl
  if req.tool == "Bash" or kind == "command" then
    orig, nl = split(field(p, "command") or field(input, "command") or "")
    right = scratch(name .. "/command", orig, "sh", true)
  elseif kind == "diff" or kind == "new_file" then
    local proposed = field(p, "proposed")
    if req.tool == "Write" then
      proposed = field(input, "content")
    end
    if type(proposed) ~= "string" then
      require("vibing.log").warn(field(p, "problem") or "this change has no proposal to review")
      return
    end
    left = scratch(name .. "/current", current_lines(path), ft, false)
    orig, nl = split(proposed)
    right = scratch(name .. "/proposed", orig, ft, true)
  else
    orig = split(field(p, "json") or vim.fn.json_encode(input))
    right = scratch(name .. "/input", orig, "json", false)
  end
  vim.cmd("tabnew")
  local tab = vim.api.nvim_get_current_tabpage()
  local scratch_buf = vim.api.nvim_get_current_buf()
  if left then
    vim.api.nvim_win_set_buf(0, left)
    vim.cmd("diffthis")
    vim.cmd("rightbelow vsplit")
  end
  vim.api.nvim_win_set_buf(0, right)
  if left then
    vim.cmd("diffthis")
  end
  if vim.api.nvim_buf_is_valid(scratch_buf) and scratch_buf ~= left and scratch_buf ~= right then
    pcall(vim.api.nvim_buf_delete, scratch_buf, { force = true })
  end
  keymaps(chat, req, tab, right, kind, orig, nl)
  local k = require("vibing").options().keymaps.approval or {}
  local what = left and "edit the right side" or ((req.tool == "Bash" or kind == "command") and "edit the command" or "read the input")
  require("vibing.log").info(
    ("review: %s, then %s approves it, %s denies, %s denies with a reason, q closes"):format(
      what,
      k.allow_once or "-",
      k.deny_once or "-",
      k.deny_reason or "-"
    )
  )
  vim.b[right].vibing_review = req.id
end

return M
