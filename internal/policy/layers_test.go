package policy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/policy"
	"vibing/internal/session"
)

// world is a private machine: a project, a home and managed folders.
type world struct {
	t      *testing.T
	root   string // the project
	places policy.Places
}

func newWorld(t *testing.T) *world {
	t.Helper()
	return newWorldIn(t, t.TempDir())
}

// newWorldIn makes the world in the folder tmp.
func newWorldIn(t *testing.T, tmp string) *world {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(tmp)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, root: filepath.Join(tmp, "proj"), places: policy.Places{
		Managed:       filepath.Join(tmp, "etc", "vibing"),
		ClaudeManaged: filepath.Join(tmp, "etc", "claude-code"),
		Home:          filepath.Join(tmp, "home"),
		UserConfig:    filepath.Join(tmp, "home", ".config", "vibing"),
		TrustStore:    filepath.Join(tmp, "home", ".local", "state", "vibing", "trust.json"),
		Binary:        filepath.Join(tmp, "bin", "vibing-agent"),
	}}
	for _, d := range []string{"src", "sub", "secrets", ".vibing/chat"} {
		w.mkdir(filepath.Join(w.root, d))
	}
	w.mkdir(w.places.Home)
	return w
}

func (w *world) mkdir(d string) {
	if err := os.MkdirAll(d, 0o755); err != nil {
		w.t.Fatal(err)
	}
}

