package frontmatter_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"vibing/internal/frontmatter"
)

// helperEnv makes the test binary act as one editing process
// (see TestEditFileProcesses): "<chat path>|<process number>".
const helperEnv = "VIBING_FRONTMATTER_EDIT_HELPER"

// appendHelperEnv makes the test binary act as a process appending lines
// to the chat body: "<chat path>|<lines>".
const appendHelperEnv = "VIBING_FRONTMATTER_APPEND_HELPER"

const rulesPerWriter = 50

func TestMain(m *testing.M) {
	if spec := os.Getenv(helperEnv); spec != "" {
		os.Exit(editHelper(spec))
	}
	if spec := os.Getenv(appendHelperEnv); spec != "" {
		os.Exit(appendHelper(spec))
	}
	if spec := os.Getenv(faultHelperEnv); spec != "" {
		os.Exit(faultHelper(spec))
	}
	flag.Parse()
	os.Exit(m.Run())
}

func editHelper(spec string) int {
	path, n, ok := cut(spec)
	if !ok {
		fmt.Fprintln(os.Stderr, "bad helper spec", spec)
		return 2
	}
	for j := 0; j < rulesPerWriter; j++ {
		rule := fmt.Sprintf("Bash(proc%s-%d:*)", n, j)
		err := frontmatter.EditFile(path, func(d *frontmatter.Document) error {
			_, err := d.AddToList(frontmatter.KeyAllow, rule)
			return err
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// appendHelper appends numbered lines to the chat, a few per append.
func appendHelper(spec string) int {
	path, n, ok := cut(spec)
	lines, err := strconv.Atoi(n)
	if !ok || err != nil {
		fmt.Fprintln(os.Stderr, "bad helper spec", spec)
		return 2
	}
	for i := 0; i < lines; i += appendBatch {
		var b bytes.Buffer
		for j := i; j < min(lines, i+appendBatch); j++ {
			fmt.Fprintf(&b, "body line %d\n", j)
		}
		if err := frontmatter.AppendFile(path, b.Bytes()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

func cut(s string) (string, string, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '|' {
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}

const concurrentChat = "---\nvibing.nvim: true\n# rules below\npermissions_allow:\n  - Read\npermissions_mode: default\n---\n\n## User\n\nbody stays\n---\n"

// watchFile parses path in a loop until stop is closed and counts failures:
// a reader must never see a half-written chat.
func watchFile(t *testing.T, path string, stop <-chan struct{}) *atomic.Int64 {
	t.Helper()
	var bad atomic.Int64
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			data, err := os.ReadFile(path)
			if err != nil {
				bad.Add(1)
				continue
			}
			if _, err := frontmatter.Parse(data); err != nil || !bytes.HasSuffix(data, []byte("\n## User\n\nbody stays\n---\n")) {
				bad.Add(1)
			}
		}
	}()
	return &bad
}

func checkAllRules(t *testing.T, path string, want []string) {
	t.Helper()
	d, err := frontmatter.ReadFile(path)
	if err != nil {
		t.Fatalf("ReadFile after concurrent edits: %v", err)
	}
	s, err := d.Settings()
	if err != nil {
		t.Fatalf("Settings after concurrent edits: %v", err)
	}
	have := map[string]int{}
	for _, r := range s.Allow {
		have[r]++
	}
	for _, r := range want {
		if have[r] != 1 {
			t.Errorf("rule %q present %d times after concurrent edits, want 1", r, have[r])
		}
	}
	if len(s.Allow) != len(want)+1 {
		t.Errorf("allow list has %d rules, want %d", len(s.Allow), len(want)+1)
	}
	if s.Mode != "default" || !s.Vibing {
		t.Errorf("other keys changed: %+v", s)
	}
}

func TestEditFileGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.md")
	if err := os.WriteFile(path, []byte(concurrentChat), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	bad := watchFile(t, path, stop)
	const writers = 8
	var wg sync.WaitGroup
	var want []string
	errs := make(chan error, writers*rulesPerWriter)
	for w := 0; w < writers; w++ {
		for j := 0; j < rulesPerWriter; j++ {
			want = append(want, fmt.Sprintf("Bash(g%d-%d:*)", w, j))
		}
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for j := 0; j < rulesPerWriter; j++ {
				rule := fmt.Sprintf("Bash(g%d-%d:*)", w, j)
				errs <- frontmatter.EditFile(path, func(d *frontmatter.Document) error {
					_, err := d.AddToList(frontmatter.KeyAllow, rule)
					return err
				})
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("EditFile: %v", err)
		}
	}
	checkAllRules(t, path, want)
	if n := bad.Load(); n != 0 {
		t.Errorf("a reader saw %d torn or unparsable versions of the chat", n)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode after edits = %v, want 0600", st.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) != 0 {
		t.Errorf("temp files left behind: %q", left)
	}
}

func TestEditFileProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts several processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "chat.md")
	if err := os.WriteFile(path, []byte(concurrentChat), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	bad := watchFile(t, path, stop)
	const procs = 4
	var want []string
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*bytes.Buffer, procs)
	for p := 0; p < procs; p++ {
		for j := 0; j < rulesPerWriter; j++ {
			want = append(want, fmt.Sprintf("Bash(proc%d-%d:*)", p, j))
		}
		cmds[p] = exec.Command(exe, "-test.run=^$")
		cmds[p].Env = append(os.Environ(), helperEnv+"="+path+"|"+strconv.Itoa(p))
		outs[p] = &bytes.Buffer{}
		cmds[p].Stdout, cmds[p].Stderr = outs[p], outs[p]
		if err := cmds[p].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for p, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("editing process %d: %v\n%s", p, err, outs[p])
		}
	}
	close(stop)
	checkAllRules(t, path, want)
	if n := bad.Load(); n != 0 {
		t.Errorf("a reader saw %d torn or unparsable versions of the chat", n)
	}
}

const appendBatch = 5 // lines per AppendFile

// TestEditAndAppendProcesses: while two processes add rules with EditFile
// (which replaces the file), another appends 20,000 lines to the body with
// AppendFile; every rule and every line is in the file afterwards, once.
func TestEditAndAppendProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts several processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "chat.md")
	if err := os.WriteFile(path, []byte(concurrentChat), 0o644); err != nil {
		t.Fatal(err)
	}
	const lines = 20000
	specs := []string{helperEnv + "=" + path + "|0", helperEnv + "=" + path + "|1", appendHelperEnv + "=" + path + "|" + strconv.Itoa(lines)}
	var want []string
	for p := 0; p < 2; p++ {
		for j := 0; j < rulesPerWriter; j++ {
			want = append(want, fmt.Sprintf("Bash(proc%d-%d:*)", p, j))
		}
	}
	cmds := make([]*exec.Cmd, len(specs))
	outs := make([]*bytes.Buffer, len(specs))
	for i, spec := range specs {
		cmds[i] = exec.Command(exe, "-test.run=^$")
		cmds[i].Env = append(os.Environ(), spec)
		outs[i] = &bytes.Buffer{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("process %s: %v\n%s", specs[i], err, outs[i])
		}
	}
	checkAllRules(t, path, want)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "body line ") {
			if seen[l] {
				t.Errorf("%q appears twice", l)
			}
			seen[l] = true
		}
	}
	if len(seen) != lines {
		t.Errorf("%d of %d appended lines are in the chat: %d lost", len(seen), lines, lines-len(seen))
	}
}

func TestEditFileNoWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "chat.md")
	os.WriteFile(path, []byte(concurrentChat), 0o644)
	before, _ := os.Stat(path)
	boom := errors.New("boom")
	if err := frontmatter.EditFile(path, func(*frontmatter.Document) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("EditFile with a failing edit = %v, want boom", err)
	}
	err := frontmatter.EditFile(path, func(d *frontmatter.Document) error {
		_, err := d.AddToList(frontmatter.KeyAllow, "Read") // already there
		return err
	})
	if err != nil {
		t.Fatalf("EditFile: %v", err)
	}
	after, _ := os.Stat(path)
	if !os.SameFile(before, after) {
		t.Errorf("EditFile rewrote the file although nothing changed")
	}
	os.WriteFile(path, []byte("no frontmatter\n"), 0o644)
	if err := frontmatter.EditFile(path, func(*frontmatter.Document) error { return nil }); !errors.Is(err, frontmatter.ErrNoFrontmatter) {
		t.Errorf("EditFile on a file without frontmatter = %v, want ErrNoFrontmatter", err)
	}
	if err := frontmatter.EditFile(filepath.Join(dir, "missing.md"), func(*frontmatter.Document) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("EditFile on a missing file = %v, want not exist", err)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "chat.md")
	if err := frontmatter.WriteFileAtomic(path, []byte("one")); err != nil {
		t.Fatalf("WriteFileAtomic(new): %v", err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode = %v, want 0644", st.Mode().Perm())
	}
	os.Chmod(path, 0o640)
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := frontmatter.WriteFileAtomic(link, []byte("two")); err != nil {
		t.Fatalf("WriteFileAtomic(link): %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "two" {
		t.Errorf("target content = %q, want two", got)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a file")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode after rewrite = %v, want 0640", st.Mode().Perm())
	}
	if err := frontmatter.WriteFileAtomic(filepath.Join(dir, "nope", "x.md"), []byte("x")); err == nil {
		t.Errorf("WriteFileAtomic into a missing folder succeeded")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temp files left behind: %q", left)
	}
}
