---@mod vibing.chat Chat buffers: create, open, attach keymaps and completion.
local M = {}

local fm = require("vibing.chat.frontmatter")
local log = require("vibing.log")

local function options()
  return require("vibing").options()
end

---Whether the buffer is a vibing chat (its frontmatter says `vibing.nvim: true`).
---@param bufnr integer|nil
---@return boolean
function M.is_chat(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.b[bufnr].vibing_chat then
    return true
  end
  local first, last = fm.range(bufnr)
  if not first then
    return false
  end
  for _, l in ipairs(vim.api.nvim_buf_get_lines(bufnr, 1, last - 1, false)) do
    if l:match("^vibing%.nvim:%s*true%s*$") then
      return true
    end
  end
  return false
end

---A file name for a new chat in dir that does not exist yet.
---@param dir string
---@param time integer|nil
---@return string
function M.new_path(dir, time)
  local base = dir .. "/chat-" .. os.date("%Y%m%d-%H%M%S", time)
  local path, n = base .. ".md", 1
  while vim.loop.fs_stat(path) do
    n = n + 1
    path = ("%s-%d.md"):format(base, n)
  end
  return path
end

-- The .gitignore a new .vibing/chat folder gets, as .vibing/turns has one.
M.gitignore = {
  "# vibing: chats are yours and stay out of git by default (they may quote",
  "# code, command output or secrets). To keep them in git, delete this file.",
  "*",
}

---Give a chat folder the plugin just created a .gitignore, when it is the
---folder inside .vibing (a chat_dir of your own choosing gets none) and has
---none yet.
---@param dir string absolute path, without a trailing slash
function M.write_gitignore(dir)
  if not dir:match("/%.vibing/chat$") then
    return
  end
  local path = dir .. "/.gitignore"
  if not vim.loop.fs_stat(path) then
    pcall(vim.fn.writefile, M.gitignore, path)
  end
end

---Create a new chat file from the permission template; returns its path.
---@return string|nil path, string|nil err
function M.create()
  local o = options()
  local dir = vim.fn.fnamemodify(vim.fn.expand(o.chat_dir), ":p"):gsub("/$", "")
  if vim.fn.isdirectory(dir) == 0 then
    if vim.fn.mkdir(dir, "p") == 0 then
      return nil, "could not create the chat folder " .. dir
    end
    M.write_gitignore(dir)
  end
  local now = os.time()
  local path = M.new_path(dir, now)
  local lines = fm.template(o.permissions, os.date("%Y-%m-%dT%H:%M:%S", now))
  if vim.fn.writefile(lines, path) ~= 0 then
    return nil, "could not write " .. path
  end
  return path
end

local function open_window(path)
  local pos = options().window
  local cmd = ({ current = "edit", split = "split", vsplit = "vsplit", tab = "tabedit" })[pos.position]
  if cmd then
    vim.cmd(cmd .. " " .. vim.fn.fnameescape(path))
    return
  end
  local buf = vim.fn.bufadd(path)
  vim.fn.bufload(buf)
  vim.bo[buf].buflisted = true
  local function dim(v, total)
    return math.max(1, math.floor(v <= 1 and total * v or math.min(v, total)))
  end
  local w, h = dim(pos.width, vim.o.columns), dim(pos.height, vim.o.lines - 2)
  vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    width = w,
    height = h,
    row = math.floor((vim.o.lines - 2 - h) / 2),
    col = math.floor((vim.o.columns - w) / 2),
    border = pos.border,
    style = "minimal",
  })
end

---A window showing the loaded buffer of the file at path (the current
---window first), or nil: opening a chat that is open already goes there
---instead of reading it again with :edit.
---@param path string
---@return integer|nil win
function M.shown(path)
  local full = vim.fn.fnamemodify(path, ":p")
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) == full then
      local wins = vim.fn.win_findbuf(b)
      if vim.tbl_contains(wins, vim.api.nvim_get_current_win()) then
        return vim.api.nvim_get_current_win()
      end
      return wins[1]
    end
  end
  return nil
end

---Open a saved chat, or a new one when path is nil or empty.
---@param path string|nil
function M.open(path)
  if not path or path == "" then
    local err
    path, err = M.create()
    if not path then
      log.error(err)
      return
    end
  elseif vim.fn.filereadable(vim.fn.expand(path)) == 0 then
    log.error("no chat at " .. path .. " (run :VibingChat without a file to start a new one)")
    return
  end
  local shown = M.shown(vim.fn.expand(path))
  if shown then
    vim.api.nvim_set_current_win(shown)
  else
    open_window(vim.fn.expand(path))
  end
  local buf = vim.api.nvim_get_current_buf()
  if not M.is_chat(buf) then
    log.warn(path .. " is not a vibing chat (its frontmatter has no 'vibing.nvim: true')")
    return
  end
  M.attach(buf)
  -- Put the cursor on the empty line of the last User section.
  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buf), 0 })
end

