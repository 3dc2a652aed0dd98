-- A small describe/it/assert harness for headless Neovim (plenary and
-- mini.test are not available here). Run through scripts/test-lua.sh.
local M = {}

local tests = {}
local stack = {}
local hooks = { before_each = {}, after_each = {} }

local function out(s)
  io.stdout:write(s .. "\n")
end

---Group tests under a name.
function M.describe(name, fn)
  table.insert(stack, name)
  fn()
  table.remove(stack)
end

---Add a test.
function M.it(name, fn)
  table.insert(tests, { name = table.concat(stack, " ") .. " " .. name, fn = fn })
end

---Run fn before every test (editor reset, temp dir).
function M.before_each(fn)
  table.insert(hooks.before_each, fn)
end

function M.after_each(fn)
  table.insert(hooks.after_each, fn)
end

-- Long values (a whole chat) would drown the report; show their start.
local function show(v)
  local s = vim.inspect(v)
  if #s > 600 then
    s = s:sub(1, 600) .. ("... (%d more bytes)"):format(#s - 600)
  end
  return s
end
M.show = show

local function fail(msg, level)
  error(msg, (level or 1) + 2)
end

local assert = {}
M.assert = assert

function assert.equals(want, got, msg)
  if not vim.deep_equal(want, got) then
    fail(("%sexpected %s, got %s"):format(msg and (msg .. ": ") or "", show(want), show(got)))
  end
end

function assert.truthy(v, msg)
  if not v then
    fail((msg or "expected a truthy value") .. ", got " .. show(v))
  end
end

function assert.falsy(v, msg)
  if v then
    fail((msg or "expected a falsy value") .. ", got " .. show(v))
  end
end

---s must contain the Lua pattern (or plain text with plain=true).
function assert.matches(pattern, s, plain, msg)
  if type(s) ~= "string" or not s:find(pattern, 1, plain) then
    fail(("%sexpected %s to match %q"):format(msg and (msg .. ": ") or "", show(s), pattern))
  end
end

---fn must raise an error; returns its message (matched against pattern when given).
function assert.errors(fn, pattern)
  local ok, err = pcall(fn)
  if ok then
    fail("expected an error, got none")
  end
  err = tostring(err)
  if pattern and not err:find(pattern, 1, true) then
    fail(("expected an error mentioning %q, got %q"):format(pattern, err))
  end
  return err
end

---Run every test; print one line per failure and the summary line. Returns the failure count.
function M.run()
  local passed, failed = 0, 0
  local clock = (vim.uv or vim.loop).hrtime
  for _, t in ipairs(tests) do
    local ok, err = true, nil
    local start = clock()
    for _, h in ipairs(hooks.before_each) do
      ok, err = xpcall(h, debug.traceback)
      if not ok then
        break
      end
    end
    if ok then
      ok, err = xpcall(t.fn, debug.traceback)
    end
    for _, h in ipairs(hooks.after_each) do
      local hok, herr = xpcall(h, debug.traceback)
      if ok and not hok then
        ok, err = false, herr
      end
    end
    if ok then
      passed = passed + 1
      if vim.env.VIBING_TEST_VERBOSE then
        out(("ok   %s (%.2f s)"):format(t.name, (clock() - start) / 1e9))
      end
    else
      failed = failed + 1
      out("FAIL " .. t.name .. "\n     " .. tostring(err):gsub("\n", "\n     "))
    end
  end
  -- Other output (":checkhealth" prints "Running healthchecks...") may have
  -- left the line open: the summary stands alone on its own line.
  out("\n" .. ("%d passed, %d failed"):format(passed, failed))
  return failed
end

return M
