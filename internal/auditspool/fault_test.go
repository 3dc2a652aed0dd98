package auditspool_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vibing/internal/auditspool"
)

// A spool path that is not a regular file makes Append fail at once (the
// hook then refuses the call it records) instead of blocking the hook on a
// FIFO or "writing" a row to /dev/zero; Import says so, does not block and
// leaves it where it is.
func TestSpoolNotARegularFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, spool string)
		want  string // part of the error; "" = works
	}{
		{"missing", func(*testing.T, string) {}, ""},
		{"regular", func(t *testing.T, p string) { os.WriteFile(p, nil, 0o600) }, ""},
		{"symlink to a regular file", func(t *testing.T, p string) {
			os.WriteFile(p+".real", nil, 0o600)
			os.Symlink(p+".real", p)
		}, ""},
		{"FIFO", func(t *testing.T, p string) { syscall.Mkfifo(p, 0o600) }, "not a regular file (a named pipe)"},
		{"symlink to a FIFO", func(t *testing.T, p string) {
			syscall.Mkfifo(p+".fifo", 0o600)
			os.Symlink(p+".fifo", p)
		}, "not a regular file (a named pipe)"},
		{"symlink to /dev/zero", func(t *testing.T, p string) { os.Symlink("/dev/zero", p) }, "not a regular file (a character device)"},
		{"folder", func(t *testing.T, p string) { os.Mkdir(p, 0o700) }, "not a regular file (a folder)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spool := auditspool.For(filepath.Join(t.TempDir(), "audit.sqlite"))
			tt.setup(t, spool)
			var appendErr, importErr error
			var n int
			within(t, "Append", func() { appendErr = auditspool.Append(spool, auditspool.Entry{Decision: "allow", Tool: "Bash"}) })
			within(t, "Import", func() {
				n, importErr = auditspool.Import(spool, func([]auditspool.Entry) error { return nil })
			})
			if tt.want == "" {
				if appendErr != nil || importErr != nil || n != 1 {
					t.Fatalf("Append = %v, Import = %d, %v; want the row imported", appendErr, n, importErr)
				}
				return
			}
			for what, err := range map[string]error{"Append": appendErr, "Import": importErr} {
				if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), spool) {
					t.Errorf("%s = %v, want an error naming the spool: %s", what, err, tt.want)
				}
			}
			if _, err := os.Lstat(spool); err != nil {
				t.Errorf("the spool is gone after Import: %v", err)
			}
		})
	}
}

// within fails the test when fn has not returned after five seconds.
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