---Make a buffer a chat: keymaps, completion, filetype.
---@param bufnr integer
function M.attach(bufnr)
  if vim.b[bufnr].vibing_chat then
    return
  end
  vim.b[bufnr].vibing_chat = true
  require("vibing.chat.context").touch(bufnr)
  vim.api.nvim_create_autocmd("BufEnter", {
    buffer = bufnr,
    desc = "vibing: the chat :VibingAdd adds to",
    callback = function()
      require("vibing.chat.context").touch(bufnr)
    end,
  })
  local store = require("vibing.chat.store")
  store.remember(bufnr)
  vim.api.nvim_create_autocmd({ "BufWritePost", "BufReadPost" }, {
    group = vim.api.nvim_create_augroup("vibing_store_" .. bufnr, { clear = true }),
    buffer = bufnr,
    desc = "vibing: remember the chat as it is on disk, to notice changes made elsewhere",
    callback = function()
      store.remember(bufnr)
    end,
  })
  vim.api.nvim_create_autocmd("BufUnload", {
    group = vim.api.nvim_create_augroup("vibing_live_" .. bufnr, { clear = true }),
    buffer = bufnr,
    desc = "vibing: closing the chat ends its live agent process (reloading it with :e does not)",
    callback = function()
      local run = package.loaded["vibing.chat.run"]
      if not run then
        return
      end
      if run.running(bufnr) or vim.v.exiting ~= vim.NIL then
        -- a reply being written cannot follow the buffer's text through a
        -- reload: it is stopped and saved while the text is still there
        run.stop(bufnr, { closing = true })
        return
      end
      -- :e reloads the buffer (BufUnload, then it is read again): the live
      -- process stays, so the next message is no resumed session. Only a
      -- buffer that is still unloaded afterwards (:bd, :bw) ends it.
      vim.schedule(function()
        if not vim.api.nvim_buf_is_loaded(bufnr) then
          run.stop(bufnr)
        end
      end)
    end,
  })
  vim.api.nvim_create_autocmd("BufWipeout", {
    group = vim.api.nvim_create_augroup("vibing_store_wipe_" .. bufnr, { clear = true }),
    buffer = bufnr,
    desc = "vibing: forget the chat's saved state",
    callback = function()
      store.forget(bufnr)
    end,
  })
  if vim.bo[bufnr].filetype ~= "markdown" then
    vim.bo[bufnr].filetype = "markdown"
  end
  local omnifunc = "v:lua.require'vibing.complete'.omnifunc"
  vim.bo[bufnr].omnifunc = omnifunc
  vim.api.nvim_create_autocmd("FileType", {
    group = vim.api.nvim_create_augroup("vibing_complete_" .. bufnr, { clear = true }),
    buffer = bufnr,
    desc = "vibing: keep the chat's completion when the filetype is set again (:e)",
    callback = function()
      -- the markdown filetype plugin has just set its own omnifunc
      vim.bo[bufnr].omnifunc = omnifunc
    end,
  })
  local output = require("vibing.chat.output")
  output.attach(bufnr)
  local keys = options().keymaps
  if keys.send then
    local both = keys.output == keys.send
    vim.keymap.set("n", keys.send, function()
      if both and output.toggle(bufnr) then
        return
      end
      M.submit(bufnr)
    end, { buffer = bufnr, desc = both and "vibing: show or hide a tool's output (on its line), else send the message" or "vibing: run the slash command or send the message" })
  end
  if keys.output and keys.output ~= keys.send then
    local key = keys.output
    vim.keymap.set("n", key, function()
      if not output.toggle(bufnr) then
        vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(key, true, false, true), "n", false)
      end
    end, { buffer = bufnr, desc = "vibing: show or hide a tool's output (on its line)" })
  end
  if keys.output ~= "za" then
    -- za on a tool line: its output's fold starts on the summary line under it
    vim.keymap.set("n", "za", function()
      local line = vim.api.nvim_get_current_line()
      if vim.v.count == 0 and (line:find("^⏺ ") or line:find("^✗ ")) and output.toggle(bufnr) then
        return
      end
      local ok, err = pcall(vim.cmd, "normal! " .. (vim.v.count > 0 and vim.v.count or "") .. "za")
      if not ok then
        -- as Neovim's own za says it (E490: No fold found), without a Lua traceback
        vim.api.nvim_echo({ { tostring(err):match("E%d+:.*") or tostring(err), "ErrorMsg" } }, false, {})
      end
    end, { buffer = bufnr, desc = "vibing: za on a tool line shows or hides its output" })
  end
  if keys.cancel then
    vim.keymap.set("n", keys.cancel, function()
      require("vibing.chat.run").cancel(bufnr)
    end, { buffer = bufnr, desc = "vibing: cancel the running message" })
  end
  require("vibing.chat.changes").attach(bufnr)
  local trust = require("vibing.permissions.trust")
  trust.note_once(trust.chat_project(bufnr))
end

---Attach when a Markdown buffer turns out to be a chat (BufRead autocmd).
---@param bufnr integer
function M.maybe_attach(bufnr)
  if M.is_chat(bufnr) then
    M.attach(bufnr)
  end
end

---The last User section: its first and last content lines (1-based), or nil.
---@param bufnr integer
---@return integer|nil, integer|nil
function M.last_user_section(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local _, fm_last = fm.range(bufnr)
  local head
  for i = #lines, (fm_last or 0) + 1, -1 do
    if lines[i]:match("^## User%s*$") then
      head = i
      break
    end
  end
  if not head then
    return nil
  end
  -- the section ends at the next chat heading; any other "## " heading is
  -- part of the person's message
  local last = #lines
  for i = head + 1, #lines do
    if lines[i]:match("^## Assistant%s*$") or lines[i]:match("^## User%s*$") then
      last = i - 1
      break
    end
  end
  return head + 1, last
end

---`<CR>`: run a slash command locally, or send the message.
---@param bufnr integer
function M.submit(bufnr)
  local first, last = M.last_user_section(bufnr)
  if not first then
    log.warn("this chat has no '## User' section to send")
    return
  end
  local lines = vim.api.nvim_buf_get_lines(bufnr, first - 1, last, false)
  for i, l in ipairs(lines) do
    if l:match("%S") then
      if l:match("^%s*/") then
        require("vibing.slash").run(bufnr, l, first + i - 1)
      else
        require("vibing.chat.send").send(bufnr)
      end
      return
    end
  end
  log.info("the User section is empty: type a message or a slash command (/help)")
end

return M
