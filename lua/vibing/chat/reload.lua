---@mod vibing.chat.reload Open buffers of files the agent changed are checked against the disk.
---After a call that wrote files (Edit, Write, MultiEdit, NotebookEdit) ran,
---the buffers of those files are `:checktime`d; after a Bash call, every
---loaded file buffer (a command may change anything). A buffer without
---unsaved changes is reloaded quietly, so saving it later cannot revert the
---agent's edit; a buffer with unsaved changes is never overwritten: Neovim's
---own rules apply (the W12 warning, or a FileChangedShell autocommand).
local M = {}

---Tools whose calls write the file named in their input.
M.writers = { Edit = "file_path", Write = "file_path", MultiEdit = "file_path", NotebookEdit = "notebook_path" }

-- Loaded buffers that show a file (not chats, not special buffers).
local function file_buffers()
  local out = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == "" and vim.api.nvim_buf_get_name(b) ~= "" and not vim.b[b].vibing_chat then
      table.insert(out, b)
    end
  end
  return out
end

local function check(buf)
  if not vim.api.nvim_buf_is_loaded(buf) then
    return
  end
  local quiet = not vim.bo[buf].modified
  -- autoread for this check only: an unchanged buffer follows the disk.
  -- The local value is -1 when the buffer follows the global one.
  local saved = quiet and vim.fn.getbufvar(buf, "&autoread") or nil
  local function setlocal(cmd)
    vim.api.nvim_buf_call(buf, function()
      vim.cmd(cmd)
    end)
  end
  if quiet then
    setlocal("setlocal autoread")
  end
  local ok, err = pcall(vim.cmd, "checktime " .. buf)
  if quiet and vim.api.nvim_buf_is_valid(buf) then
    setlocal(saved == -1 and "set autoread<" or (saved == 1 and "setlocal autoread" or "setlocal noautoread"))
  end
  if not ok then
    require("vibing.log").warn(("could not check %s against the disk: %s"):format(vim.api.nvim_buf_get_name(buf), tostring(err)))
  end
end

---Check the buffers a tool call that ran may have changed.
---@param tool string
---@param input table|nil the call's input
function M.after(tool, input)
  if tool == "Bash" then
    for _, b in ipairs(file_buffers()) do
      check(b)
    end
    return
  end
  local key = M.writers[tool]
  local path = key and type(input) == "table" and input[key]
  if type(path) ~= "string" or path == "" then
    return
  end
  local b = vim.fn.bufnr(vim.fn.fnamemodify(path, ":p"))
  if b > 0 and vim.tbl_contains(file_buffers(), b) then
    check(b)
  end
end

return M
