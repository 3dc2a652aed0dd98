local h = require("harness")
local describe, it, assert = h.describe, h.it, h.assert
local parse = require("vibing.slash.parse")

describe("slash.parse.command", function()
  local cases = {
    { "/allow Bash(npm:*)", "allow", "Bash(npm:*)" },
    { "  /deny   Bash(rm -rf)  ", "deny", "Bash(rm -rf)" },
    { "/help", "help", "" },
    { "/new-session", "new-session", "" },
    { "hello /allow", nil, "" },
  }
  for _, c in ipairs(cases) do
    it(("%q"):format(c[1]), function()
      local name, args = parse.command(c[1])
      assert.equals(c[2], name)
      assert.equals(c[3], args)
    end)
  end
end)

describe("slash.parse.rules", function()
  local cases = {
    { "", {} },
    { "Bash", { "Bash" } },
    { "Bash(npm run build)", { "Bash(npm run build)" } },
    { "Bash(npm run build)  Read(src/**/*.ts) -Bash", { "Bash(npm run build)", "Read(src/**/*.ts)", "-Bash" } },
    { "-Bash(git commit:*) WebFetch(github.com)", { "-Bash(git commit:*)", "WebFetch(github.com)" } },
    { "Bash(echo (a b)) Grep", { "Bash(echo (a b))", "Grep" } },
    { "/tool:Bash:git push origin (?!main).*/ Read", { "/tool:Bash:git push origin (?!main).*/", "Read" } },
    { "-/tool:Bash:rm .*/", { "-/tool:Bash:rm .*/" } },
    { "Bash(unclosed arg", { "Bash(unclosed arg" } },
  }
  for _, c in ipairs(cases) do
    it(("%q"):format(c[1]), function()
      assert.equals(c[2], parse.rules(c[1]))
    end)
  end
end)

describe("slash.parse.partition", function()
  it("sorts additions and removals", function()
    local add, remove = parse.partition({ "Bash", "-Read", "-", "Grep(x)" })
    assert.equals({ "Bash", "-", "Grep(x)" }, add)
    assert.equals({ "Read" }, remove)
  end)
end)
