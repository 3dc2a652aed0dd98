package oracle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A Runner runs command lines for real: bash inside bubblewrap on a fresh
// copy of the world, no network, a hard timeout, under strace -f -y outside
// the sandbox (SPEC §15), and reports what the kernel saw.
type Runner struct {
	World   *World
	Bwrap   string        // bubblewrap (default: bwrap on PATH)
	Strace  string        // strace (default: strace on PATH)
	Timeout time.Duration // per line (default 5 s)
	// UID runs the shell as this unprivileged user when the runner is root
	// (setpriv); the template must be readable by it (Own).
	UID int
	// Scratch is where traces are written (default: os.TempDir()).
	Scratch string
}

// NewRunner finds bubblewrap and strace and readies the world for the
// sandbox's user. It fails, with the reason, where either is missing.
func NewRunner(w *World) (*Runner, error) {
	r := &Runner{World: w, Timeout: 5 * time.Second, UID: 1000}
	var err error
	if r.Bwrap, err = look("VIBING_BWRAP", "bwrap"); err != nil {
		return nil, err
	}
	if r.Strace, err = look("VIBING_STRACE", "strace"); err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("setpriv"); err != nil {
			return nil, fmt.Errorf("oracle: running as root needs setpriv to drop to uid %d: %v", r.UID, err)
		}
		if err := chownTree(w.Root, r.UID); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func look(env, name string) (string, error) {
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("oracle: %s not found (run make deps): %v", name, err)
	}
	return p, nil
}

func chownTree(root string, uid int) error {
	return filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
}

// lineShell is the program the line runs in: a bash bound at a path of its
// own, so that the trace shows where the line starts (everything before is
// the sandbox's set-up and the world's copy).
const lineShell = "/oracle/bash"

// traced are the system calls the trace keeps (SPEC §15).
const traced = "execve,execveat,open,openat,openat2,creat,unlink,unlinkat,rename,renameat,renameat2," +
	"link,linkat,symlink,symlinkat,truncate,ftruncate,mkdir,mkdirat,rmdir,chdir,fchdir,connect," +
	"clone,clone3,fork,vfork"

// driver runs the batch inside the sandbox: for each line (NUL-separated
// in /oracle/in/lines) a fresh copy of the world, then the line in the
// line shell under a hard timeout, its output and exit status kept in
// /oracle/out. The copy, the timeout and the driver are not the line's:
// the trace starts each line at the line shell's execve.
const driver = `set -u
i=0
while IFS= read -r -d '' line; do
  if [ -e "$R" ]; then mv "$R" "/tmp/.used-$i" || exit 3; fi
  mkdir -p "$R" && cp -a /oracle/tpl/. "$R"/ || exit 3
  cd "$R/proj" || exit 3
  : </oracle/in/line-$i 2>/dev/null
  timeout -s KILL "$T" ` + lineShell + ` -c "$line" </dev/null >/oracle/out/$i 2>&1
  echo $? >/oracle/out/$i.rc
  cd /
  i=$((i+1))
done </oracle/in/lines`

// Run runs one line and returns what it did.
func (r *Runner) Run(ctx context.Context, line string) (*Effects, error) {
	effs, err := r.RunBatch(ctx, []string{line})
	if err != nil {
		return nil, err
	}
	return effs[0], nil
}

// RunBatch runs lines one after the other in one sandbox, each on a fresh
// copy of the world, and returns what each did. A line that ends the
// sandbox itself (kill -9 -1) keeps what the trace saw of it; the lines
// after it run in a new sandbox. An error means the sandbox did not start.
func (r *Runner) RunBatch(ctx context.Context, lines []string) ([]*Effects, error) {
	out := make([]*Effects, len(lines))
	for done := 0; done < len(lines); {
		n, err := r.runBatch(ctx, lines[done:], out[done:])
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("oracle: the sandbox ran none of %d lines", len(lines)-done)
		}
		done += n
	}
	return out, nil
}

// runBatch runs lines and fills out; it returns how many it has results
// for.
func (r *Runner) runBatch(ctx context.Context, lines []string, out []*Effects) (int, error) {
	dir, err := os.MkdirTemp(r.Scratch, "oracle-batch-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	in, outDir, tracePath := filepath.Join(dir, "in"), filepath.Join(dir, "out"), filepath.Join(dir, "trace")
	var buf bytes.Buffer
	for _, l := range lines {
		if strings.IndexByte(l, 0) >= 0 {
			return 0, fmt.Errorf("oracle: a line holds a NUL byte: %q", l)
		}
		buf.WriteString(l)
		buf.WriteByte(0)
	}
	if err := os.MkdirAll(in, 0o755); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(in, "lines"), buf.Bytes(), 0o644); err != nil {
		return 0, err
	}
	if os.Geteuid() == 0 {
		if err := chownTree(dir, r.UID); err != nil {
			return 0, err
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			return 0, err
		}
	}

	w := r.World
	args := []string{"-f", "-y", "-qq", "-s", "4096", "--seccomp-bpf", "--decode-pids=pidns", "-e", "signal=none", "-e", "trace=" + traced, "-o", tracePath, "--"}
	if os.Geteuid() == 0 {
		id := strconv.Itoa(r.UID)
		args = append(args, "setpriv", "--reuid", id, "--regid", id, "--clear-groups", "--inh-caps=-all")
	}
	args = append(args, r.Bwrap,
		"--unshare-all", "--die-with-parent", "--new-session",
		"--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc",
		"--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
		"--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
		"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/oracle",
		"--ro-bind", w.Root, "/oracle/tpl", "--ro-bind", "/usr/bin/bash", lineShell,
		"--ro-bind", in, "/oracle/in", "--bind", outDir, "/oracle/out",
		"--chdir", "/",
		"--clearenv", "--setenv", "HOME", w.Home, "--setenv", "PATH", "/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin",
		"--setenv", "USER", "oracle", "--setenv", "LANG", "C", "--setenv", "TERM", "dumb",
		"--setenv", "R", w.Root, "--setenv", "T", strconv.Itoa(int(r.Timeout/time.Second)),
		"/usr/bin/bash", "-c", driver)

	ctx, cancel := context.WithTimeout(ctx, time.Duration(len(lines))*(r.Timeout+time.Second)+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.Strace, args...)
	var msg limitedBuffer
	msg.max = 64 << 10
	cmd.Stdout, cmd.Stderr = &msg, &msg
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return 0, ctx.Err()
	}

	trace, err := os.ReadFile(tracePath)
	if err != nil {
		return 0, err
	}
	effs := parseTrace(trace, w.Project)
	if len(effs) == 0 {
		return 0, fmt.Errorf("oracle: the sandbox did not start a line (%v): %s", runErr, bytes.TrimSpace(msg.Bytes()))
	}
	n := 0
	for i := range lines {
		if i >= len(effs) {
			break
		}
		e := effs[i]
		o, _ := os.ReadFile(filepath.Join(outDir, strconv.Itoa(i)))
		if len(o) > 1<<20 {
			o = o[:1<<20]
		}
		e.Output = string(o)
		rc, err := os.ReadFile(filepath.Join(outDir, strconv.Itoa(i)+".rc"))
		out[i] = e
		n = i + 1
		if err != nil {
			// the line ended the sandbox: what the trace saw of it is its
			// result, the rest run again
			e.Exit = -1
			break
		}
		e.Exit, _ = strconv.Atoi(strings.TrimSpace(string(rc)))
		e.TimedOut = e.Exit == 137
	}
	return n, nil
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}
