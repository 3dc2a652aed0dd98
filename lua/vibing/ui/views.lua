---@mod vibing.ui.views :VibingPermissions (a float) and :VibingAudit (a scratch buffer).
local M = {}

local log = require("vibing.log")

local function scratch(lines, name)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = "wipe"
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.keymap.set("n", "q", "<cmd>close<CR>", { buffer = buf, desc = "vibing: close" })
  return buf
end

local function chat_buffer()
  local buf = vim.api.nvim_get_current_buf()
  if require("vibing.chat").is_chat(buf) then
    return buf
  end
  return nil
end

---Show the effective permissions of the current chat in a float.
function M.permissions()
  local buf = chat_buffer()
  if not buf then
    log.warn(":VibingPermissions works in a chat buffer (open one with :VibingChat)")
    return
  end
  local res, err = require("vibing.rpc").call("explain", {
    lines = (require("vibing.chat.frontmatter").lines(buf)),
    chat = vim.api.nvim_buf_get_name(buf),
    cwd = vim.fn.getcwd(),
    -- the live process's state; without one, what the next message gets
    resumed = require("vibing.chat.run").resumed(buf),
  })
  if not res then
    log.error(err)
    return
  end
  local lines = vim.split(res.text, "\n", { plain = true })
  if type(res.error) == "string" then
    table.insert(lines, 1, "Every call is refused until this is fixed: " .. res.error)
  end
  local view = scratch(lines, "vibing://permissions/" .. buf)
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 2, vim.o.columns - 4)
  local height = math.min(#lines, vim.o.lines - 6)
  vim.api.nvim_open_win(view, true, {
    relative = "editor",
    width = width,
    height = height,
    row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    border = require("vibing").options().window.border,
    style = "minimal",
  })
  return view
end

-- Audit columns and their widths (0 = as wide as the value).
local columns = {
  { "time", 19 },
  { "decision", 12 },
  { "tool", 12 },
  { "source", 10 },
  { "rule", 24 },
  { "action", 0 },
}

local function cell(v, width)
  v = (v == nil or v == vim.NIL or v == "") and "-" or tostring(v):gsub("\n", " ")
  if width == 0 then
    return v
  end
  if vim.fn.strdisplaywidth(v) > width then
    v = vim.fn.strcharpart(v, 0, width - 1) .. "…"
  end
  return v .. string.rep(" ", width - vim.fn.strdisplaywidth(v))
end

---One audit row as an aligned line.
---@param row table
---@return string
function M.format_row(row)
  local parts = {}
  for _, c in ipairs(columns) do
    table.insert(parts, cell(row[c[1]], c[2]))
  end
  return table.concat(parts, " ")
end

local function header()
  local row = {}
  for _, c in ipairs(columns) do
    row[c[1]] = c[1]
  end
  return M.format_row(row)
end

---List recent audit rows (of one chat when given, else of the current chat,
---else all) in a scratch buffer.
---@param chat string|nil
function M.audit(chat)
  if chat and chat ~= "" then
    chat = vim.fn.fnamemodify(vim.fn.expand(chat), ":p")
  else
    local buf = chat_buffer()
    chat = buf and vim.api.nvim_buf_get_name(buf) or nil
  end
  local res, err = require("vibing.rpc").request("audit", { chat = chat, limit = 200 })
  if not res then
    log.error(err)
    return
  end
  if not res.ok then
    log.warn(res.error)
    return
  end
  local lines = { "vibing audit" .. (chat and (" — " .. chat) or "") .. "  (q closes)", header() }
  local rows = type(res.rows) == "table" and res.rows or {}
  for _, row in ipairs(rows) do
    table.insert(lines, M.format_row(row))
  end
  if #rows == 0 then
    table.insert(lines, "(no audit rows yet)")
  end
  vim.cmd("botright new")
  local view = scratch(lines, "vibing://audit")
  vim.api.nvim_win_set_buf(0, view)
  return view
end

return M
