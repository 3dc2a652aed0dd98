---@mod vibing.chat.frontmatter The frontmatter block of a chat buffer (parsing is the Go side's job).
local M = {}

-- Limit on what is sent when the closing fence is missing: enough for the Go
-- side to say where the frontmatter breaks, never the whole of a long chat.
local MAX_UNCLOSED = 2000

---Line range of the frontmatter: 1-based first and last line (both fences),
---or nil when the buffer does not start with one that closes.
---@param bufnr integer
---@return integer|nil, integer|nil
function M.range(bufnr)
  local first = vim.api.nvim_buf_get_lines(bufnr, 0, 1, false)[1]
  if first ~= "---" then
    return nil
  end
  local n = vim.api.nvim_buf_line_count(bufnr)
  local step = 200
  for start = 1, n - 1, step do
    local chunk = vim.api.nvim_buf_get_lines(bufnr, start, math.min(start + step, n), false)
    for i, l in ipairs(chunk) do
      if l == "---" or l == "..." then
        return 1, start + i
      end
    end
  end
  return nil
end

---The frontmatter lines to send to the host: the whole block when it closes;
---otherwise the start of the buffer, so the host reports what is wrong.
---@param bufnr integer
---@return string[] lines
---@return boolean closed
function M.lines(bufnr)
  local first, last = M.range(bufnr)
  if first then
    return vim.api.nvim_buf_get_lines(bufnr, 0, last, false), true
  end
  return vim.api.nvim_buf_get_lines(bufnr, 0, MAX_UNCLOSED, false), false
end

---Replace the frontmatter block with new lines, touching nothing else.
---@param bufnr integer
---@param lines string[]
---@return integer delta change in line count
function M.replace(bufnr, lines)
  local _, last = M.range(bufnr)
  if not last then
    error("vibing: the chat has no frontmatter to replace")
  end
  vim.api.nvim_buf_set_lines(bufnr, 0, last, true, lines)
  return #lines - last
end

-- A plain YAML scalar is safe when it cannot be read as anything but a string.
local function scalar(s)
  if
    s:match("^[%w_][%w_%.%-%(%)%*:/~,%[%]{}@ ]*$")
    and not s:find(": ", 1, true)
    and not s:find(":$")
    and not s:find(" #", 1, true)
    and not s:find("[%[%]{},]")
    and not s:match("^%d")
    and not vim.tbl_contains({ "true", "false", "yes", "no", "on", "off", "null", "~" }, s:lower())
  then
    return s
  end
  return '"' .. s:gsub("\\", "\\\\"):gsub('"', '\\"') .. '"'
end
M.scalar = scalar

local function list(key, items)
  if not items or #items == 0 then
    return { key .. ": []" }
  end
  local out = { key .. ":" }
  for _, x in ipairs(items) do
    table.insert(out, "  - " .. scalar(x))
  end
  return out
end

---Frontmatter and first User section of a new chat (SPEC §2).
---@param perms vibing.Permissions
---@param created_at string
---@return string[]
function M.template(perms, created_at)
  local out = { "---", "vibing.nvim: true", "created_at: " .. created_at, "permissions_mode: " .. perms.mode }
  if perms.preset and perms.preset ~= "" then
    table.insert(out, "permissions_preset: " .. scalar(perms.preset))
  end
  vim.list_extend(out, list("permissions_allow", perms.allow))
  vim.list_extend(out, list("permissions_ask", perms.ask))
  vim.list_extend(out, list("permissions_deny", perms.deny))
  vim.list_extend(out, { "---", "", "## User", "", "" })
  return out
end

return M
