-- Shared test helpers: editor reset, temp folders, notify capture, chats.
local M = {}

local real_notify = vim.notify
local counter = 0

---Notifications since the last reset: { msg = ..., level = ... }.
M.notes = {}

---Install the per-test reset on the harness.
function M.install(h)
  h.before_each(function()
    M.reset()
  end)
end

---Reset the editor: one empty window, no buffers, default options, a fresh
---working directory, notifications captured.
function M.reset()
  pcall(vim.cmd, "silent! tabonly! | silent! only!")
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    pcall(vim.api.nvim_buf_delete, b, { force = true })
  end
  local config = require("vibing.config")
  config.options = vim.deepcopy(config.defaults)
  M.notes = {}
  vim.notify = function(msg, level)
    table.insert(M.notes, { msg = msg, level = level })
  end
  counter = counter + 1
  local dir = (vim.env.VIBING_TEST_TMP or vim.fn.tempname()) .. "/work" .. counter
  vim.fn.mkdir(dir, "p")
  vim.cmd("cd " .. vim.fn.fnameescape(dir))
  return dir
end

---All captured notification texts joined by newlines.
function M.notified()
  local out = {}
  for _, n in ipairs(M.notes) do
    table.insert(out, n.msg)
  end
  return table.concat(out, "\n")
end

---The last notification, or an empty one.
function M.last()
  return M.notes[#M.notes] or { msg = "", level = -1 }
end

---Write the real vim.notify back (for debugging a spec).
function M.restore_notify()
  vim.notify = real_notify
end

---Open a new chat; returns its buffer and path.
function M.new_chat()
  vim.cmd("VibingChat")
  local buf = vim.api.nvim_get_current_buf()
  return buf, vim.api.nvim_buf_get_name(buf)
end

---Type line into the last User section of buf and press <CR> there.
function M.say(buf, line)
  local n = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, n - 1, n, false, { line })
  require("vibing.chat").submit(buf)
end

---The file's bytes.
function M.read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

---The chat settings of the file at path, read by the real host.
function M.settings(path)
  local res, err = require("vibing.rpc").request("settings", { lines = vim.fn.readfile(path) })
  assert(res and res.ok, "settings of " .. path .. ": " .. tostring(err or (res and res.error)))
  local s = res.settings
  for _, k in ipairs({ "allow", "ask", "deny" }) do
    if type(s[k]) ~= "table" then
      s[k] = {}
    end
  end
  return s
end

---Write lines to path and return it.
function M.write(path, lines)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  vim.fn.writefile(lines, path)
  return path
end

return M
