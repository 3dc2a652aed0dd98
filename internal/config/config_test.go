package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vibing/internal/config"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		check   func(*config.Config) bool
		wantErr string
	}{
		{"empty gives defaults", "", func(c *config.Config) bool {
			return c.ApprovalTimeoutS == 60 && c.ResumeAsk == "deny" && c.DefaultDeny() && c.Permissions.Mode == "default"
		}, ""},
		{"yaml", "approval_timeout_s: 5\nresume_ask: prompt\ndefault_deny_rules: false\npolicies: {WebFetch: once}\n", func(c *config.Config) bool {
			return c.ApprovalTimeoutS == 5 && c.ResumeAsk == "prompt" && !c.DefaultDeny() && c.Policies["WebFetch"] == "once"
		}, ""},
		{"json", `{"presets": {"mine": {"mode": "plan", "allow": ["Read"]}}, "audit_path": "/tmp/a.sqlite"}`, func(c *config.Config) bool {
			p, ok := c.Preset("mine")
			return ok && p.Mode == "plan" && c.AuditDB() == "/tmp/a.sqlite"
		}, ""},
		{"editor-only keys are ignored", `{"keymaps": {"send": "<CR>"}, "chat_dir": ".vibing/chat"}`, func(c *config.Config) bool { return true }, ""},
		{"bad timeout", "approval_timeout_s: 0\n", nil, "approval_timeout_s must be a positive number"},
		{"bad resume_ask", "resume_ask: sometimes\n", nil, `resume_ask must be "deny" or "prompt"`},
		{"bad policy", "policies: {Bash: maybe}\n", nil, "policies.Bash must be trust, once or always"},
		{"bad preset mode", "presets: {x: {mode: yolo}}\n", nil, "presets.x.mode must be one of"},
		{"bad template mode", "permissions: {mode: yolo}\n", nil, "permissions.mode must be one of"},
		{"sandbox_env_allow", `{"sandbox_env_allow": ["MY_API_KEY", "AWS_*"]}`, func(c *config.Config) bool {
			return len(c.SandboxEnvAllow) == 2 && c.SandboxEnvAllow[1] == "AWS_*"
		}, ""},
		{"bad sandbox_env_allow", "sandbox_env_allow: [\"AWS_[\"]\n", nil, "sandbox_env_allow: \"AWS_[\" is not a name"},
		{"sandbox_hosts", `{"sandbox_hosts": ["docs.example.com", "*.example.org"]}`, func(c *config.Config) bool {
			return len(c.SandboxHosts) == 2 && c.SandboxHosts[1] == "*.example.org"
		}, ""},
		{"bad sandbox_hosts", "sandbox_hosts: [\"https://x.example/\"]\n", nil, "sandbox_hosts: \"https://x.example/\" is not a host name"},
		{"bad sandbox_hosts wildcard", "sandbox_hosts: [\"a.*.example\"]\n", nil, "sandbox_hosts: \"a.*.example\" is not a host name"},
		{"not yaml", "approval_timeout_s: [\n", nil, "invalid config"},
		{"wrong type", "approval_timeout_s: soon\n", nil, "invalid config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := config.Parse(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, config.ErrInvalid) {
					t.Fatalf("Parse(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if !tt.check(c) {
				t.Errorf("Parse(%q) = %+v", tt.in, c)
			}
		})
	}
}

func TestPresets(t *testing.T) {
	t.Parallel()
	c := config.DefaultConfig()
	if got := strings.Join(c.PresetNames(), ","); got != "locked,open,standard" {
		t.Errorf("PresetNames() = %s", got)
	}
	c.Presets["standard"] = config.Preset{Mode: "plan"}
	if p, _ := c.Preset("standard"); p.Mode != "plan" {
		t.Errorf("a user preset does not override the built-in one: %+v", p)
	}
	if _, ok := c.Preset("nope"); ok {
		t.Error("Preset(nope) found")
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	if c, err := config.Load(""); err != nil || c.ApprovalTimeoutS != 60 {
		t.Fatalf("Load(\"\") = %+v, %v", c, err)
	}
	dir := t.TempDir()
	if _, err := config.Load(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("Load of a missing file did not fail")
	}
	p := filepath.Join(dir, "c.json")
	if err := os.WriteFile(p, []byte(`{"resume_ask": "nope"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("Load(bad) error = %v, want it to name the file", err)
	}
}

// A config path that names a FIFO is refused at once (check and hook load
// it before deciding), naming the file.
func TestLoadFIFO(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "options.json")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := config.Load(p); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Load(FIFO) = %v, want an error naming the file", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load(FIFO) blocked for 5 s")
	}
}
