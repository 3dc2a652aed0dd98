local h = require("harness")
local describe, it, assert = h.describe, h.it, h.assert

-- The value sets the editor keeps its own copies of must be the Go side's:
-- each Lua list is compared, in order, with what the real host's `info`
-- reports from the one place Go defines it.
describe("the editor's value lists", function()
  local rpc = require("vibing.rpc")
  local config = require("vibing.config")
  local render = require("vibing.chat.render")

  h.after_each(function()
    rpc.stop()
  end)

  local cases = {
    { name = "permission modes (config.modes)", key = "modes", lua = config.modes },
    { name = "approval policies (config.policies)", key = "policies", lua = config.policies },
    { name = "resume_ask settings (config.resume_asks)", key = "resume_ask", lua = config.resume_asks },
    { name = "sandbox settings (config.sandboxes)", key = "sandbox", lua = config.sandboxes },
    { name = "approval answers (chat.render.decisions)", key = "answers", lua = render.decisions },
  }

  for _, c in ipairs(cases) do
    it(c.name .. " equal the host's info." .. c.key, function()
      rpc.stop()
      local info, err = rpc.info()
      assert.truthy(info, err)
      local want = info[c.key]
      assert.truthy(type(want) == "table" and #want > 0, ("info.%s = %s, want a list"):format(c.key, vim.inspect(want)))
      assert.equals(table.concat(want, ", "), table.concat(c.lua, ", "), ("Lua's list differs from info.%s"):format(c.key))
    end)
  end
end)
