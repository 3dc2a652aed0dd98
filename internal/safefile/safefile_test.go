package safefile_test

import (
	"bytes"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vibing/internal/safefile"
)

// within fails the test when fn has not returned after a few seconds: a
// regression blocks on a FIFO, and must fail rather than hang the suite.
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

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, to, p string) {
	t.Helper()
	if err := os.Symlink(to, p); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	const limit = 1 << 10
	tests := []struct {
		name  string
		setup func(t *testing.T, p string) // makes what is at p
		want  []byte                       // the content, when err is nil
		err   error                        // errors.Is target
		text  string                       // part of the error's text
	}{
		// everyday files keep working
		{name: "regular file", setup: func(t *testing.T, p string) { write(t, p, []byte("deny: [Bash]\n")) }, want: []byte("deny: [Bash]\n")},
		{name: "empty file", setup: func(t *testing.T, p string) { write(t, p, nil) }, want: []byte{}},
		{name: "exactly the limit", setup: func(t *testing.T, p string) { write(t, p, bytes.Repeat([]byte("x"), limit)) }, want: bytes.Repeat([]byte("x"), limit)},
		{name: "symlink to a regular file", setup: func(t *testing.T, p string) {
			write(t, p+".real", []byte("ok"))
			symlink(t, p+".real", p)
		}, want: []byte("ok")},
		{name: "missing", setup: func(*testing.T, string) {}, err: fs.ErrNotExist},
		// attacks are refused at once
		{name: "FIFO", setup: func(t *testing.T, p string) { mkfifo(t, p) }, err: safefile.ErrNotRegular, text: "a named pipe"},
		{name: "symlink to a FIFO", setup: func(t *testing.T, p string) {
			mkfifo(t, p+".fifo")
			symlink(t, p+".fifo", p)
		}, err: safefile.ErrNotRegular, text: "a named pipe"},
		{name: "symlink to /dev/zero", setup: func(t *testing.T, p string) { symlink(t, "/dev/zero", p) }, err: safefile.ErrNotRegular, text: "a character device"},
		{name: "/dev/null", setup: func(t *testing.T, p string) { symlink(t, "/dev/null", p) }, err: safefile.ErrNotRegular},
		{name: "folder", setup: func(t *testing.T, p string) { os.Mkdir(p, 0o755) }, err: safefile.ErrNotRegular, text: "a folder"},
		{name: "socket", setup: func(t *testing.T, p string) {
			l, err := net.Listen("unix", p)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
		}, err: safefile.ErrNotRegular, text: "a socket"},
		{name: "one byte over the limit", setup: func(t *testing.T, p string) { write(t, p, bytes.Repeat([]byte("x"), limit+1)) }, err: safefile.ErrTooLarge, text: "over 1024 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "policy.yaml")
			tt.setup(t, p)
			var got []byte
			var err error
			within(t, "ReadFile", func() { got, err = safefile.ReadFile(p, limit) })
			if tt.err != nil {
				if !errors.Is(err, tt.err) || !strings.Contains(errText(err), tt.text) || !strings.Contains(errText(err), p) {
					t.Fatalf("ReadFile(%s) = %q, %v; want an error naming the file: %v %s", tt.name, got, err, tt.err, tt.text)
				}
				return
			}
			if err != nil || !bytes.Equal(got, tt.want) {
				t.Fatalf("ReadFile(%s) = %q, %v; want %q", tt.name, got, err, tt.want)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A FIFO with a writer already waiting is refused as well: its data is
// never what the file's name promises.
func TestReadFileFIFOWithWriter(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "settings.json")
	mkfifo(t, p)
	w, err := os.OpenFile(p, os.O_RDWR, 0) // a reader and writer: never blocks
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Write([]byte(`{"permissions":{}}`))
	within(t, "ReadFile", func() { _, err = safefile.ReadFile(p, 1<<20) })
	if !errors.Is(err, safefile.ErrNotRegular) {
		t.Fatalf("ReadFile of a FIFO with a writer = %v, want ErrNotRegular", err)
	}
}

// A file that grows past the limit after the size check is cut at the limit
// and refused, not read whole.
func TestReadAllBound(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "chat.md")
	write(t, p, []byte("small"))
	f, err := safefile.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	write(t, p, bytes.Repeat([]byte("x"), 100))
	if _, err := safefile.ReadAll(f, 10); !errors.Is(err, safefile.ErrTooLarge) {
		t.Fatalf("ReadAll past the limit = %v, want ErrTooLarge", err)
	}
}

func TestOpenFileCreates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "spool")
	f, err := safefile.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatalf("OpenFile(create) = %v", err)
	}
	if _, err := f.Write([]byte("row\n")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("created file: %v, %v; want mode 0600", fi, err)
	}
	// a FIFO opened for writing without a reader would block for ever
	q := filepath.Join(dir, "fifo")
	mkfifo(t, q)
	within(t, "OpenFile(FIFO, write)", func() { f, err = safefile.OpenFile(q, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600) })
	if !errors.Is(err, safefile.ErrNotRegular) {
		t.Fatalf("OpenFile(FIFO, write) = %v, want ErrNotRegular", err)
	}
}

func TestReadDirNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, p string)
		want  []string
		err   error
	}{
		{name: "folder", setup: func(t *testing.T, p string) {
			os.Mkdir(p, 0o755)
			write(t, filepath.Join(p, "20-b.yaml"), nil)
			write(t, filepath.Join(p, "10-a.yaml"), nil)
		}, want: []string{"10-a.yaml", "20-b.yaml"}},
		{name: "empty folder", setup: func(t *testing.T, p string) { os.Mkdir(p, 0o755) }, want: []string{}},
		{name: "symlink to a folder", setup: func(t *testing.T, p string) {
			os.Mkdir(p+".real", 0o755)
			write(t, filepath.Join(p+".real", "a.json"), nil)
			symlink(t, p+".real", p)
		}, want: []string{"a.json"}},
		{name: "missing", setup: func(*testing.T, string) {}, err: fs.ErrNotExist},
		{name: "FIFO", setup: func(t *testing.T, p string) { mkfifo(t, p) }, err: syscall.ENOTDIR},
		{name: "file", setup: func(t *testing.T, p string) { write(t, p, []byte("x")) }, err: syscall.ENOTDIR},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "policy.d")
			tt.setup(t, p)
			var got []string
			var err error
			within(t, "ReadDirNames", func() { got, err = safefile.ReadDirNames(p) })
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("ReadDirNames(%s) = %q, %v; want %v", tt.name, got, err, tt.err)
				}
				return
			}
			if err != nil || strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("ReadDirNames(%s) = %q, %v; want %q", tt.name, got, err, tt.want)
			}
		})
	}
}
