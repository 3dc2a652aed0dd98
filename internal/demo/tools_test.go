package demo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibing/internal/run"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestExecute(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "one\ntwo two\n")
	writeFile(t, filepath.Join(outside, "secret"), "s3cret\n")
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	d := &Demo{BashTimeout: 300 * time.Millisecond, MaxOutput: 64}
	tests := []struct {
		name    string
		tool    string
		input   map[string]any
		isError bool
		want    string
	}{
		{"read", "Read", map[string]any{"file_path": filepath.Join(dir, "a.txt")}, false, "     1\tone\n     2\ttwo two\n"},
		{"read relative", "Read", map[string]any{"file_path": "a.txt"}, false, "     1\tone\n"},
		{"read outside", "Read", map[string]any{"file_path": filepath.Join(outside, "secret")}, true, "outside the project"},
		{"read dot-dot", "Read", map[string]any{"file_path": dir + "/../" + filepath.Base(outside) + "/secret"}, true, "outside the project"},
		{"read through symlink", "Read", map[string]any{"file_path": filepath.Join(dir, "link")}, true, "outside the project"},
		{"edit missing string", "Edit", map[string]any{"file_path": filepath.Join(dir, "a.txt"), "old_string": "three", "new_string": "x"}, true, "not found"},
		{"edit ambiguous", "Edit", map[string]any{"file_path": filepath.Join(dir, "a.txt"), "old_string": "two", "new_string": "x"}, true, "Found 2 matches"},
		{"edit outside", "Edit", map[string]any{"file_path": filepath.Join(dir, "link"), "old_string": "s3cret", "new_string": "x"}, true, "outside the project"},
		{"bash", "Bash", map[string]any{"command": "echo out; echo err >&2"}, false, "out\nerr\n"},
		{"bash exit code", "Bash", map[string]any{"command": "echo no; exit 3"}, true, "no\nExit code 3"},
		{"bash output cap", "Bash", map[string]any{"command": "yes | head -c 1000"}, false, "output cut at 64 bytes"},
		{"bash timeout", "Bash", map[string]any{"command": "sleep 5"}, true, "timed out"},
		{"fetch is simulated", "WebFetch", map[string]any{"url": "https://example.com/"}, false, "simulated, no network"},
		{"unknown tool", "NotebookEdit", map[string]any{"notebook_path": filepath.Join(dir, "b")}, true, "not part of the demo"},
		{"write", "Write", map[string]any{"file_path": filepath.Join(dir, "w.txt"), "content": "hi\n"}, false, "File written"},
		{"write without content", "Write", map[string]any{"file_path": filepath.Join(dir, "w.txt")}, true, "content is missing"},
		{"write outside", "Write", map[string]any{"file_path": "/tmp/vibing-demo-outside.txt", "content": "x"}, true, "outside the project"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got, isErr := d.execute(context.Background(), run.Turn{Cwd: dir}, tt.tool, tt.input)
			if isErr != tt.isError || !strings.Contains(got, tt.want) {
				t.Errorf("execute(%s, %v) = %v %q, want %v and %q", tt.tool, tt.input, isErr, got, tt.isError, tt.want)
			}
			if time.Since(start) > 3*time.Second {
				t.Errorf("execute(%s) took %s", tt.tool, time.Since(start))
			}
		})
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret")); string(data) != "s3cret\n" {
		t.Errorf("a file outside the project changed: %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "b")); !os.IsNotExist(err) {
		t.Errorf("an unknown tool wrote a file: %v", err)
	}
}

func TestEditKeepsModeAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.sh")
	writeFile(t, p, "echo hi\n")
	if err := os.Chmod(p, 0o751); err != nil {
		t.Fatal(err)
	}
	got, err := edit(dir, map[string]any{"file_path": p, "old_string": "hi", "new_string": "ho"})
	if err != nil {
		t.Fatalf("edit() = %q, %v", got, err)
	}
	if data, _ := os.ReadFile(p); string(data) != "echo ho\n" {
		t.Errorf("file = %q, want %q", data, "echo ho\n")
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o751 {
		t.Errorf("mode = %v, want 0751", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("folder holds %d entries after the edit, want 1 (no temp file left)", len(entries))
	}
}

func TestBashTimeoutKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "late")
	d := &Demo{BashTimeout: 200 * time.Millisecond}
	// the child outlives the shell unless the whole group is killed
	cmd := "(sleep 1; touch " + marker + ") & wait"
	if got, isErr := d.execute(context.Background(), run.Turn{Cwd: dir}, "Bash", map[string]any{"command": cmd}); !isErr {
		t.Fatalf("execute(%q) = %q, want a timeout error", cmd, got)
	}
	time.Sleep(1500 * time.Millisecond)
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("a process of the timed-out command kept running (marker: %v)", err)
	}
}

// TestBashStoppedByInterrupt: an interrupted message stops its command at
// once (its context ends), the whole process group with it.
func TestBashStoppedByInterrupt(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "late")
	d := &Demo{BashTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	cmd := "(sleep 1; touch " + marker + ") & wait"
	start := time.Now()
	got, isErr := d.execute(ctx, run.Turn{Cwd: dir}, "Bash", map[string]any{"command": cmd})
	if !isErr || !strings.Contains(got, "the message was interrupted") {
		t.Errorf("execute(%q) = %v %q, want an error saying the message was interrupted", cmd, isErr, got)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the interrupted command ended after %s", took)
	}
	time.Sleep(1500 * time.Millisecond)
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("a process of the interrupted command kept running (marker: %v)", err)
	}
}

func TestChunks(t *testing.T) {
	tests := []string{"", "short", strings.Repeat("word ", 40), "a-very-long-word-without-any-space-at-all and more"}
	for _, s := range tests {
		got := chunks(s, chunkSize)
		if strings.Join(got, "") != s {
			t.Errorf("chunks(%q) = %q, which does not join back", s, got)
		}
		if len(s) > 3*chunkSize && len(got) < 3 {
			t.Errorf("chunks(%q) = %d chunks, want several", s, len(got))
		}
	}
}
