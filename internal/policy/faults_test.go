package policy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vibing/internal/policy"
)

// faultHelperEnv makes the test binary load one world as another user
// (see loadAsUser) and print what it decided.
const faultHelperEnv = "VIBING_POLICY_FAULT_HELPER"

// nobody is who the helper runs as when the tests run as root: root reads
// any file, and the faults are about a person's files that they cannot.
const nobody = 65534

func TestMain(m *testing.M) {
	if spec := os.Getenv(faultHelperEnv); spec != "" {
		os.Exit(faultHelper(spec))
	}
	code := m.Run()
	if helperDir != "" {
		os.RemoveAll(helperDir)
	}
	os.Exit(code)
}

// helperSpec is what the helper loads: a world's places and chat.
type helperSpec struct {
	Places policy.Places
	Root   string
	Chat   string
	Calls  []string // Bash commands
}

type helperReport struct {
	LoadErr   string
	Decisions []struct{ Decision, Source, Reason string }
}

func faultHelper(spec string) int {
	// a regression that reads /dev/zero must die here, not take the
	// machine's memory: 1 GiB of data is plenty for one load
	lim := syscall.Rlimit{Cur: 1 << 30, Max: 1 << 30}
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &lim); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var s helperSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ch, err := policy.Open(policy.Request{ChatFile: s.Chat, Dir: s.Root, Places: s.Places})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var rep helperReport
	if ch.LoadErr != nil {
		rep.LoadErr = ch.LoadErr.Error()
	}
	for _, c := range s.Calls {
		d := ch.Engine.Decide("Bash", map[string]any{"command": c})
		rep.Decisions = append(rep.Decisions, struct{ Decision, Source, Reason string }{d.Decision.String(), d.Source, d.Reason})
	}
	_ = json.NewEncoder(os.Stdout).Encode(rep)
	return 0
}

var (
	helperOnce sync.Once
	helperDir  string // a folder every user can enter, with a copy of this test binary
	helperErr  error
)

// helperExe is this test binary where another user can run it (go test
// builds it in a folder only its owner can enter).
func helperExe(t *testing.T) string {
	t.Helper()
	helperOnce.Do(func() {
		var dir, self string
		if dir, helperErr = os.MkdirTemp("", "vibing-policy-faults-"); helperErr != nil {
			return
		}
		helperDir = dir
		if helperErr = os.Chmod(dir, 0o755); helperErr != nil {
			return
		}
		if self, helperErr = os.Executable(); helperErr != nil {
			return
		}
		helperErr = copyFile(self, filepath.Join(dir, "policy.test"), 0o755)
	})
	if helperErr != nil {
		t.Fatal(helperErr)
	}
	return filepath.Join(helperDir, "policy.test")
}

func copyFile(from, to string, mode os.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// sharedWorld is a world in a folder every user can enter, so that the
// helper, running as nobody, reads what a person would.
func sharedWorld(t *testing.T) *world {
	t.Helper()
	dir, err := os.MkdirTemp("", "vibing-policy-world-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return newWorldIn(t, dir)
}

// loadAsUser loads the world's chat in a child process: as nobody when the
// tests run as root (else as the user running them). A load that blocks
// fails the test after ten seconds instead of hanging it.
func loadAsUser(t *testing.T, w *world, chatText string, calls ...string) helperReport {
	t.Helper()
	chat := w.write(".vibing/chat/c.md", "---\nvibing.nvim: true\n"+chatText+"---\n## User\n")
	spec, err := json.Marshal(helperSpec{Places: w.places, Root: w.root, Chat: chat, Calls: calls})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, helperExe(t), "-test.run=^$")
	cmd.Env = append(os.Environ(), faultHelperEnv+"="+string(spec))
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("loading the policy blocked (killed after %v)", time.Since(start).Round(time.Millisecond))
	}
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, stderr.String())
	}
	var rep helperReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("helper printed %q: %v", stdout.String(), err)
	}
	return rep
}

