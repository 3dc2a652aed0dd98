package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runBounded runs the agent and fails the test when it has not exited
// after ten seconds: a regression blocks on a FIFO, and must fail rather
// than hang the suite. The process may use 1 GiB of data at most, so one
// that reads /dev/zero dies instead of taking the machine's memory.
func runBounded(t *testing.T, bin, dir, stdin string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "prlimit", append([]string{"--data=1073741824", "--", bin}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("vibing-agent %s blocked (killed after %v)", args[0], time.Since(start).Round(time.Millisecond))
	}
	var ee *exec.ExitError
	if err != nil && !errorsAs(err, &ee) {
		t.Fatalf("vibing-agent %v: %v", args, err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

func errorsAs(err error, ee **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*ee = e
	return ok
}

// check and hook never block on a policy, settings, chat, config or spool
// file: a FIFO, a symlink to /dev/zero or to a FIFO gets a deny (or, for a
// chat or config that cannot be read, exit 1) with a sentence naming the
// file, at once. Everyday files keep deciding as before.
func TestCheckAndHookNeverBlock(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Fatalf("prlimit (util-linux) is missing: %v", err)
	}
	bin := leanAgent(t)
	type world struct{ dir, home, proj, chat, config, spool string }
	fifo := func(t *testing.T, p string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	symlink := func(t *testing.T, to, p string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.Remove(p)
		if err := os.Symlink(to, p); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, w world) string // makes the fault; returns the path the answer names
		cmd   string                             // check | hook
		// check: the decision (or "exit1" for a chat or config that
		// cannot be read); hook: the permissionDecision ("{}" = none)
		want, says string
		call       []string // check's tool, input and flags; nil: Bash curl
	}{
		{"everyday files: check", func(t *testing.T, w world) string { return "" }, "check", "deny", "Bash(curl:*)", nil},
		{"everyday files: hook", func(t *testing.T, w world) string { return "" }, "hook", "deny", "Bash(curl:*)", nil},
		{"user Claude settings a FIFO: check", func(t *testing.T, w world) string {
			p := filepath.Join(w.home, ".claude", "settings.json")
			fifo(t, p)
			return p
		}, "check", "deny", "cannot be read: not a regular file (a named pipe)", nil},
		{"user Claude settings a FIFO: hook", func(t *testing.T, w world) string {
			p := filepath.Join(w.home, ".claude", "settings.json")
			fifo(t, p)
			return p
		}, "hook", "deny", "cannot be read: not a regular file (a named pipe)", nil},
		{"project policy a symlink to a FIFO: check", func(t *testing.T, w world) string {
			p := filepath.Join(w.proj, ".vibing", "policy.yaml")
			fifo(t, filepath.Join(w.dir, "pipe"))
			symlink(t, filepath.Join(w.dir, "pipe"), p)
			return p
		}, "check", "deny", "cannot be read: not a regular file (a named pipe)", nil},
		{"user policy a symlink to /dev/zero: check", func(t *testing.T, w world) string {
			p := filepath.Join(w.home, "config", "vibing", "policy.yaml")
			symlink(t, "/dev/zero", p)
			return p
		}, "check", "deny", "cannot be read: not a regular file (a character device)", nil},
		{"user policy a symlink to /dev/zero: hook", func(t *testing.T, w world) string {
			p := filepath.Join(w.home, "config", "vibing", "policy.yaml")
			symlink(t, "/dev/zero", p)
			return p
		}, "hook", "deny", "cannot be read: not a regular file (a character device)", nil},
		{"chat a FIFO: check", func(t *testing.T, w world) string {
			fifo(t, w.chat)
			return w.chat
		}, "check", "exit1", "not a regular file (a named pipe)", nil},
		{"config a FIFO: check", func(t *testing.T, w world) string {
			fifo(t, w.config)
			return w.config
		}, "check", "exit1", "not a regular file (a named pipe)", nil},
		{"config a FIFO: hook", func(t *testing.T, w world) string {
			fifo(t, w.config)
			return w.config
		}, "hook", "deny", "not a regular file (a named pipe)", nil},
		{"audit spool a FIFO: hook", func(t *testing.T, w world) string {
			fifo(t, w.spool)
			return w.spool
		}, "hook", "deny", "not a regular file (a named pipe)", nil},
		{"learned tool list a FIFO: check", func(t *testing.T, w world) string {
			fifo(t, filepath.Join(w.home, "state", "vibing", "cli-tools.json"))
			return ""
		}, "check", "deny", "Bash(curl:*)", nil},
		{"trust store a FIFO: check", func(t *testing.T, w world) string {
			p := filepath.Join(w.home, "state", "vibing", "trust.json")
			fifo(t, p)
			return ""
		}, "check", "deny", "Bash(curl:*)", nil},
		// paths the agent chooses, read on the way to a decision or a preview
		{"an Edit of a FIFO: check --preview", func(t *testing.T, w world) string {
			fifo(t, filepath.Join(w.proj, "a.txt"))
			return ""
		}, "check", "ask", "the file cannot be read (not a regular file (a named pipe))",
			[]string{"--tool", "Edit", "--preview", "--input", `{"file_path":"a.txt","old_string":"a","new_string":"b"}`}},
		{".git a FIFO: check of git apply", func(t *testing.T, w world) string {
			fifo(t, filepath.Join(w.proj, ".git"))
			writeFile(t, filepath.Join(w.proj, "fix.patch"), "x\n")
			return ""
		}, "check", "deny", "", []string{"--tool", "Bash", "--input", `{"command":"git apply fix.patch"}`}},
		{"package.json a FIFO: check --preview of npm run", func(t *testing.T, w world) string {
			fifo(t, filepath.Join(w.proj, "package.json"))
			return ""
		}, "check", "ask", "npm script", []string{"--tool", "Bash", "--preview", "--input", `{"command":"npm run build"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			w := world{dir: dir, home: filepath.Join(dir, "home"), proj: filepath.Join(dir, "proj"),
				config: filepath.Join(dir, "options.json"), spool: filepath.Join(dir, "audit.sqlite.hook-spool")}
			w.chat = writeChat(t, w.proj, "---\nvibing.nvim: true\npermissions_allow: [\"Bash(curl:*)\", \"Bash(ls)\"]\n---\n")
			writeFile(t, w.config, `{"audit_path":"`+filepath.Join(dir, "audit.sqlite")+`"}`)
			writeFile(t, filepath.Join(w.home, ".claude", "settings.json"), `{"permissions":{"deny":["Bash(curl:*)"]}}`)
			named := tt.setup(t, w)
			env := []string{"HOME=" + w.home, "XDG_STATE_HOME=" + filepath.Join(w.home, "state"), "XDG_CONFIG_HOME=" + filepath.Join(w.home, "config"), "CLAUDE_PROJECT_DIR=" + w.proj}
			var out, errOut string
			var code int
			if tt.cmd == "check" {
				call := tt.call
				if call == nil {
					call = []string{"--tool", "Bash", "--input", `{"command":"curl https://example.com"}`}
				}
				out, errOut, code = runBounded(t, bin, w.proj, "", env, append([]string{"check", "--config", w.config, "--chat", w.chat}, call...)...)
			} else {
				in := `{"session_id":"s","cwd":"` + w.proj + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"curl https://example.com"}}`
				out, errOut, code = runBounded(t, bin, w.proj, in, env, "hook", "--config", w.config)
			}
			answer := out + errOut
			var decision string
			switch {
			case tt.want == "exit1":
				if code == exitFail {
					decision = "exit1"
				}
			case tt.cmd == "check":
				var d struct{ Decision string }
				json.Unmarshal([]byte(out), &d)
				decision = d.Decision
			default:
				var h struct {
					HookSpecificOutput struct{ PermissionDecision string } `json:"hookSpecificOutput"`
				}
				json.Unmarshal([]byte(out), &h)
				decision = h.HookSpecificOutput.PermissionDecision
			}
			if decision != tt.want || !strings.Contains(answer, tt.says) || !strings.Contains(answer, named) {
				t.Errorf("%s = %q (exit %d), want %s saying %q about %s\nstdout: %s\nstderr: %s", tt.cmd, decision, code, tt.want, tt.says, named, out, errOut)
			}
		})
	}
}

// The managed layer as it is deployed: /etc/vibing/policy.d and
// /etc/claude-code/managed-settings.d made by root under umask 077, so the
// person (here nobody) cannot list them. Seen through a private mount
// namespace (an overlay over /etc that only this test's processes see),
// so the machine's own /etc is never touched. Every call is refused with a
// sentence naming the folder; once the folder is readable, its deny rules
// decide again.
func TestUnreadableManagedFolders(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a private mount namespace (unshare -m) and to run check as nobody")
	}
	for _, tool := range []string{"unshare", "setpriv"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s (util-linux) is missing: %v", tool, err)
		}
	}
	bin := leanAgent(t)
	tmp, err := os.MkdirTemp("", "vibing-managed-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	proj, home := filepath.Join(tmp, "proj"), filepath.Join(tmp, "home")
	for _, d := range []string{home, filepath.Join(tmp, "upper"), filepath.Join(tmp, "work")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	chat := writeChat(t, proj, "---\nvibing.nvim: true\npermissions_allow: [\"Bash(curl:*)\", \"Bash(ls)\"]\n---\n")
	script := `set -e
mount -t overlay overlay -o lowerdir=/etc,upperdir="$TMPD/upper",workdir="$TMPD/work" /etc
grep -q '^overlay /etc overlay ' /proc/self/mounts || { echo "no overlay on /etc" >&2; exit 3; }
rm -rf /etc/vibing /etc/claude-code
check() { setpriv --reuid=65534 --regid=65534 --clear-groups "$AGENT" check --chat "$CHAT" --tool Bash --input "{\"command\":\"$1\"}"; echo; }
# policy.d made under umask 077; /etc/vibing itself readable
(umask 077; mkdir -p /etc/vibing/policy.d; printf 'deny: ["Bash(curl:*)"]\n' > /etc/vibing/policy.d/10-net.yaml)
chmod 755 /etc/vibing
check "curl https://example.com"
check ls
chmod 755 /etc/vibing/policy.d; chmod 644 /etc/vibing/policy.d/10-net.yaml
check "curl https://example.com"
check ls
rm -rf /etc/vibing
# Claude's managed-settings.d the same way
(umask 077; mkdir -p /etc/claude-code/managed-settings.d; printf '{"permissions":{"deny":["Bash(curl:*)"]}}' > /etc/claude-code/managed-settings.d/10-net.json)
chmod 755 /etc/claude-code
check "curl https://example.com"
chmod 755 /etc/claude-code/managed-settings.d; chmod 644 /etc/claude-code/managed-settings.d/10-net.json
check "curl https://example.com"
`
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "-m", "--propagation", "private", "sh", "-c", script)
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "AGENT="+bin, "CHAT="+chat, "TMPD="+tmp, "HOME="+home,
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("the namespace script blocked\n%s\n%s", out, stderr.String())
	}
	if err != nil {
		t.Fatalf("unshare: %v\n%s\n%s", err, out, stderr.String())
	}
	var got []struct{ Decision, Source, Reason string }
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var d struct{ Decision, Source, Reason string }
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("not a decision: %q (%v)\n%s", line, err, out)
		}
		got = append(got, d)
	}
	const policyD = "Policy folder /etc/vibing/policy.d cannot be read: permission denied; every tool call is denied until it is fixed."
	const settingsD = "Settings folder /etc/claude-code/managed-settings.d cannot be read: permission denied; every tool call is denied until it is fixed."
	want := []struct{ decision, source, reason string }{
		{"deny", "config", policyD}, // the chat's allow does not get past a folder nobody can read
		{"deny", "config", policyD}, // nor does anything else
		{"deny", "managed:/etc/vibing/policy.d/10-net.yaml", ""},
		{"allow", "allow_list", ""},
		{"deny", "config", settingsD},
		{"deny", "managed:/etc/claude-code/managed-settings.d/10-net.json", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d decisions, want %d:\n%s\n%s", len(got), len(want), out, stderr.String())
	}
	for i, w := range want {
		if got[i].Decision != w.decision || got[i].Source != w.source || w.reason != "" && got[i].Reason != w.reason {
			t.Errorf("call %d = %s from %s (%s), want %s from %s (%s)", i+1, got[i].Decision, got[i].Source, got[i].Reason, w.decision, w.source, w.reason)
		}
	}
	if _, err := os.Stat("/etc/vibing/policy.d/10-net.yaml"); err == nil {
		t.Error("/etc/vibing/policy.d/10-net.yaml exists outside the namespace: the test touched the real /etc")
	}
}
