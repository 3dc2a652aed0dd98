package frontmatter_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vibing/internal/frontmatter"
	"vibing/internal/safefile"
)

// faultHelperEnv makes the test binary run one file operation on a chat
// (see TestChatFileNeverBlocks): "<op>|<path>".
const faultHelperEnv = "VIBING_FRONTMATTER_FAULT_HELPER"

// faultHelper runs op on the chat at path and prints "ok" or the error.
func faultHelper(spec string) int {
	// a regression that reads /dev/zero must die here, not take the
	// machine's memory
	lim := syscall.Rlimit{Cur: 1 << 30, Max: 1 << 30}
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &lim); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	op, path, _ := strings.Cut(spec, "|")
	var err error
	switch op {
	case "read":
		_, err = frontmatter.ReadFile(path)
	case "edit":
		err = frontmatter.EditFile(path, func(d *frontmatter.Document) error {
			_, err := d.AddToList(frontmatter.KeyAllow, "Bash(ls)")
			return err
		})
	case "append":
		err = frontmatter.AppendFile(path, []byte("more\n"))
	case "update":
		err = frontmatter.UpdateFile(path, func(b []byte) ([]byte, error) { return append(b, "x\n"...), nil })
	default:
		err = fmt.Errorf("unknown op %q", op)
	}
	if err != nil {
		fmt.Println("error:", err)
		return 0
	}
	fmt.Println("ok")
	return 0
}

// A chat path that names a FIFO or a device is refused at once by every
// reader and writer of chats (the engine, the run's reload, the editor's
// frontmatter edits); a chat over safefile.ChatLimit is refused without
// being read. Each operation runs in a child process that is killed after
// ten seconds, so a regression fails instead of hanging the suite.
func TestChatFileNeverBlocks(t *testing.T) {
	t.Parallel()
	const chat = "---\nvibing.nvim: true\n---\n## User\n\nhello\n"
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, p string)
		want  string // "ok", or part of the error
	}{
		{"regular chat", func(t *testing.T, p string) { os.WriteFile(p, []byte(chat), 0o644) }, "ok"},
		{"symlink to a regular chat", func(t *testing.T, p string) {
			os.WriteFile(p+".real", []byte(chat), 0o644)
			os.Symlink(p+".real", p)
		}, "ok"},
		{"FIFO", func(t *testing.T, p string) { syscall.Mkfifo(p, 0o644) }, "not a regular file (a named pipe)"},
		{"symlink to a FIFO", func(t *testing.T, p string) {
			syscall.Mkfifo(p+".fifo", 0o644)
			os.Symlink(p+".fifo", p)
		}, "not a regular file (a named pipe)"},
		{"symlink to /dev/zero", func(t *testing.T, p string) { os.Symlink("/dev/zero", p) }, "not a regular file (a character device)"},
		{"over the chat limit", func(t *testing.T, p string) {
			os.WriteFile(p, []byte(chat), 0o644)
			os.Truncate(p, safefile.ChatLimit+1) // sparse: costs no disk
		}, "file too large (over 128 MiB)"},
	}
	for _, tt := range tests {
		for _, op := range []string{"read", "edit", "append", "update"} {
			if tt.name == "over the chat limit" && op == "append" {
				continue // an append does not read the chat
			}
			t.Run(tt.name+"/"+op, func(t *testing.T) {
				t.Parallel()
				p := filepath.Join(t.TempDir(), "chat.md")
				tt.setup(t, p)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
				cmd.Env = append(os.Environ(), faultHelperEnv+"="+op+"|"+p)
				out, err := cmd.Output()
				if ctx.Err() != nil {
					t.Fatalf("%s of the chat blocked (killed after 10 s)", op)
				}
				if err != nil {
					t.Fatalf("helper: %v", err)
				}
				got := strings.TrimSpace(string(out))
				if tt.want == "ok" && got != "ok" || tt.want != "ok" && (!strings.HasPrefix(got, "error:") || !strings.Contains(got, tt.want) || !strings.Contains(got, "chat.md")) {
					t.Errorf("%s = %q, want %q", op, got, tt.want)
				}
			})
		}
	}
}
