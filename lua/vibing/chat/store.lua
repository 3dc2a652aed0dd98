---@mod vibing.chat.store Saving a chat, and editing its frontmatter, without losing what someone else wrote.
---Every save goes through vibing-agent (rpc `save`), which holds the chat's
---lock while it compares the file on disk with what this buffer last read or
---wrote and writes. A change made elsewhere (a second editor, `run
-----write-back` adding a rule) is merged when it touched only the
---frontmatter and the buffer's frontmatter is as it was: the buffer takes the
---disk's frontmatter. Anything else stops the save with a clear message;
---nothing is overwritten silently.
local M = {}

local fm = require("vibing.chat.frontmatter")

---@type table<integer, string[]> bufnr -> the file's lines as last read or written
local baseline = {}

local function real(bufnr)
  return (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
end

local function read(path)
  if path == "" or vim.fn.filereadable(path) == 0 then
    return nil
  end
  return (require("vibing.safefile").readfile(path)) -- (nil for a FIFO or a device)
end

-- Split lines at the end of the frontmatter (the closing fence).
local function split(lines)
  if lines[1] ~= "---" then
    return {}, lines
  end
  for i = 2, #lines do
    if lines[i] == "---" or lines[i] == "..." then
      return vim.list_slice(lines, 1, i), vim.list_slice(lines, i + 1)
    end
  end
  return {}, lines
end

local function same(a, b)
  if #a ~= #b then
    return false
  end
  for i = 1, #a do
    if a[i] ~= b[i] then
      return false
    end
  end
  return true
end

---Remember the file as it is on disk now (after a read or a write).
---@param bufnr integer
function M.remember(bufnr)
  bufnr = real(bufnr)
  baseline[bufnr] = read(vim.api.nvim_buf_get_name(bufnr))
end

---Forget a buffer (it was wiped).
---@param bufnr integer
function M.forget(bufnr)
  baseline[real(bufnr)] = nil
end

-- The written file is the buffer: Neovim takes it as read (no "changed
-- since reading" question), and it is the new baseline.
local function written(bufnr)
  vim.bo[bufnr].modified = false
  pcall(vim.api.nvim_buf_call, bufnr, function()
    local group = vim.api.nvim_create_augroup("vibing_store_merge", { clear = true })
    vim.api.nvim_create_autocmd("FileChangedShell", {
      group = group,
      buffer = bufnr,
      desc = "vibing: the chat on disk is the buffer just written",
      command = 'let v:fcs_choice = ""',
    })
    vim.cmd("silent checktime " .. bufnr)
    vim.api.nvim_del_augroup_by_id(group)
  end)
  baseline[bufnr] = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
end

-- Take in a change made on disk, or say why it cannot be.
local function merge(bufnr, base, disk)
  local base_fm, base_body = split(base)
  local disk_fm, disk_body = split(disk)
  local buf_fm, closed = fm.lines(bufnr)
  if #disk_fm > 0 and closed and same(disk_body, base_body) and same(buf_fm, base_fm) then
    fm.replace(bufnr, disk_fm)
    return true
  end
  return false,
    "the chat changed on disk since vibing last read or wrote it (another editor, or vibing-agent run --write-back); "
      .. "nothing was saved: reload it with :edit! (drops your unsaved edits) or keep yours with :write!"
end

---Write a merged buffer: `:write!` would stop at Neovim's own "changed
---since reading" question (Neovim 0.7 asks even with !). The lines go to a
---temp file renamed over the chat; then Neovim takes the new file as read.
---@param bufnr integer
---@param path string
---@return boolean ok, string|nil err
function M.write_merged(bufnr, path)
  bufnr = real(bufnr)
  local tmp = path .. ".vibing-tmp"
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local ok, err = vim.fn.writefile(lines, tmp) == 0, nil
  if ok then
    ok, err = vim.loop.fs_rename(tmp, path)
  end
  if not ok then
    pcall(os.remove, tmp)
    local why = "could not save the chat: " .. tostring(err or ("cannot write " .. tmp))
    require("vibing.log").error(why)
    return false, why
  end
  written(bufnr)
  return true
end

-- Without vibing-agent's rpc host (a stand-in binary, a broken install) the
-- same comparison runs here, without the chat's lock.
local function save_unlocked(bufnr, path)
  local base, disk = baseline[bufnr], read(path)
  if base and disk and not same(base, disk) then
    local ok, why = merge(bufnr, base, disk)
    if not ok then
      require("vibing.log").error(why)
      return false, why
    end
    require("vibing.log").info("the chat's settings were changed on disk; vibing took them in before saving")
    return M.write_merged(bufnr, path)
  end
  local ok, err = pcall(vim.api.nvim_buf_call, bufnr, function()
    vim.cmd("silent keepalt write!")
  end)
  if not ok then
    local why = "could not save the chat: " .. tostring(err)
    require("vibing.log").error(why)
    return false, why
  end
  M.remember(bufnr)
  return true
end

---Save the chat. vibing-agent writes it under the chat's lock (the one `run
-----write-back` holds) and compares the file with this buffer's baseline
---under that lock, so nothing another process wrote in between is lost.
---Returns true, or false and why (already reported).
---@param bufnr integer
---@return boolean ok, string|nil err
function M.save(bufnr)
  bufnr = real(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return true
  end
  local path = vim.api.nvim_buf_get_name(bufnr)
  if path == "" then
    return true
  end
  local log = require("vibing.log")
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local res = require("vibing.rpc").request("save", { path = vim.fn.fnamemodify(path, ":p"), lines = lines, base = baseline[bufnr] })
  if not res then
    return save_unlocked(bufnr, path)
  end
  if not res.ok then
    local why = res.message or "could not save the chat"
    log.error(why)
    return false, why
  end
  if res.merged and type(res.frontmatter) == "table" then
    fm.replace(bufnr, res.frontmatter)
    log.info("the chat's settings were changed on disk; vibing took them in before saving")
  end
  written(bufnr)
  return true
end

---Apply one frontmatter edit through the rpc host (`edit`: op, list,
---rules, value) and save the chat. Only the frontmatter lines change; the
---reply's `shift` says by how many lines the frontmatter grew.
---@param bufnr integer
---@param params table
---@param opts table|nil { save = false } leaves the saving to the caller
---@return table|nil reply, string|nil err
function M.edit(bufnr, params, opts)
  bufnr = real(bufnr)
  local lines, closed = fm.lines(bufnr)
  params.lines = lines
  local res, err = require("vibing.rpc").call("edit", params)
  if not res then
    return nil, err
  end
  res.shift = 0
  if res.changed then
    if not closed then
      return nil, "the chat's frontmatter does not close with ---"
    end
    res.shift = fm.replace(bufnr, res.lines)
    if not (opts and opts.save == false) then
      local ok, why = M.save(bufnr)
      if not ok then
        return nil, why
      end
    end
  end
  return res
end

return M
