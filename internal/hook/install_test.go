package hook_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/hook"
)

const otherHooks = `{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/lint-bash"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "permissions": {"deny": ["Read(.env)"]}
}
`

func TestInstall(t *testing.T) {
	entry := hook.NewEntry("/opt/vibing/bin/vibing-agent", "--config", "/home/u/.config/vibing.yaml")
	tests := []struct {
		name    string
		initial *string // nil: no file
	}{
		{"no file", nil},
		{"empty file", ptr("")},
		{"other keys and hooks", ptr(otherHooks)},
		{"a stale vibing entry", ptr(`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/old/vibing-agent","args":["hook"]}]}]},"z":1}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".claude", "settings.json")
			if tt.initial != nil {
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, []byte(*tt.initial), 0o600)
			}
			res, err := hook.Install(path, entry)
			if err != nil || !res.Changed {
				t.Fatalf("Install = %+v, %v; want a change", res, err)
			}
			if (tt.initial != nil) != (res.Backup != "") {
				t.Errorf("backup = %q, want one exactly when a file existed", res.Backup)
			}
			if res.Backup != "" {
				if b, _ := os.ReadFile(res.Backup); string(b) != *tt.initial {
					t.Errorf("backup holds %q, want the file as it was", b)
				}
			}
			data, _ := os.ReadFile(path)
			s, err := hook.ReadSettings(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range hook.Events {
				if got := s.Ours(ev); len(got) != 1 || got[0].Command != entry.Command || got[0].OnFailure != "block" || got[0].Timeout != 10 ||
					strings.Join(got[0].Args, " ") != "hook --config /home/u/.config/vibing.yaml" {
					t.Errorf("%s entries = %+v, want exactly the new entry\n%s", ev, got, data)
				}
			}
			if strings.Contains(string(data), "/old/vibing-agent") {
				t.Errorf("the stale entry is still there:\n%s", data)
			}
			if tt.initial != nil && *tt.initial == otherHooks {
				for _, keep := range []string{`"model": "opus"`, "/usr/local/bin/lint-bash", "notify-send done", `"Read(.env)"`} {
					if !strings.Contains(string(data), keep) {
						t.Errorf("lost %s:\n%s", keep, data)
					}
				}
				if strings.Index(string(data), `"model"`) > strings.Index(string(data), `"hooks"`) ||
					strings.Index(string(data), `"hooks"`) > strings.Index(string(data), `"permissions"`) {
					t.Errorf("key order changed:\n%s", data)
				}
			}
			if fi, _ := os.Stat(path); tt.initial != nil && fi.Mode().Perm() != 0o600 {
				t.Errorf("mode = %v, want the file's own 0600", fi.Mode().Perm())
			}
			// idempotent
			if res, err := hook.Install(path, entry); err != nil || res.Changed {
				t.Errorf("second Install = %+v, %v; want no change", res, err)
			}
			// uninstall leaves the rest as it was
			if res, err := hook.Uninstall(path); err != nil || !res.Changed {
				t.Fatalf("Uninstall = %+v, %v", res, err)
			}
			s, _ = hook.ReadSettings(path)
			for _, ev := range hook.Events {
				if got := s.Ours(ev); len(got) != 0 {
					t.Errorf("after Uninstall %s entries = %+v", ev, got)
				}
			}
			data, _ = os.ReadFile(path)
			if tt.initial != nil && *tt.initial == otherHooks && !sameJSONText(t, data, otherHooks) {
				t.Errorf("after Uninstall the file is\n%s\nwant it as it was before\n%s", data, otherHooks)
			}
			if res, err := hook.Uninstall(path); err != nil || res.Changed {
				t.Errorf("second Uninstall = %+v, %v; want no change", res, err)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func sameJSONText(t *testing.T, a []byte, b string) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

func TestInstallRefusesInvalidJSON(t *testing.T) {
	for _, bad := range []string{"{\n  \"a\": 1,\n  \"b\": \n}", "[1,2]", "{\"hooks\": []}", "{\"hooks\": {\"PreToolUse\": {}}}", "{} {}"} {
		path := filepath.Join(t.TempDir(), "settings.json")
		os.WriteFile(path, []byte(bad), 0o644)
		_, err := hook.Install(path, hook.NewEntry("/x/vibing-agent"))
		if !errors.Is(err, hook.ErrInvalidSettings) || !strings.Contains(err.Error(), path) {
			t.Errorf("Install(%q) error = %v, want ErrInvalidSettings naming the file", bad, err)
		}
		if data, _ := os.ReadFile(path); string(data) != bad {
			t.Errorf("Install changed an invalid file to %q", data)
		}
		if m, _ := filepath.Glob(path + "*"); len(m) != 1 {
			t.Errorf("files left beside it: %v", m)
		}
	}
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte("{\n  \"a\": 1,\n  \"b\": \n}"), 0o644)
	if _, err := hook.Install(path, hook.NewEntry("/x/vibing-agent")); err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("error %v does not name line 4", err)
	}
}

func TestManagedJSON(t *testing.T) {
	var m struct {
		Hooks map[string][]struct {
			Matcher *string      `json:"matcher"`
			Hooks   []hook.Entry `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(hook.ManagedJSON(hook.NewEntry("/usr/bin/vibing-agent")), &m); err != nil {
		t.Fatal(err)
	}
	pre := m.Hooks["PreToolUse"]
	if len(pre) != 1 || pre[0].Matcher == nil || *pre[0].Matcher != "*" || pre[0].Hooks[0].Command != "/usr/bin/vibing-agent" || pre[0].Hooks[0].OnFailure != "block" {
		t.Errorf("managed PreToolUse = %+v", pre)
	}
	if ups := m.Hooks["UserPromptSubmit"]; len(ups) != 1 || len(ups[0].Hooks) != 1 {
		t.Errorf("managed UserPromptSubmit = %+v", ups)
	}
}

func TestStatus(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "vibing-agent")
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	good := func(command string, args []string, stdin []byte) ([]byte, error) {
		if strings.Contains(string(stdin), "UserPromptSubmit") {
			return []byte("{}\n"), nil
		}
		return []byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"x"}}`), nil
	}
	broken := func(string, []string, []byte) ([]byte, error) { return []byte("{}"), nil }
	tests := []struct {
		name    string
		setup   func(p hook.Paths)
		run     hook.Runner
		ok      bool
		problem string
	}{
		{"not installed", func(hook.Paths) {}, good, false, "no vibing-agent hook entry"},
		{"installed and working", func(p hook.Paths) { install(t, p, hook.ScopeUser, bin) }, good, true, ""},
		{"self-test fails", func(p hook.Paths) { install(t, p, hook.ScopeUser, bin) }, broken, false, "want a deny"},
		{"stale binary path", func(p hook.Paths) { install(t, p, hook.ScopeUser, bin+"-gone") }, good, false, "does not exist"},
		{"disableAllHooks in the repository", func(p hook.Paths) {
			install(t, p, hook.ScopeUser, bin)
			write(t, filepath.Join(p.Project, ".claude", "settings.local.json"), `{"disableAllHooks": true}`)
		}, good, false, "disableAllHooks"},
		{"allowManagedHooksOnly", func(p hook.Paths) {
			install(t, p, hook.ScopeUser, bin)
			write(t, filepath.Join(p.Managed, "managed-settings.json"), `{"allowManagedHooksOnly": true}`)
		}, good, false, "allowManagedHooksOnly"},
		{"managed entry under allowManagedHooksOnly", func(p hook.Paths) {
			write(t, filepath.Join(p.Managed, "managed-settings.json"), `{"allowManagedHooksOnly": true}`)
			write(t, filepath.Join(p.Managed, "managed-settings.d", "vibing.json"), string(hook.ManagedJSON(hook.NewEntry(bin))))
		}, good, true, ""},
		{"invalid project settings", func(p hook.Paths) {
			install(t, p, hook.ScopeUser, bin)
			write(t, filepath.Join(p.Project, ".claude", "settings.json"), `{"a":`)
		}, good, false, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			p := hook.Paths{Home: filepath.Join(root, "home"), Project: filepath.Join(root, "proj"), Managed: filepath.Join(root, "managed")}
			tt.setup(p)
			rep := hook.Status(p, bin, tt.run)
			if rep.OK() != tt.ok || !strings.Contains(rep.Text(), tt.problem) {
				t.Errorf("Status OK = %v, want %v naming %q:\n%s", rep.OK(), tt.ok, tt.problem, rep.Text())
			}
			// a working hook says what a plain claude session still lacks
			if rep.OK() && !strings.Contains(rep.Text(), "runs without vibing's sandbox") {
				t.Errorf("status does not say that plain claude sessions have no sandbox:\n%s", rep.Text())
			}
		})
	}
}

func install(t *testing.T, p hook.Paths, scope, bin string) {
	t.Helper()
	path, _ := p.File(scope)
	if _, err := hook.Install(path, hook.NewEntry(bin)); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Installed finds the entries of every scope, and an entry names the files
// its command reads rules from.
func TestInstalledFiles(t *testing.T) {
	p := hook.Paths{Home: t.TempDir(), Project: t.TempDir(), Managed: t.TempDir()}
	user, _ := p.File(hook.ScopeUser)
	local, _ := p.File(hook.ScopeLocal)
	if _, err := hook.Install(user, hook.NewEntry("/bin/vibing-agent", "--config", "/etc/v.yaml", "--chat", "/r/rules.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := hook.Install(local, hook.NewEntry("/bin/vibing-agent", "--chat=/r/local.md")); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range hook.Installed(p) {
		if f.Event == hook.EventPreToolUse {
			files = append(files, f.Scope+":"+strings.Join(f.Entry.Files(), ","))
		}
	}
	if got, want := strings.Join(files, " "), "user:/etc/v.yaml,/r/rules.md local:/r/local.md"; got != want {
		t.Errorf("Installed files = %q, want %q", got, want)
	}
}
