package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"vibing/internal/audit"
)

// runAgent runs the binary and returns stdout, stderr and the exit code.
func runAgent(t *testing.T, bin, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

func TestAuditCommand(t *testing.T) {
	bin := buildAgent(t)
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "state", "audit.sqlite")
	cfg := filepath.Join(dir, "vibing.json")
	if err := os.WriteFile(cfg, []byte(`{"audit_path": "`+dbPath+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	chatA := filepath.Join(dir, "a.md")
	now := time.Now()
	rows := []audit.Entry{
		{Time: now.Add(-72 * time.Hour), Chat: chatA, Tool: "Read", Action: "tool:Read:/p/old.go", Decision: "allow", Source: "allow_list", Rule: "Read"},
		{Time: now.Add(-90 * time.Minute), Chat: chatA, Tool: "Bash", Action: "tool:Bash:rm -rf build", Decision: "deny", Source: "deny_list", Rule: "Bash(rm -rf)", Reason: "denied by Bash(rm -rf)"},
		{Time: now.Add(-10 * time.Minute), Chat: filepath.Join(dir, "b.md"), Tool: "WebFetch", Action: "tool:WebFetch:https://github.com/x", Decision: "ask_approved", Source: "ask_list", Rule: "WebFetch"},
		{Time: now.Add(-time.Minute), Chat: chatA, SessionID: "s1", Tool: "Bash", Action: "tool:Bash:npm install", Decision: "ask_timeout", Source: "mode"},
	}
	db, err := audit.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rows {
		if err := db.Record(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	conf := "--config=" + cfg

	jsonActions := func(t *testing.T, out string) []string {
		t.Helper()
		actions := []string{}
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var e audit.Entry
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("line %q is not a JSON object: %v", sc.Text(), err)
			}
			actions = append(actions, e.Action)
		}
		return actions
	}

	tests := []struct {
		name string
		args []string
		want []string // actions, newest first
	}{
		{"all", []string{"--json"}, []string{"tool:Bash:npm install", "tool:WebFetch:https://github.com/x", "tool:Bash:rm -rf build", "tool:Read:/p/old.go"}},
		{"chat relative to cwd", []string{"--json", "--chat", "a.md"}, []string{"tool:Bash:npm install", "tool:Bash:rm -rf build", "tool:Read:/p/old.go"}},
		{"since minutes", []string{"--json", "--since", "30m"}, []string{"tool:Bash:npm install", "tool:WebFetch:https://github.com/x"}},
		{"since hours", []string{"--json", "--since=2h"}, []string{"tool:Bash:npm install", "tool:WebFetch:https://github.com/x", "tool:Bash:rm -rf build"}},
		{"since days", []string{"--json", "--since", "2d", "--chat", chatA}, []string{"tool:Bash:npm install", "tool:Bash:rm -rf build"}},
		{"since 4d", []string{"--json", "--since", "4d"}, []string{"tool:Bash:npm install", "tool:WebFetch:https://github.com/x", "tool:Bash:rm -rf build", "tool:Read:/p/old.go"}},
		{"limit", []string{"--json", "--limit", "1"}, []string{"tool:Bash:npm install"}},
		{"no match", []string{"--json", "--chat", "nope.md"}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runAgent(t, bin, dir, nil, append([]string{"audit", conf}, tc.args...)...)
			if code != 0 {
				t.Fatalf("audit %v exit %d, stderr %q", tc.args, code, stderr)
			}
			if got := jsonActions(t, out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("audit %v = %q, want %q", tc.args, got, tc.want)
			}
		})
	}

	t.Run("json fields", func(t *testing.T) {
		out, _, _ := runAgent(t, bin, dir, nil, "audit", conf, "--json", "--limit", "1")
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("output %q: %v", out, err)
		}
		for _, k := range []string{"time", "chat", "session_id", "tool", "action", "decision", "rule", "source", "reason"} {
			if _, ok := m[k]; !ok {
				t.Errorf("JSON row %q has no key %q", out, k)
			}
		}
		if m["chat"] != chatA || m["decision"] != "ask_timeout" || m["session_id"] != "s1" {
			t.Errorf("JSON row = %v", m)
		}
	})

	t.Run("table", func(t *testing.T) {
		out, stderr, code := runAgent(t, bin, dir, nil, "audit", conf, "--since", "2h")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[0], "TIME") {
			t.Fatalf("table = %q, want a header and 3 rows", out)
		}
		for i, want := range []string{"ask_timeout", "ask_approved", "deny"} {
			if !strings.Contains(lines[i+1], want) {
				t.Errorf("row %d = %q, want decision %s", i+1, lines[i+1], want)
			}
		}
		if !strings.Contains(lines[3], "Bash(rm -rf)") || !strings.Contains(lines[3], "deny_list") || !strings.Contains(lines[3], chatA) {
			t.Errorf("deny row %q lacks its rule, source or chat", lines[3])
		}
	})

	t.Run("usage errors", func(t *testing.T) {
		for _, args := range [][]string{
			{"--since", "yesterday"}, {"--since", "-1h"}, {"--since", "0s"}, {"--since", "xd"},
			{"--limit", "-1"}, {"--limit", "many"}, {"--bogus"}, {"extra-arg"},
		} {
			_, stderr, code := runAgent(t, bin, dir, nil, append([]string{"audit", conf}, args...)...)
			if code != 2 {
				t.Errorf("audit %v exit %d, want 2 (stderr %q)", args, code, stderr)
			}
			if stderr == "" {
				t.Errorf("audit %v printed no error", args)
			}
		}
	})

	t.Run("help", func(t *testing.T) {
		_, stderr, code := runAgent(t, bin, dir, nil, "audit", "--help")
		if code != 0 {
			t.Errorf("audit --help exit %d, want 0", code)
		}
		for _, want := range []string{"Examples:", "JSON Lines", "--since", "2d"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("audit --help does not mention %q:\n%s", want, stderr)
			}
		}
	})

	t.Run("default path from XDG_STATE_HOME, missing database", func(t *testing.T) {
		state := filepath.Join(dir, "xdg")
		out, stderr, code := runAgent(t, bin, dir, []string{"XDG_STATE_HOME=" + state}, "audit")
		if code != 0 || !strings.Contains(out, filepath.Join(state, "vibing", "audit.sqlite")) {
			t.Errorf("audit without a database: exit %d, out %q, err %q", code, out, stderr)
		}
		if _, err := os.Stat(filepath.Join(state, "vibing")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("listing created the state folder: %v", err)
		}
	})

	t.Run("unusable database", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.sqlite")
		os.WriteFile(bad, bytes.Repeat([]byte("garbage!"), 512), 0o644)
		badCfg := filepath.Join(dir, "bad.json")
		os.WriteFile(badCfg, []byte(`{"audit_path": "`+bad+`"}`), 0o644)
		_, stderr, code := runAgent(t, bin, dir, nil, "audit", "--config", badCfg)
		if code != 1 || !strings.Contains(stderr, bad) {
			t.Errorf("audit on a broken database: exit %d, stderr %q; want 1 naming the file", code, stderr)
		}
	})
}

func TestAuditParseSince(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1h", time.Hour, true},
		{"30m", 30 * time.Minute, true},
		{"2d", 48 * time.Hour, true},
		{"1d12h", 36 * time.Hour, true},
		{"0.5d", 12 * time.Hour, true},
		{"90s", 90 * time.Second, true},
		{"", 0, false},
		{"d", 0, false},
		{"2", 0, false},
		{"-1h", 0, false},
		{"-2d", 0, false},
		{"0d", 0, false},
		{"1dd", 0, false},
		{"1h2d", 0, false},
	}
	for _, tc := range tests {
		got, err := parseSince(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSince(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
