---@mod vibing.permissions.grants Session grants a chat remembers (allow/deny for session answers).
---They live in the buffer (`b:vibing_session_grants`) and reach a new run as
---`--session-allow`/`--session-deny`; a new session forgets them.
local M = {}

---@class vibing.Grant
---@field decision "allow"|"deny"
---@field rule string

---The chat's grants, oldest first.
---@param bufnr integer
---@return vibing.Grant[]
function M.list(bufnr)
  local g = vim.b[bufnr].vibing_session_grants
  return type(g) == "table" and g or {}
end

---Remember a grant (once).
---@param bufnr integer
---@param decision "allow"|"deny"
---@param rule string
function M.add(bufnr, decision, rule)
  local g = M.list(bufnr)
  for _, x in ipairs(g) do
    if x.decision == decision and x.rule == rule then
      return
    end
  end
  table.insert(g, { decision = decision, rule = rule })
  vim.b[bufnr].vibing_session_grants = g
end

---Forget the chat's grants (a new session starts).
---@param bufnr integer
function M.clear(bufnr)
  vim.b[bufnr].vibing_session_grants = nil
end

---The command-line flags that carry the grants to a run.
---@param bufnr integer
---@return string[]
function M.args(bufnr)
  local out = {}
  for _, g in ipairs(M.list(bufnr)) do
    table.insert(out, g.decision == "deny" and "--session-deny" or "--session-allow")
    table.insert(out, g.rule)
  end
  return out
end

return M