// A policy file or folder of any layer that exists but cannot be read (no
// permission, a FIFO, /dev/zero, too large) refuses every call with one
// sentence naming it - and loading never blocks. Everyday files keep
// working. The chat allows curl; the managed policy denies it.
func TestUnreadablePolicyFailsClosed(t *testing.T) {
	t.Parallel()
	const netDeny = "deny: [\"Bash(curl:*)\"]\n"
	const chat = "permissions_allow: [\"Bash(curl:*)\", \"Bash(ls)\"]\n"
	mkfifo := func(w *world, p string) {
		w.mkdir(filepath.Dir(w.at(p)))
		if err := syscall.Mkfifo(w.at(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	symlink := func(w *world, to, p string) {
		w.mkdir(filepath.Dir(w.at(p)))
		if err := os.Symlink(to, w.at(p)); err != nil {
			t.Fatal(err)
		}
	}
	chmod := func(w *world, p string, mode os.FileMode) {
		if err := os.Chmod(w.at(p), mode); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		setup func(w *world)
		// the decisions of curl and ls, and the source of curl's; a
		// refused load ("config") names unreadable in its reason
		curl, ls, source string
		unreadable       string // the file or folder the reason names
	}{
		// everyday layouts keep working
		{name: "policy.d with a file", setup: func(w *world) { w.write("/etc/vibing/policy.d/10-net.yaml", netDeny) },
			curl: "deny", ls: "allow", source: "managed:"},
		{name: "no policy.d", setup: func(w *world) {},
			curl: "allow", ls: "allow", source: "allow_list"},
		{name: "empty policy.d", setup: func(w *world) { w.mkdir(w.at("/etc/vibing/policy.d")) },
			curl: "allow", ls: "allow", source: "allow_list"},
		{name: "policy.d file symlinked to a regular file", setup: func(w *world) {
			real := w.write("/etc/vibing/shared/net.yaml", netDeny)
			symlink(w, real, "/etc/vibing/policy.d/10-net.yaml")
		}, curl: "deny", ls: "allow", source: "managed:"},
		{name: "policy.d symlinked to a folder", setup: func(w *world) {
			w.write("/etc/vibing/shared/10-net.yaml", netDeny)
			symlink(w, w.at("/etc/vibing/shared"), "/etc/vibing/policy.d")
		}, curl: "deny", ls: "allow", source: "managed:"},
		{name: "readable files under umask 022", setup: func(w *world) {
			w.write("/etc/claude-code/managed-settings.d/10.json", `{"permissions":{"deny":["Bash(curl:*)"]}}`)
			w.write("~/.claude/settings.json", `{"permissions":{"allow":["Bash(ls)"]}}`)
		}, curl: "deny", ls: "allow", source: "managed:"},

		// a folder or file that exists but cannot be read
		{name: "policy.d made under umask 077", setup: func(w *world) {
			w.write("/etc/vibing/policy.d/10-net.yaml", netDeny)
			chmod(w, "/etc/vibing/policy.d", 0o700)
		}, curl: "deny", ls: "deny", source: "config", unreadable: "policy folder /etc/vibing/policy.d cannot be read: permission denied"},
		{name: "managed-settings.d made under umask 077", setup: func(w *world) {
			w.write("/etc/claude-code/managed-settings.d/10.json", `{"permissions":{"deny":["Bash(curl:*)"]}}`)
			chmod(w, "/etc/claude-code/managed-settings.d", 0o700)
		}, curl: "deny", ls: "deny", source: "config", unreadable: "settings folder /etc/claude-code/managed-settings.d cannot be read: permission denied"},
		{name: "unreadable file in policy.d", setup: func(w *world) {
			w.write("/etc/vibing/policy.d/10-net.yaml", netDeny)
			chmod(w, "/etc/vibing/policy.d/10-net.yaml", 0o600)
		}, curl: "deny", ls: "deny", source: "config", unreadable: "policy file /etc/vibing/policy.d/10-net.yaml cannot be read: permission denied"},
		{name: "/etc/vibing made under umask 077", setup: func(w *world) {
			w.write("/etc/vibing/policy.d/10-net.yaml", netDeny)
			chmod(w, "/etc/vibing/", 0o700)
		}, curl: "deny", ls: "deny", source: "config", unreadable: "/etc/vibing/policy.d cannot be read: permission denied"},
		{name: "~/.claude made under umask 077 by another user", setup: func(w *world) {
			w.write("~/.claude/settings.json", `{"permissions":{"deny":["Bash(curl:*)"]}}`)
			chmod(w, "~/.claude", 0o700)
		}, curl: "deny", ls: "deny", source: "config", unreadable: "settings file ~/.claude/settings.json cannot be read: permission denied"},
		{name: "policy.d is a FIFO", setup: func(w *world) { mkfifo(w, "/etc/vibing/policy.d") },
			curl: "deny", ls: "deny", source: "config", unreadable: "policy folder /etc/vibing/policy.d cannot be read: not a directory"},
		{name: "policy.yaml is a FIFO", setup: func(w *world) { mkfifo(w, "/etc/vibing/policy.yaml") },
			curl: "deny", ls: "deny", source: "config", unreadable: "policy file /etc/vibing/policy.yaml cannot be read: not a regular file (a named pipe)"},
		{name: "FIFO in policy.d", setup: func(w *world) { mkfifo(w, "/etc/vibing/policy.d/10-net.yaml") },
			curl: "deny", ls: "deny", source: "config", unreadable: "/etc/vibing/policy.d/10-net.yaml cannot be read: not a regular file (a named pipe)"},
		{name: "user's Claude settings a FIFO", setup: func(w *world) { mkfifo(w, "~/.claude/settings.json") },
			curl: "deny", ls: "deny", source: "config", unreadable: "settings file ~/.claude/settings.json cannot be read"},
		{name: "project policy a FIFO", setup: func(w *world) { mkfifo(w, ".vibing/policy.yaml") },
			curl: "deny", ls: "deny", source: "config", unreadable: "policy file proj/.vibing/policy.yaml cannot be read"},
		{name: "project local settings a symlink to a FIFO", setup: func(w *world) {
			mkfifo(w, "fifo")
			symlink(w, w.at("fifo"), ".claude/settings.local.json")
		}, curl: "deny", ls: "deny", source: "config", unreadable: "settings.local.json cannot be read: not a regular file (a named pipe)"},
		{name: "user policy a symlink to /dev/zero", setup: func(w *world) { symlink(w, "/dev/zero", "~/.config/vibing/policy.yaml") },
			curl: "deny", ls: "deny", source: "config", unreadable: "policy file ~/.config/vibing/policy.yaml cannot be read: not a regular file (a character device)"},
		{name: "managed settings drop-in a symlink to /dev/zero", setup: func(w *world) {
			symlink(w, "/dev/zero", "/etc/claude-code/managed-settings.d/10.json")
		}, curl: "deny", ls: "deny", source: "config", unreadable: "10.json cannot be read: not a regular file (a character device)"},
		{name: "user's Claude settings over 4 MiB", setup: func(w *world) {
			w.write("~/.claude/settings.json", `{"permissions":{"deny":[]}}`+strings.Repeat(" ", 4<<20))
		}, curl: "deny", ls: "deny", source: "config", unreadable: "settings file ~/.claude/settings.json cannot be read: file too large (over 4 MiB)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := sharedWorld(t)
			tt.setup(w)
			rep := loadAsUser(t, w, chat, "curl https://example.com", "ls")
			if len(rep.Decisions) != 2 {
				t.Fatalf("got %d decisions, want 2", len(rep.Decisions))
			}
			curl, ls := rep.Decisions[0], rep.Decisions[1]
			if curl.Decision != tt.curl || !strings.HasPrefix(curl.Source, tt.source) || ls.Decision != tt.ls {
				t.Errorf("curl = %s from %s (%s), ls = %s (%s); want curl %s from %s, ls %s",
					curl.Decision, curl.Source, curl.Reason, ls.Decision, ls.Reason, tt.curl, tt.source, tt.ls)
			}
			if tt.unreadable == "" {
				if rep.LoadErr != "" {
					t.Errorf("load error %q, want none", rep.LoadErr)
				}
				return
			}
			want := expandWorld(w, tt.unreadable)
			says := func(s string) bool { return strings.Contains(strings.ToLower(s), strings.ToLower(want)) }
			if !says(curl.Reason) || !says(ls.Reason) || !says(rep.LoadErr) {
				t.Errorf("reasons %q and %q (load error %q), want them to say %q", curl.Reason, ls.Reason, rep.LoadErr, want)
			}
		})
	}
}

// expandWorld puts the world's folders into a sentence written with the
// short names ("/etc/vibing/", "~/", "proj/").
func expandWorld(w *world, s string) string {
	r := strings.NewReplacer("/etc/vibing/", w.places.Managed+"/", "/etc/claude-code/", w.places.ClaudeManaged+"/",
		"~/", w.places.Home+"/", "proj/", w.root+"/")
	return r.Replace(s)
}

// A trust store that is a FIFO does not block the load: nothing counts as
// trusted, and the load says why.
func TestTrustStoreFIFO(t *testing.T) {
	t.Parallel()
	w := sharedWorld(t)
	w.write(".vibing/policy.yaml", "allow: [\"Bash(npm test)\"]\n")
	w.mkdir(filepath.Dir(w.places.TrustStore))
	if err := syscall.Mkfifo(w.places.TrustStore, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := loadAsUser(t, w, "", "npm test")
	if !strings.Contains(rep.LoadErr, "trust store "+w.places.TrustStore) || !strings.Contains(rep.LoadErr, "not a regular file") {
		t.Errorf("load error %q, want one naming the trust store", rep.LoadErr)
	}
	if d := rep.Decisions[0]; d.Decision != "ask" {
		t.Errorf("npm test = %s (%s), want ask: an untrusted allow waits", d.Decision, d.Reason)
	}
	// trusting a FIFO refuses instead of blocking
	mk := w.at(".claude/settings.json")
	w.mkdir(filepath.Dir(mk))
	if err := syscall.Mkfifo(mk, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := policy.FileSum(mk); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("FileSum of a FIFO = %v, want not a regular file", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("FileSum of a FIFO blocked")
	}
}
