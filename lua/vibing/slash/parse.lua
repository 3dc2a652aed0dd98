---@mod vibing.slash.parse Reading a slash line: the command and its rules.
local M = {}

---Split a slash line into its command name and the rest.
---`/allow Bash(npm:*)` -> "allow", "Bash(npm:*)".
---@param line string
---@return string|nil name, string args
function M.command(line)
  local name, rest = line:match("^%s*/([%w%-_]+)%s*(.-)%s*$")
  return name, rest or ""
end

---Split rule arguments on whitespace outside parentheses; a `/regex/`
---rule runs to the `/` that ends a word. A leading `-` stays on its rule.
---`Bash(npm run build) -Read` -> { "Bash(npm run build)", "-Read" }.
---@param s string
---@return string[]
function M.rules(s)
  local out, i, n = {}, 1, #s
  while i <= n do
    while i <= n and s:sub(i, i):match("%s") do
      i = i + 1
    end
    if i > n then
      break
    end
    local start = i
    local j = i
    if s:sub(j, j) == "-" then
      j = j + 1
    end
    if s:sub(j, j) == "/" then
      -- /regex/: the closing slash is one followed by whitespace or the end.
      local k = j + 1
      local close
      while k <= n do
        local c = s:sub(k, k)
        if c == "\\" then
          k = k + 1
        elseif c == "/" and (k == n or s:sub(k + 1, k + 1):match("%s")) then
          close = k
          break
        end
        k = k + 1
      end
      i = (close or n) + 1
    else
      local depth = 0
      while j <= n do
        local c = s:sub(j, j)
        if c == "(" then
          depth = depth + 1
        elseif c == ")" and depth > 0 then
          depth = depth - 1
        elseif c:match("%s") and depth == 0 then
          break
        end
        j = j + 1
      end
      i = j
    end
    table.insert(out, s:sub(start, i - 1))
  end
  return out
end

---Sort rule arguments into additions and removals (`-X`).
---@param args string[]
---@return string[] add, string[] remove
function M.partition(args)
  local add, remove = {}, {}
  for _, a in ipairs(args) do
    if a:sub(1, 1) == "-" and #a > 1 then
      table.insert(remove, a:sub(2))
    else
      table.insert(add, a)
    end
  end
  return add, remove
end

return M