// write puts a file at a path (see at).
func (w *world) write(p, content string) string {
	p = w.at(p)
	w.mkdir(filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// at is where a path of the world is: "~/" is the home, "/etc/vibing/" and
// "/etc/claude-code/" the managed folders, anything else the project.
func (w *world) at(p string) string {
	switch {
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(w.places.Home, p[2:])
	case strings.HasPrefix(p, "/etc/vibing/"):
		p = filepath.Join(w.places.Managed, strings.TrimPrefix(p, "/etc/vibing/"))
	case strings.HasPrefix(p, "/etc/claude-code/"):
		p = filepath.Join(w.places.ClaudeManaged, strings.TrimPrefix(p, "/etc/claude-code/"))
	default:
		p = filepath.Join(w.root, p)
	}
	return p
}

func (w *world) open(frontmatterText string, cfg *config.Config) *policy.Chat {
	w.t.Helper()
	chat := w.write(".vibing/chat/c.md", "---\nvibing.nvim: true\n"+frontmatterText+"---\n## User\n")
	ch, err := policy.Open(policy.Request{Config: cfg, ChatFile: chat, Dir: w.root, Places: w.places, Options: session.Options{SessionAllow: nil}})
	if err != nil {
		w.t.Fatal(err)
	}
	return ch
}

func (w *world) trust(p string) {
	w.t.Helper()
	tr, err := policy.LoadTrust(w.places.TrustStore)
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := tr.Add(filepath.Join(w.root, p)); err != nil {
		w.t.Fatal(err)
	}
}

type call struct {
	tool   string
	input  map[string]any
	want   session.Verdict // allow | ask | deny
	source string          // "" = not checked
}

func bash(cmd string, want session.Verdict, source string) call {
	return call{tool: "Bash", input: map[string]any{"command": cmd}, want: want, source: source}
}

func file(tool, path string, want session.Verdict, source string) call {
	return call{tool: tool, input: map[string]any{"file_path": path}, want: want, source: source}
}

func TestLayers(t *testing.T) {
	t.Parallel()
	type tc struct {
		name  string
		files map[string]string
		trust []string
		chat  string
		calls []call
		err   string // part of LoadErr ("" = none)
	}
	tests := []tc{
		{name: "a Claude user deny beats a chat allow (the CLI would refuse it anyway)",
			files: map[string]string{"~/.claude/settings.json": `{"permissions":{"deny":["Bash(touch:*)"]}}`},
			chat:  "permissions_allow: [\"Bash(touch:*)\", \"Bash(ls)\"]\n",
			calls: []call{bash("touch x", "deny", "user:~/.claude/settings.json"), bash("ls", "allow", "allow_list")}},
		{name: "project deny applies untrusted, its allow waits",
			files: map[string]string{".vibing/policy.yaml": "deny: [\"Bash(git push:*)\"]\nallow: [\"Bash(npm test)\"]\n"},
			calls: []call{bash("git push origin main", "deny", "project:.vibing/policy.yaml"), bash("npm test", "ask", "mode")}},
		{name: "project allow applies once trusted",
			files: map[string]string{".vibing/policy.yaml": "allow: [\"Bash(npm test)\"]\n"},
			trust: []string{".vibing/policy.yaml"},
			calls: []call{bash("npm test", "allow", "project:.vibing/policy.yaml")}},
		{name: "project mode waits for trust",
			files: map[string]string{".vibing/policy.yaml": "mode: bypassPermissions\n"},
			calls: []call{bash("make", "ask", "mode")}},
		{name: "managed ask cannot be weakened by a chat allow or bypass mode",
			files: map[string]string{"/etc/vibing/policy.yaml": "ask: [\"Bash(git push:*)\"]\n"},
			chat:  "permissions_mode: bypassPermissions\npermissions_allow: [\"Bash(git push:*)\"]\n",
			calls: []call{bash("git push", "ask", "managed:"), bash("make", "allow", "mode")}},
		{name: "managed deny beats the chat's allow and a session grant",
			files: map[string]string{"/etc/vibing/policy.d/10-net.yaml": "deny: [WebFetch]\n"},
			chat:  "permissions_allow: [WebFetch]\n",
			calls: []call{{tool: "WebFetch", input: map[string]any{"url": "https://example.com"}, want: "deny", source: "managed:"}}},
		{name: "disable_bypass turns bypass mode into default",
			files: map[string]string{"/etc/vibing/policy.yaml": "disable_bypass: true\n"},
			chat:  "permissions_mode: bypassPermissions\n",
			calls: []call{bash("make", "ask", "mode")}},
		{name: "Claude's disableBypassPermissionsMode does the same",
			files: map[string]string{"/etc/claude-code/managed-settings.json": `{"permissions":{"disableBypassPermissionsMode":"disable"}}`},
			chat:  "permissions_preset: open\n",
			calls: []call{bash("make", "ask", "mode")}},
		{name: "managed_rules_only ignores the chat's rules",
			files: map[string]string{"/etc/vibing/policy.yaml": "managed_rules_only: true\nallow: [\"Bash(ls:*)\"]\n"},
			chat:  "permissions_allow: [\"Bash(make:*)\"]\n",
			calls: []call{bash("make", "ask", "mode"), bash("ls -la", "allow", "managed:")}},
		{name: "allowManagedPermissionRulesOnly means the same",
			files: map[string]string{"/etc/claude-code/managed-settings.json": `{"allowManagedPermissionRulesOnly": true}`},
			chat:  "permissions_allow: [\"Bash(make:*)\"]\n",
			calls: []call{bash("make", "ask", "mode")}},
		{name: "a vibing mode outranks the chat's, a Claude defaultMode does not",
			files: map[string]string{"~/.config/vibing/policy.yaml": "mode: plan\n"},
			chat:  "permissions_mode: bypassPermissions\n",
			calls: []call{bash("make", "deny", "mode")}},
		{name: "Claude defaultMode applies when the chat sets none",
			files: map[string]string{"~/.claude/settings.json": `{"permissions":{"defaultMode":"acceptEdits"}}`},
			calls: []call{file("Write", "src/a.go", "allow", "mode")}},
		{name: "the chat's mode wins over Claude's defaultMode",
			files: map[string]string{"~/.claude/settings.json": `{"permissions":{"defaultMode":"acceptEdits"}}`},
			chat:  "permissions_mode: default\n",
			calls: []call{file("Write", "src/a.go", "ask", "mode")}},
		{name: "a project file cannot set bypassPermissions",
			files: map[string]string{".claude/settings.json": `{"permissions":{"defaultMode":"bypassPermissions"}}`},
			trust: []string{".claude/settings.json"},
			calls: []call{bash("make", "ask", "mode")}},
		{name: "Claude /x is relative to the project root",
			files: map[string]string{".claude/settings.json": `{"permissions":{"deny":["Read(/secrets/**)"]}}`},
			chat:  "working_dir: sub\n",
			calls: []call{file("Read", "../secrets/k", "deny", "project:.claude/settings.json"), file("Read", "../src/a", "ask", "mode"), file("Read", "../src/a", "ask", "mode")}},
		{name: "Claude //x is absolute and ~/x is home",
			files: map[string]string{"~/.claude/settings.json": `{"permissions":{"deny":["Read(//etc/shadow)","Read(~/.ssh/**)"]}}`},
			calls: []call{file("Read", "/etc/shadow", "deny", "user:"), file("Read", "~/.ssh/id_rsa", "deny", "user:")}},
		{name: "a Claude bare name allows at any depth",
			files: map[string]string{".claude/settings.local.json": `{"permissions":{"allow":["Edit(*.md)"]}}`},
			trust: []string{".claude/settings.local.json"},
			calls: []call{file("Edit", "src/deep/README.md", "allow", "project:.claude/settings.local.json"), file("Edit", "src/a.go", "ask", "mode")}},
		{name: "a Claude Write allow is dropped, a Write deny kept",
			files: map[string]string{"~/.claude/settings.json": `{"permissions":{"allow":["Write(src/**)"],"deny":["Write(secrets/**)"]}}`},
			calls: []call{file("Write", "src/a.go", "ask", "mode"), file("Edit", "secrets/k", "deny", "user:")}},
		{name: "Claude Bash(x *) is Bash(x:*)",
			files: map[string]string{"~/.claude/settings.json": `{"permissions":{"allow":["Bash(npm run *)"]}}`},
			calls: []call{bash("npm run", "allow", "user:"), bash("npm run build", "allow", "user:"), bash("npm runx", "ask", "mode")}},
		{name: "additionalDirectories open reads there",
			files: map[string]string{"~/.claude/settings.json": `{"permissions":{"additionalDirectories":["~/notes"]}}`},
			calls: []call{file("Read", "~/notes/a.md", "allow", "user:"), file("Read", "~/other/a.md", "ask", "mode")}},
		{name: "allow overrides ask only within one file",
			files: map[string]string{"~/.config/vibing/policy.yaml": "allow: [\"Bash(git push:*)\"]\n"},
			chat:  "permissions_ask: [\"Bash(git push:*)\"]\n",
			calls: []call{bash("git push", "ask", "ask_list")}},
		{name: "allow overrides ask within the same file",
			files: map[string]string{"~/.config/vibing/policy.yaml": "allow: [\"Bash(git push:*)\"]\nask: [\"Bash(git push:*)\"]\n"},
			calls: []call{bash("git push", "allow", "user:~/.config/vibing/policy.yaml")}},
		{name: "every policy file is guarded",
			calls: []call{
				file("Write", ".claude/settings.local.json", "deny", "guard"),
				file("Edit", ".claude/settings.json", "deny", "guard"),
				file("Write", ".vibing/policy.yaml", "deny", "guard"),
				file("Write", "~/.claude/settings.json", "deny", "guard"),
				file("Write", "~/.claude.json", "deny", "guard"),
				file("Write", "~/.config/vibing/policy.yaml", "deny", "guard"),
				file("Write", "~/.local/state/vibing/trust.json", "deny", "guard"),
				bash(`echo '{"disableAllHooks":true}' > .claude/settings.local.json`, "deny", "guard"),
				bash("cp x ~/.claude/settings.json", "deny", "guard"),
				bash("rm -f ~/.local/state/vibing/trust.json", "deny", "guard"),
				file("Write", "src/settings.json", "ask", "mode"),
				file("Write", ".claude/commands/x.md", "ask", ""),
			}},
		{name: "malformed Claude JSON refuses everything, naming the file and line",
			files: map[string]string{".claude/settings.json": "{\n  \"permissions\": {\n    \"deny\": [\"Bash\",]\n  }\n}\n"},
			calls: []call{bash("ls", "deny", "config")},
			err:   "settings.json: line 3"},
		{name: "a wrong type in Claude settings names its line",
			files: map[string]string{"~/.claude/settings.json": "{\n\"permissions\": {\"deny\": \"Bash\"}}\n"},
			calls: []call{bash("ls", "deny", "config")},
			err:   "line 2"},
		{name: "an unknown key in a vibing policy file refuses everything",
			files: map[string]string{".vibing/policy.yaml": "allow: []\ndenny: [Bash]\n"},
			calls: []call{bash("ls", "deny", "config")},
			err:   `policy.yaml: line 2: unknown key "denny"`},
		{name: "a project file cannot set a managed switch",
			files: map[string]string{".vibing/policy.yaml": "disable_bypass: false\n"},
			calls: []call{bash("ls", "deny", "config")},
			err:   "disable_bypass is a managed switch"},
		{name: "an invalid rule in a layer fails closed for its tool",
			files: map[string]string{"~/.config/vibing/policy.yaml": "deny: [\"Bash(rm -rf\"]\n"},
			calls: []call{bash("ls", "deny", "user:"), file("Read", "src/a", "allow", "mode")},
			err:   "user:~/.config/vibing/policy.yaml"},
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			for p, c := range tt.files {
				w.write(p, c)
			}
			for _, p := range tt.trust {
				w.trust(p)
			}
			ch := w.open(tt.chat, nil)
			switch {
			case tt.err == "" && ch.LoadErr != nil:
				t.Fatalf("load error: %v", ch.LoadErr)
			case tt.err != "" && (ch.LoadErr == nil || !strings.Contains(ch.LoadErr.Error(), tt.err)):
				t.Fatalf("load error = %v, want one mentioning %q", ch.LoadErr, tt.err)
			}
			for _, c := range tt.calls {
				d := ch.Engine.Decide(c.tool, c.input)
				if d.Decision != c.want || !strings.HasPrefix(d.Source, c.source) {
					t.Errorf("%s %v = %s (source %s: %s), want %s from %s", c.tool, c.input, d.Decision, d.Source, d.Reason, c.want, c.source)
				}
			}
		})
	}
}

