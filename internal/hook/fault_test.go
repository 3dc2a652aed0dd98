package hook_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vibing/internal/hook"
	"vibing/internal/safefile"
)

// within fails the test when fn has not returned after five seconds: a
// regression blocks on a FIFO and must fail, not hang the suite.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s blocked for 5 s", what)
	}
}

// A Claude settings file that is a FIFO or a device is refused at once by
// install and named by status; a managed-settings.d that cannot be listed
// is named by status too (a managed setting there may switch the hook off).
func TestSettingsNotARegularFile(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "vibing-agent")
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	good := func(command string, args []string, stdin []byte) ([]byte, error) {
		if strings.Contains(string(stdin), "UserPromptSubmit") {
			return []byte("{}\n"), nil
		}
		return []byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"x"}}`), nil
	}
	tests := []struct {
		name  string
		fault func(t *testing.T, p hook.Paths) string // makes the fault, returns the path at fault
		want  string
	}{
		{"user settings a FIFO", func(t *testing.T, p hook.Paths) string {
			f, _ := p.File(hook.ScopeUser)
			os.Remove(f) // the entry installed there
			if err := syscall.Mkfifo(f, 0o644); err != nil {
				t.Fatal(err)
			}
			return f
		}, "not a regular file (a named pipe)"},
		// (/dev/null rather than /dev/zero: a regression must not read
		// without end in the test process itself)
		{"local settings a symlink to /dev/null", func(t *testing.T, p hook.Paths) string {
			f, _ := p.File(hook.ScopeLocal)
			os.MkdirAll(filepath.Dir(f), 0o755)
			os.Symlink("/dev/null", f)
			return f
		}, "not a regular file (a character device)"},
		{"project settings over 4 MiB", func(t *testing.T, p hook.Paths) string {
			f, _ := p.File(hook.ScopeProject)
			write(t, f, "{}")
			os.Truncate(f, safefile.PolicyLimit+1)
			return f
		}, "file too large"},
		{"managed-settings.d a FIFO", func(t *testing.T, p hook.Paths) string {
			d := filepath.Join(p.Managed, "managed-settings.d")
			os.MkdirAll(p.Managed, 0o755)
			if err := syscall.Mkfifo(d, 0o644); err != nil {
				t.Fatal(err)
			}
			return d
		}, "cannot be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			p := hook.Paths{Home: filepath.Join(root, "home"), Project: filepath.Join(root, "proj"), Managed: filepath.Join(root, "managed")}
			install(t, p, hook.ScopeUser, bin)
			install(t, p, hook.ScopeProject, bin)
			faulty := tt.fault(t, p)
			var rep hook.Report
			within(t, "Status", func() { rep = hook.Status(p, bin, good) })
			if rep.OK() || !strings.Contains(rep.Text(), faulty) || !strings.Contains(rep.Text(), tt.want) {
				t.Errorf("Status OK = %v, want a problem naming %s: %s\n%s", rep.OK(), faulty, tt.want, rep.Text())
			}
			if strings.HasSuffix(faulty, ".d") {
				return
			}
			var err error
			within(t, "Install", func() { _, err = hook.Install(faulty, hook.NewEntry(bin)) })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Install(%s) = %v, want %s", faulty, err, tt.want)
			}
			if fi, lerr := os.Lstat(faulty); lerr != nil || fi.Mode().IsRegular() && fi.Size() != safefile.PolicyLimit+1 {
				t.Errorf("Install changed %s: %v, %v", faulty, fi, lerr)
			}
		})
	}
}
