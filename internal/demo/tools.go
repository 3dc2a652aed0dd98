package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"vibing/internal/run"
)

const readLines = 20 // lines of a file a Read result shows

// execute runs an allowed tool call for real in t.Cwd and returns its
// result. Only the demo's own tools are known; files outside the working
// directory are refused, so the demo cannot be talked into touching them.
func (d *Demo) execute(ctx context.Context, t run.Turn, tool string, input map[string]any) (content string, isError bool) {
	var err error
	switch tool {
	case "Read":
		content, err = d.read(t.Cwd, input)
	case "Edit":
		content, err = edit(t.Cwd, input)
	case "Write":
		content, err = write(t.Cwd, input)
	case "Bash":
		content, err = d.bash(ctx, t, input)
	case "WebFetch":
		content, err = fetch(input)
	default:
		err = fmt.Errorf("demo: the tool %s is not part of the demo script", tool)
	}
	if err != nil {
		if content != "" && !strings.HasSuffix(content, "\n") {
			content += "\n"
		}
		return content + err.Error(), true
	}
	return content, false
}

// inside returns the input's file_path when it names a file inside cwd (as
// written and after resolving symlinks).
func inside(cwd string, input map[string]any) (string, error) {
	p, _ := input["file_path"].(string)
	if p == "" {
		return "", errors.New("demo: file_path is missing")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	p = filepath.Clean(p)
	realCwd, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return "", fmt.Errorf("demo: working directory: %w", err)
	}
	realP := p
	if r, err := filepath.EvalSymlinks(p); err == nil {
		realP = r
	}
	for _, c := range [][2]string{{cwd, p}, {realCwd, realP}} {
		rel, err := filepath.Rel(c[0], c[1])
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return "", fmt.Errorf("demo: %s is outside the project, and the demo only touches files inside it", p)
		}
	}
	return p, nil
}

// read returns the file's first lines, numbered like `cat -n`.
func (d *Demo) read(cwd string, input map[string]any) (string, error) {
	p, err := inside(cwd, input)
	if err != nil {
		return "", err
	}
	data, err := readBounded(p, d.maxOutput())
	if err != nil {
		return "", err
	}
	lines := strings.SplitAfter(string(data), "\n")
	var b strings.Builder
	n := 0
	for _, l := range lines {
		if l == "" || n == readLines {
			break
		}
		n++
		fmt.Fprintf(&b, "%6d\t%s", n, l)
	}
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteString("\n")
	}
	if n == readLines && len(lines) > readLines+1 {
		fmt.Fprintf(&b, "… (first %d lines shown)\n", readLines)
	}
	return b.String(), nil
}

func readBounded(p string, limit int) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(limit)))
}

// edit replaces old_string, which must occur exactly once, with new_string,
// writing the file atomically.
func edit(cwd string, input map[string]any) (string, error) {
	p, err := inside(cwd, input)
	if err != nil {
		return "", err
	}
	old, _ := input["old_string"].(string)
	repl, _ := input["new_string"].(string)
	if old == "" {
		return "", errors.New("demo: old_string is missing")
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if fi.Size() > 1<<20 {
		return "", fmt.Errorf("demo: %s is too large to edit", p)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	switch n := bytes.Count(data, []byte(old)); n {
	case 0:
		return "", fmt.Errorf("String to replace not found in file: %q", old)
	case 1:
	default:
		return "", fmt.Errorf("Found %d matches of the string to replace, but only one is allowed: %q", n, old)
	}
	data = bytes.Replace(data, []byte(old), []byte(repl), 1)
	tmp, err := os.CreateTemp(filepath.Dir(p), ".demo-edit-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp.Name(), fi.Mode().Perm()); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return "", err
	}
	return fmt.Sprintf("The file %s has been updated: %s → %s", p, old, repl), nil
}

// write replaces the file's content (or creates the file), atomically.
func write(cwd string, input map[string]any) (string, error) {
	p, err := inside(cwd, input)
	if err != nil {
		return "", err
	}
	content, ok := input["content"].(string)
	if !ok {
		return "", errors.New("demo: content is missing")
	}
	if len(content) > 1<<20 {
		return "", fmt.Errorf("demo: the content for %s is too large", p)
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(p); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".demo-write-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return "", err
	}
	return fmt.Sprintf("File written: %s (%d bytes)", p, len(content)), nil
}

// bash runs the command with /bin/sh -c in the working directory, in its
// own process group (killed on timeout, or when ctx ends: the message was
// interrupted or the agent killed), keeping at most
// MaxOutput bytes of stdout and stderr.
func (d *Demo) bash(ctx context.Context, t run.Turn, input map[string]any) (string, error) {
	command, _ := input["command"].(string)
	if strings.TrimSpace(command) == "" {
		return "", errors.New("demo: command is missing")
	}
	timeout := d.BashTimeout
	if timeout <= 0 {
		timeout = DefaultBashTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir = t.Cwd
	cmd.Env = append(os.Environ(), t.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	out := &capped{max: d.maxOutput()}
	cmd.Stdout, cmd.Stderr = out, out
	err := cmd.Run()
	text := out.String()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return text, fmt.Errorf("Command timed out after %s", timeout)
	case ctx.Err() != nil:
		return text, errors.New("Command stopped: the message was interrupted")
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return text, fmt.Errorf("Exit code %d", ee.ExitCode())
		}
		return text, err
	}
	return text, nil
}

// fetch never touches the network: it returns a simulated result.
func fetch(input map[string]any) (string, error) {
	raw, _ := input["url"].(string)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("demo: %q is not a URL", raw)
	}
	return fmt.Sprintf("(demo) fetched 1256 bytes from %s — simulated, no network. "+
		"The page says: \"This domain is for use in illustrative examples in documents.\"", u.Hostname()), nil
}

func (d *Demo) maxOutput() int {
	if d.MaxOutput > 0 {
		return d.MaxOutput
	}
	return DefaultMaxOutput
}

// capped keeps the first max bytes written to it and notes the rest.
type capped struct {
	max       int
	buf       bytes.Buffer
	truncated bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.truncated = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

func (c *capped) String() string {
	s := c.buf.String()
	if c.truncated {
		s += fmt.Sprintf("\n… (output cut at %d bytes)", c.max)
	}
	return s
}