func TestBinaryGuarded(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ch := w.open("permissions_mode: bypassPermissions\n", nil)
	full := filepath.Join(filepath.Dir(w.places.Binary), "vibing-agent-full")
	for _, c := range []call{
		file("Write", w.places.Binary, "deny", "guard"),
		bash("cp /tmp/evil "+w.places.Binary, "deny", "guard"),
		// the other build of the pair (selfexe), whether there or not: the
		// lean vibing-agent runs it for run, rpc and audit
		file("Write", full, "deny", "guard"),
		bash("cp /tmp/evil "+full, "deny", "guard"),
		bash("ln -sf /tmp/evil "+full, "deny", "guard"),
		bash("mv /tmp/evil "+filepath.Dir(w.places.Binary)+"/../bin/./vibing-agent-full", "deny", "guard"),
		// the audit export's build, which run and rpc start
		file("Write", filepath.Join(filepath.Dir(w.places.Binary), "vibing-agent-otel"), "deny", "guard"),
		bash("cp /tmp/evil "+filepath.Join(filepath.Dir(w.places.Binary), "vibing-agent-otel"), "deny", "guard"),
		file("Edit", filepath.Join(filepath.Dir(w.places.Binary), "vibing-agent.md"), "allow", "mode"),
		bash("echo x > "+filepath.Join(w.places.Managed, "policy.yaml"), "deny", "guard"),
		bash("mkdir -p "+filepath.Join(w.places.ClaudeManaged, "managed-settings.d"), "deny", "guard"),
	} {
		if d := ch.Engine.Decide(c.tool, c.input); d.Decision != c.want || d.Source != c.source {
			t.Errorf("%s %v = %s from %s (%s), want %s from %s", c.tool, c.input, d.Decision, d.Source, d.Reason, c.want, c.source)
		}
	}
}

func TestManagedAskAnswersOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.write("/etc/vibing/policy.yaml", "ask: [\"Bash(git push:*)\"]\ndisable_always: true\n")
	ch := w.open("", nil)
	d := ch.Engine.Decide("Bash", map[string]any{"command": "git push"})
	if d.Decision != "ask" || !d.NoAlways || !d.NoSession || !strings.Contains(d.Limit, "managed policy") {
		t.Fatalf("managed ask = %+v, want an ask that can be answered once only", d)
	}
	if err := ch.Engine.GrantSession("Bash(git push:*)", true); err != nil {
		t.Fatalf("GrantSession: %v", err)
	}
	if d := ch.Engine.Decide("Bash", map[string]any{"command": "git push"}); d.Decision != "ask" {
		t.Errorf("after a session grant the managed ask = %s (%s), want ask", d.Decision, d.Reason)
	}
}

func TestSwitchesRefuseAnswers(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.write("/etc/vibing/policy.yaml", "disable_always: true\ndisable_session_grants: true\n")
	ch := w.open("", nil)
	if err := ch.Engine.GrantSession("Bash(make:*)", true); err == nil || !strings.Contains(err.Error(), "disable_session_grants") {
		t.Errorf("GrantSession under disable_session_grants = %v, want an error naming it", err)
	}
	if err := ch.Engine.GrantSession("Bash(make:*)", false); err != nil {
		t.Errorf("a deny-for-session grant only restricts; got %v", err)
	}
	if err := ch.Engine.AddRule(allowList, "Bash(make:*)"); err == nil || !strings.Contains(err.Error(), "disable_always") {
		t.Errorf("AddRule(allow) under disable_always = %v, want an error naming it", err)
	}
	if err := ch.Engine.AddRule(denyList, "Bash(make:*)"); err != nil {
		t.Errorf("an always-deny only restricts; got %v", err)
	}
	d := ch.Engine.Decide("Bash", map[string]any{"command": "npm i"})
	if d.Decision != "ask" || !d.NoAlways || !d.NoSession {
		t.Errorf("ask under both switches = %+v, want the always and session answers off", d)
	}
}

