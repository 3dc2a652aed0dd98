package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The hook's row goes to the spool, `audit` imports it into the database,
// and a spool that cannot be written refuses the call.
func TestHookAuditSpool(t *testing.T) {
	bin := buildAgent(t)
	dir := t.TempDir()
	input := `{"session_id":"sess-9","cwd":"` + dir + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"sudo ls"}}`
	tests := []struct {
		name      string
		auditPath string
		want      string
	}{
		{"spool written", filepath.Join(dir, "state", "audit.sqlite"), "built-in rule"},
		{"spool not writable", filepath.Join(dir, "blocker", "audit.sqlite"), "could not write the audit row"},
	}
	os.WriteFile(filepath.Join(dir, "blocker"), nil, 0o600) // a file where the folder should be
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "options.json")
			os.WriteFile(cfg, []byte(`{"audit_path":"`+tt.auditPath+`"}`), 0o644)
			cmd := runAgentIn(t, bin, dir, input, "hook", "--config", cfg)
			if !strings.Contains(cmd, `"permissionDecision":"deny"`) || !strings.Contains(cmd, tt.want) {
				t.Fatalf("hook answered %s, want a deny naming %q", cmd, tt.want)
			}
			if tt.name != "spool written" {
				return
			}
			out, errOut, code := runAgent(t, bin, dir, nil, "audit", "--config", cfg, "--json")
			if code != 0 || !strings.Contains(out, `"session_id":"sess-9"`) || !strings.Contains(out, `"via":"hook"`) || !strings.Contains(out, `"decision":"deny"`) {
				t.Errorf("audit = exit %d %s %s, want the hook's deny row", code, out, errOut)
			}
			if m, _ := filepath.Glob(tt.auditPath + ".hook-spool*"); len(m) != 0 {
				t.Errorf("spool files left after the import: %v", m)
			}
		})
	}
}

func runAgentIn(t *testing.T, bin, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("vibing-agent %v: %v", args, err)
	}
	return string(out)
}

// The hook reads every policy layer: a deny in ~/.claude/settings.json and a
// trusted project allow decide in a terminal session as in a chat, and an
// untrusted project allow leaves the call to the mode ({}).
func TestHookReadsLayers(t *testing.T) {
	bin := sharedAgent(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	proj := filepath.Join(dir, "proj")
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), `{"permissions":{"deny":["Bash(touch:*)"]}}`)
	writeFile(t, filepath.Join(proj, ".vibing", "policy.yaml"), "allow: [\"Bash(npm test)\"]\n")
	cfg := filepath.Join(dir, "options.json")
	writeFile(t, cfg, `{"audit_path":"`+filepath.Join(dir, "audit.sqlite")+`"}`)
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "CLAUDE_PROJECT_DIR=" + proj}
	hookOut := func(cmd string) string {
		c := exec.Command(bin, "hook", "--config", cfg)
		c.Dir = proj
		c.Env = append(os.Environ(), env...)
		c.Stdin = strings.NewReader(`{"session_id":"s","cwd":"` + proj + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + cmd + `"}}`)
		out, err := c.Output()
		if err != nil {
			t.Fatalf("hook: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	if out := hookOut("touch x"); !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "Bash(touch:*)") {
		t.Errorf("a ~/.claude/settings.json deny: hook answered %s", out)
	}
	if out := hookOut("npm test"); out != "{}" {
		t.Errorf("an untrusted project allow: hook answered %s, want {}", out)
	}
	if _, errOut, code := runAgent(t, bin, proj, env, "trust"); code != exitOK {
		t.Fatalf("trust: %s", errOut)
	}
	if out := hookOut("npm test"); !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Errorf("a trusted project allow: hook answered %s", out)
	}
}

// A hook killed mid-write leaves the spool without its last newline: the
// next hook's row must still reach the database, and `audit` names the torn
// line instead of dropping it unseen.
func TestHookRowAfterTornSpoolLine(t *testing.T) {
	bin := madeAgent(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "state", "audit.sqlite")
	cfg := filepath.Join(dir, "options.json")
	writeFile(t, cfg, `{"audit_path":"`+db+`"}`)
	hookCall := func(session string) {
		in := `{"session_id":"` + session + `","cwd":"` + dir + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"sudo ls"}}`
		if out := runAgentIn(t, bin, dir, in, "hook", "--config", cfg); !strings.Contains(out, `"permissionDecision":"deny"`) {
			t.Fatalf("hook answered %s, want a deny", out)
		}
	}
	hookCall("sess-torn")
	spool := db + ".hook-spool"
	fi, err := os.Stat(spool)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(spool, fi.Size()-10); err != nil { // the writer died 10 bytes short
		t.Fatal(err)
	}
	hookCall("sess-after")
	out, errOut, code := runAgent(t, bin, dir, nil, "audit", "--config", cfg, "--json")
	if code != 0 || !strings.Contains(out, `"session_id":"sess-after"`) {
		t.Errorf("audit = exit %d, rows %s; want the row written after the torn line", code, out)
	}
	if !strings.Contains(errOut, "torn") || !strings.Contains(errOut, "lines [1]") {
		t.Errorf("audit said %q on stderr, want the torn line 1 named", errOut)
	}
}

