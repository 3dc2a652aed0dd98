package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/defaults"
)

const cliChat = `---
vibing.nvim: true
permissions_mode: default
permissions_allow: [Read, "Bash(npm:*)", "Bash(git status:*)"]
permissions_ask: ["Bash(git push:*)", "WebFetch(github.com)"]
permissions_deny: ["Bash(rm -rf)", "Read(.env)"]
---
## User

hello
`

func writeChat(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, ".vibing", "chat", "chat.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckCommand(t *testing.T) {
	bin := sharedAgent(t)
	dir := t.TempDir()
	chat := writeChat(t, dir, cliChat)
	env := []string{"HOME=" + dir, "XDG_STATE_HOME=" + filepath.Join(dir, "state")}
	tests := []struct {
		name, tool, input string
		extra             []string
		decision, source  string
		rule              string
	}{
		{"allow prefix", "Bash", `{"command":"npm test && git status"}`, nil, "allow", "allow_list", "Bash(npm:*)"},
		{"deny in compound", "Bash", `{"command":"npm test; rm -rf build"}`, nil, "deny", "deny_list", "Bash(rm -rf)"},
		{"ask", "Bash", `{"command":"git push origin main"}`, nil, "ask", "ask_list", "Bash(git push:*)"},
		{"ask resumed", "Bash", `{"command":"git push origin main"}`, []string{"--resumed"}, "deny", "ask_list", "Bash(git push:*)"},
		{"default deny", "Bash", `{"command":"sudo ls"}`, nil, "deny", "deny_list", "default: " + defaults.DenySudo},
		{"guard", "Write", `{"file_path":".vibing/chat/chat.md","content":"x"}`, nil, "deny", "guard", ""},
		{"deny any depth", "Read", `{"file_path":"sub/dir/.env"}`, nil, "deny", "deny_list", "Read(.env)"},
		{"mode asks", "Write", `{"file_path":"a.txt","content":"x"}`, nil, "ask", "mode", ""},
		{"session allow", "Write", `{"file_path":"a.txt","content":"x"}`, []string{"--session-allow", "Write(a.txt)"}, "allow", "session", "Write(a.txt)"},
		{"session deny", "Bash", `{"command":"npm test"}`, []string{"--session-deny", "Bash(npm test:*)"}, "deny", "session", "Bash(npm test:*)"},
		{"url", "WebFetch", `{"url":"https://GitHub.com./x"}`, nil, "ask", "ask_list", "WebFetch(github.com)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"check", "--chat", chat, "--tool", tt.tool, "--input", tt.input}, tt.extra...)
			out, stderr, code := runAgent(t, bin, dir, env, args...)
			if code != 0 {
				t.Fatalf("check exit %d, stderr %s", code, stderr)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 1 {
				t.Fatalf("check printed %d lines, want exactly one JSON object:\n%s", len(lines), out)
			}
			var d map[string]string
			if err := json.Unmarshal([]byte(lines[0]), &d); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out)
			}
			for _, k := range []string{"decision", "reason", "rule", "source", "level", "action"} {
				if _, ok := d[k]; !ok {
					t.Errorf("output lacks %q: %s", k, out)
				}
			}
			if d["decision"] != tt.decision || d["source"] != tt.source || d["rule"] != tt.rule {
				t.Errorf("check %s %s = %s/%s/%q, want %s/%s/%q (reason: %s)", tt.tool, tt.input,
					d["decision"], d["source"], d["rule"], tt.decision, tt.source, tt.rule, d["reason"])
			}
			if !strings.HasPrefix(d["action"], "tool:"+tt.tool+":") {
				t.Errorf("action = %q", d["action"])
			}
		})
	}
}

func TestCheckUsageErrors(t *testing.T) {
	bin := sharedAgent(t)
	dir := t.TempDir()
	chat := writeChat(t, dir, cliChat)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no flags", []string{"check"}, 2, "missing --chat, --input, --tool"},
		{"bad json", []string{"check", "--chat", chat, "--tool", "Bash", "--input", "[1]"}, 2, "must be a JSON object"},
		{"unknown flag", []string{"check", "--nope"}, 2, "flag provided but not defined"},
		{"missing chat", []string{"check", "--chat", filepath.Join(dir, "none.md"), "--tool", "Bash", "--input", "{}"}, 1, "none.md"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"help", []string{"check", "--help"}, 0, "Examples:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, stderr, code := runAgent(t, bin, dir, nil, tt.args...)
			if code != tt.code {
				t.Errorf("exit = %d, want %d (stderr %s)", code, tt.code, stderr)
			}
			if !strings.Contains(out+stderr, tt.want) {
				t.Errorf("output lacks %q:\n%s%s", tt.want, out, stderr)
			}
		})
	}
}