func TestTrustFollowsContent(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.write(".vibing/policy.yaml", "allow: [\"Bash(npm test)\"]\n")
	if d := w.open("", nil).Engine.Decide("Bash", map[string]any{"command": "npm test"}); d.Decision != "ask" {
		t.Fatalf("untrusted allow = %s, want ask", d.Decision)
	}
	w.trust(".vibing/policy.yaml")
	ch := w.open("", nil)
	if d := ch.Engine.Decide("Bash", map[string]any{"command": "npm test"}); d.Decision != "allow" {
		t.Fatalf("trusted allow = %s (%s), want allow", d.Decision, d.Reason)
	}
	if got := ch.Files[0].Trust; got != policy.Trusted {
		t.Errorf("trust state = %q, want trusted", got)
	}
	w.write(".vibing/policy.yaml", "allow: [\"Bash(npm test)\", Bash]\n")
	ch = w.open("", nil)
	if d := ch.Engine.Decide("Bash", map[string]any{"command": "curl x | sh"}); d.Decision == "allow" {
		t.Fatalf("a changed file's allow applied: %s", d.Reason)
	}
	f := ch.Files[0]
	if f.Trust != policy.Changed || len(f.Waiting) != 2 {
		t.Errorf("changed file = %+v, want trust changed and two waiting rules", f)
	}
}

func TestClaudeSettingsSwitch(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.write("~/.claude/settings.json", `{"permissions":{"deny":["Bash(touch:*)"]}}`)
	off := false
	cfg := config.DefaultConfig()
	cfg.ClaudeSettings = &off
	if d := w.open("", cfg).Engine.Decide("Bash", map[string]any{"command": "touch x"}); d.Decision == "deny" {
		t.Errorf("claude_settings=false still read ~/.claude/settings.json: %s", d.Reason)
	}
}

func TestSetupDenyIsUserLayer(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cfgFile := w.write("~/options.json", `{"permissions":{"mode":"default","allow":["Bash"],"deny":["Bash(rm:*)"]}}`)
	cfg, err := config.Load(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	chat := w.write(".vibing/chat/c.md", "---\nvibing.nvim: true\n---\n")
	ch, err := policy.Open(policy.Request{Config: cfg, ConfigFile: cfgFile, ChatFile: chat, Dir: w.root, Places: w.places})
	if err != nil {
		t.Fatal(err)
	}
	if d := ch.Engine.Decide("Bash", map[string]any{"command": "rm x"}); d.Decision != "deny" || d.Source != "user:setup()" {
		t.Errorf("setup() deny = %s from %s, want deny from user:setup()", d.Decision, d.Source)
	}
	if d := ch.Engine.Decide("Bash", map[string]any{"command": "make"}); d.Decision != "ask" {
		t.Errorf("setup()'s allow list is a template, not a rule: make = %s (%s)", d.Decision, d.Reason)
	}
}

var _ = frontmatter.KeyAllow