// `hook status` runs the installed hook on `rm -rf /` as its self-test:
// that decision is not a call of anyone's, so it stays out of the audit.
func TestHookStatusSelfTestLeavesNoAuditRow(t *testing.T) {
	bin := madeAgent(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	db := filepath.Join(dir, "state", "audit.sqlite")
	cfg := filepath.Join(dir, "options.json")
	writeFile(t, cfg, `{"audit_path":"`+db+`"}`)
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}
	if out, errOut, code := runAgent(t, bin, dir, env, "hook", "install", "--config", cfg); code != exitOK {
		t.Fatalf("hook install = exit %d %s %s", code, out, errOut)
	}
	out, errOut, code := runAgent(t, bin, dir, env, "hook", "status", "--project", dir)
	if code != exitOK || !strings.Contains(out, "self-test of") || !strings.Contains(out, "passed") {
		t.Fatalf("hook status = exit %d\n%s%s\nwant a passed self-test", code, out, errOut)
	}
	if m, _ := filepath.Glob(db + "*"); len(m) != 0 {
		t.Errorf("the self-test left audit files %v, want none", m)
	}
	rows, errOut, code := runAgent(t, bin, dir, env, "audit", "--config", cfg, "--json")
	if code != exitOK || strings.TrimSpace(rows) != "" {
		t.Errorf("audit after hook status = exit %d %q %s, want no rows", code, rows, errOut)
	}
	// the hook itself still records a real call
	in := `{"session_id":"sess-real","cwd":"` + dir + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"status"}`
	runAgentIn(t, bin, dir, in, "hook", "--config", cfg)
	rows, _, _ = runAgent(t, bin, dir, env, "audit", "--config", cfg, "--json")
	if !strings.Contains(rows, `"session_id":"sess-real"`) || !strings.Contains(rows, `"decision":"deny"`) {
		t.Errorf("audit after a real call = %q, want its deny row", rows)
	}
}

// The hook's engine is never a resumed session (the CLI shows its own
// prompts), also for a --chat that holds a session_id or a fork_of: an ask
// rule asks, and the row says so (resumed false) with the project as its
// working directory, for audit --what-if.
func TestHookRowIsNeverResumed(t *testing.T) {
	bin := sharedAgent(t)
	tests := []struct{ name, front string }{
		{"session_id", "session_id: abc\n"},
		{"fork_of", "fork_of: abc\n"},
		{"fresh", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			proj := filepath.Join(dir, "proj")
			chat := writeChat(t, proj, "---\nvibing.nvim: true\n"+tt.front+"permissions_ask: [\"Bash(npm install)\"]\n---\n")
			cfg := filepath.Join(dir, "options.json")
			writeFile(t, cfg, `{"audit_path":"`+filepath.Join(dir, "audit.sqlite")+`"}`)
			env := []string{"HOME=" + dir, "XDG_STATE_HOME=" + filepath.Join(dir, "state"), "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "CLAUDE_PROJECT_DIR=" + proj}
			in := `{"session_id":"s","cwd":"` + proj + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm install"}}`
			c := exec.Command(bin, "hook", "--config", cfg, "--chat", chat)
			c.Dir, c.Env, c.Stdin = dir, append(os.Environ(), env...), strings.NewReader(in)
			out, err := c.Output()
			if err != nil {
				t.Fatalf("hook: %v", err)
			}
			if !strings.Contains(string(out), `"permissionDecision":"ask"`) {
				t.Errorf("hook answered %s, want ask", out)
			}
			rows, errOut, code := runAgent(t, bin, dir, env, "audit", "--config", cfg, "--json")
			if code != exitOK || !strings.Contains(rows, `"decision":"ask_cli"`) || !strings.Contains(rows, `"resumed":false`) || !strings.Contains(rows, `"cwd":"`+proj+`"`) {
				t.Errorf("audit = exit %d %s %s, want an ask_cli row, not resumed, in %s", code, rows, errOut, proj)
			}
		})
	}
}