func TestCheckMalformedChat(t *testing.T) {
	bin := sharedAgent(t)
	dir := t.TempDir()
	chat := writeChat(t, dir, "---\npermissions_allow: [Read\n---\nbody\n")
	_, stderr, code := runAgent(t, bin, dir, nil, "check", "--chat", chat, "--tool", "Read", "--input", `{"file_path":"a"}`)
	if code != 1 || !strings.Contains(stderr, "malformed") {
		t.Errorf("malformed chat: exit %d, stderr %q; want exit 1 naming the malformed frontmatter", code, stderr)
	}
}

func TestCheckUnknownPresetDeniesEverything(t *testing.T) {
	bin := sharedAgent(t)
	dir := t.TempDir()
	chat := writeChat(t, dir, "---\nvibing.nvim: true\npermissions_preset: nope\n---\n")
	out, stderr, code := runAgent(t, bin, dir, nil, "check", "--chat", chat, "--tool", "Read", "--input", `{"file_path":"a"}`)
	if code != 0 || !strings.Contains(out, `"decision":"deny"`) || !strings.Contains(out, `nknown preset \"nope\"`) {
		t.Errorf("unknown preset: exit %d out %s stderr %s; want a deny naming the preset", code, out, stderr)
	}
}

func TestValidateCommand(t *testing.T) {
	bin := sharedAgent(t)
	out, _, code := runAgent(t, bin, t.TempDir(), nil, "validate", "bash(npm:*)", "read(src/**/*.ts)", "/tool:Bash:git push origin (?!main).*/")
	if code != 0 {
		t.Fatalf("valid rules: exit %d\n%s", code, out)
	}
	for _, want := range []string{"ok: Bash(npm:*)", "ok: Read(src/**/*.ts)", "ok: /tool:Bash:git push origin (?!main).*/"} {
		if !strings.Contains(out, want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runAgent(t, bin, t.TempDir(), nil, "validate", "Read", "Skill(x)", "Bsh", "Bash(")
	if code != 1 {
		t.Errorf("invalid rules: exit %d, want 1", code)
	}
	for _, want := range []string{"ok: Read", `"Skill(x)"`, "example: Skill", `"Bsh"`, "Bash?", `"Bash("`} {
		if !strings.Contains(out, want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
	if _, _, code := runAgent(t, bin, t.TempDir(), nil, "validate"); code != 2 {
		t.Errorf("validate without rules: exit %d, want 2", code)
	}
}

func TestExplainCommand(t *testing.T) {
	bin := sharedAgent(t)
	dir := t.TempDir()
	chat := writeChat(t, dir, cliChat)
	out, stderr, code := runAgent(t, bin, dir, nil, "explain", "--chat", chat)
	if code != 0 {
		t.Fatalf("explain: exit %d, stderr %s", code, stderr)
	}
	for _, want := range []string{"Mode: default", "Bash (mutating)", "runs: Bash(npm:*)", "asks: Bash(git push:*)", "refused: Bash(rm -rf)", "Read (read_only): runs without asking (allow: Read)", "sudo, doas, pkexec, su"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runAgent(t, bin, dir, nil, "explain", "--chat", chat, "--json")
	var x struct {
		Mode  string `json:"mode"`
		Tools []struct {
			Tool, Default string
			Deny          []string
		} `json:"tools"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &x) != nil || x.Mode != "default" {
		t.Fatalf("explain --json: exit %d, output %s", code, out)
	}
	found := false
	for _, tr := range x.Tools {
		if tr.Tool == "Bash" {
			found = true
			if tr.Default != "ask" || len(tr.Deny) != 1 {
				t.Errorf("Bash report = %+v", tr)
			}
		}
	}
	if !found {
		t.Error("explain --json has no Bash entry")
	}

	bad := writeChat(t, t.TempDir(), "---\npermissions_deny: [\"Bash(\"]\n---\n")
	out, _, code = runAgent(t, bin, dir, nil, "explain", "--chat", bad)
	if code != 1 || !strings.Contains(out, "ERROR") {
		t.Errorf("explain with an invalid rule: exit %d, want 1 and an ERROR line:\n%s", code, out)
	}
}

// check --preview prints the decision and the approval preview the editor shows.
func TestCheckPreview(t *testing.T) {
	bin := sharedAgent(t)
	dir := t.TempDir()
	chat := writeChat(t, dir, cliChat)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + dir, "XDG_STATE_HOME=" + filepath.Join(dir, "state")}
	out, stderr, code := runAgent(t, bin, dir, env, "check", "--chat", chat, "--tool", "Edit", "--preview",
		"--input", `{"file_path":"a.txt","old_string":"two","new_string":"2"}`)
	if code != 0 {
		t.Fatalf("check exit %d, stderr %s", code, stderr)
	}
	var got struct {
		Decision string `json:"decision"`
		Preview  struct {
			Kind, Path, Unified string
			Added, Removed      int
		} `json:"preview"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	want := "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
	if got.Decision == "" || got.Preview.Kind != "diff" || got.Preview.Path != "a.txt" || got.Preview.Unified != want ||
		got.Preview.Added != 1 || got.Preview.Removed != 1 {
		t.Errorf("check --preview = %s\nwant a decision and the diff %q", out, want)
	}
}
