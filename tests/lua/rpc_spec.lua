local h = require("harness")
local helpers = require("helpers")
local describe, it, assert = h.describe, h.it, h.assert

-- A stand-in for vibing-agent: `version` answers like the real one, `rpc`
-- runs body (a shell snippet).
local function fake_host(body)
  local path = vim.fn.tempname() .. "-agent"
  vim.fn.writefile({
    "#!/bin/sh",
    'if [ "$1" = version ]; then echo "vibing-agent ' .. require("vibing.version") .. '"; exit 0; fi',
    body,
  }, path)
  vim.fn.setfperm(path, "rwxr-xr-x")
  return path
end

describe("rpc host failures", function()
  local rpc = require("vibing.rpc")

  h.after_each(function()
    rpc.stop()
  end)

  it("a host that never answers is stopped after rpc_timeout_s", function()
    require("vibing").setup({ bin = fake_host("exec sleep 60"), rpc_timeout_s = 1 })
    local t0 = vim.loop.hrtime()
    local res, err = rpc.request("info")
    local took = (vim.loop.hrtime() - t0) / 1e9
    assert.equals(nil, res)
    assert.truthy(err and err:find("did not answer info within 1 s", 1, true), err)
    assert.truthy(took < 3, ("the request took %.1f s"):format(took))
  end)

  it("a host that dies at start-up is reported with its stderr", function()
    require("vibing").setup({ bin = fake_host('echo "config: permission denied" >&2; exit 3') })
    local res, err = rpc.request("info")
    assert.equals(nil, res)
    assert.truthy(err and err:find("exited (code 3)", 1, true), err)
    assert.truthy(err and err:find("config: permission denied", 1, true), err)
  end)
end)
