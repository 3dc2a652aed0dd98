---@mod vibing.safefile Reading a file only when it is a regular file.
---The Go side's internal/safefile in the editor: a chat folder may hold a FIFO
---(reading it would block the editor until a writer came) or a link to a
---device (/dev/zero: reading it never ends). Such a file is not read.
local M = {}

---Whether path is a regular file (symlinks followed).
---@param path string
---@return boolean
function M.regular(path)
  local st = path ~= "" and vim.loop.fs_stat(path) or nil
  return st ~= nil and st.type == "file"
end

---readfile(path, flags, max) of a regular file; nil (and why) for anything else.
---@param path string
---@param flags string|nil
---@param max integer|nil
---@return string[]|nil, string|nil
function M.readfile(path, flags, max)
  if not M.regular(path) then
    return nil, path .. " is not a regular file"
  end
  if max then
    return vim.fn.readfile(path, flags or "", max)
  end
  return vim.fn.readfile(path, flags or "")
end

return M
