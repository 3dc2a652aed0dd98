package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestFullScreenUI starts Neovim with its terminal UI, as `make demo` does, on a
// pseudo-terminal (util-linux's script), loads the plugin and opens a chat. Neovim 0.10+
// starts its UI by re-executing v:progpath with --embed: a Neovim run through a loader
// (ld-linux … nvim) fails here with "unrecognized option '--embed'" and no UI.
func TestFullScreenUI(t *testing.T) {
	t.Parallel()
	bin := nvimBinary(t)
	script, err := exec.LookPath("script")
	if err != nil {
		t.Fatalf("util-linux's script is needed to give Neovim a terminal: %v", err)
	}
	tmp := t.TempDir()
	work := filepath.Join(tmp, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(tmp, "ui.json")
	probe := filepath.Join(tmp, "probe.lua")
	code := fmt.Sprintf(`
local ok, err = pcall(function()
  assert(require("vibing").setup({ bin = %q }), "setup failed")
  vim.cmd("VibingChat")
end)
local out = {
  uis = #vim.api.nvim_list_uis(),
  filetype = vim.bo.filetype,
  name = vim.api.nvim_buf_get_name(0),
  progpath = vim.v.progpath,
  err = ok and "" or tostring(err),
  errmsg = vim.v.errmsg,
}
vim.fn.writefile({ vim.fn.json_encode(out) }, %q)
vim.cmd("qa!")
`, agentBin, result)
	if err := os.WriteFile(probe, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	cmdline := strings.Join([]string{
		shellQuote(bin), "-u", shellQuote(filepath.Join(repoRoot, "tests", "minimal_init.lua")),
		"-c", shellQuote("luafile " + probe),
	}, " ")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-qec", cmdline, "/dev/null")
	cmd.Dir = work
	cmd.Stdin = nil // /dev/null: script gives nvim the pseudo-terminal
	env := append(os.Environ(), "TERM=xterm-256color", "COLUMNS=100", "LINES=30")
	for _, k := range []string{"CONFIG", "DATA", "STATE", "CACHE"} {
		env = append(env, fmt.Sprintf("XDG_%s_HOME=%s", k, filepath.Join(tmp, strings.ToLower(k))))
	}
	cmd.Env = env
	screen, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s with its terminal UI: %v\nterminal output:\n%q", bin, err, screen)
	}
	b, err := os.ReadFile(result)
	if err != nil {
		t.Fatalf("the UI never ran the probe (%v); terminal output:\n%q", err, screen)
	}
	var got struct {
		UIs      int    `json:"uis"`
		Filetype string `json:"filetype"`
		Name     string `json:"name"`
		Progpath string `json:"progpath"`
		Err      string `json:"err"`
		Errmsg   string `json:"errmsg"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("probe result %q: %v", b, err)
	}
	if got.Err != "" {
		t.Fatalf("opening a chat under the terminal UI: %s", got.Err)
	}
	if got.Errmsg != "" {
		t.Errorf("an error was shown while starting and opening the chat: %s", got.Errmsg)
	}
	if got.UIs != 1 {
		t.Errorf("%d UIs attached, want the terminal UI (1)", got.UIs)
	}
	if !strings.Contains(got.Name, filepath.Join(".vibing", "chat")) {
		t.Errorf("current buffer %q, want a chat under .vibing/chat", got.Name)
	}
	if got.Filetype == "" {
		t.Errorf("the chat buffer has no filetype")
	}
	if filepath.Base(got.Progpath) != "nvim" {
		t.Errorf("v:progpath is %q, want nvim itself (not a loader)", got.Progpath)
	}
}
