package main

import (
	"bufio"
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

	"vibing/internal/procs"
	"vibing/internal/run"
	"vibing/internal/sandbox"
	"vibing/internal/testdeps"
)

const (
	stopTreeEnv = "VIBING_TEST_STOP_TREE" // every process of one test's run carries it
	toolCmdline = "sleep\x00300\x00"      // the fake CLI's long tool (tool_group)
	goneWithin  = 2 * time.Second         // for the run's processes, once it exited
)

// stopBinaries builds the pair make builds (vibing-agent lean,
// vibing-agent-full beside it) and the scripted CLI stand-in
// (tests/fakeclaude) into a folder of t's.
func stopBinaries(t *testing.T) (agent, cli string) {
	t.Helper()
	dir := t.TempDir()
	for _, b := range [][]string{
		{"build", "-o", filepath.Join(dir, fullBinary), "."},
		{"build", "-tags", "lean", "-o", filepath.Join(dir, "vibing-agent"), "."},
		{"build", "-o", filepath.Join(dir, "fakeclaude"), "vibing/tests/fakeclaude"},
	} {
		if out, err := exec.Command("go", b...).CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(b, " "), err, out)
		}
	}
	return filepath.Join(dir, "vibing-agent"), filepath.Join(dir, "fakeclaude")
}

// stoppedRun is one vibing-agent run process, started as the editor
// starts it, against the scripted CLI.
type stoppedRun struct {
	t      *testing.T
	dir    string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}

	mu     sync.Mutex
	events []string
}

// startStoppedRun starts agent's run with the fake CLI cli following
// script, sends the prompt, and waits until the CLI's long tool runs.
func startStoppedRun(t *testing.T, agent, cli, script, sandboxSetting string) *stoppedRun {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "project")
	chat := writeChat(t, dir, "---\nvibing.nvim: true\n---\n\n## User\n\nhello\n")
	cfg := filepath.Join(root, "options.yaml")
	must(t, os.WriteFile(cfg, []byte(fmt.Sprintf("audit_path: %s\nsandbox: %s\n", filepath.Join(root, "audit.sqlite"), sandboxSetting)), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "script"), []byte(script), 0o644))
	home := filepath.Join(root, "home")
	must(t, os.MkdirAll(home, 0o755))
	cmd := exec.Command(agent, "run", "--chat", chat, "--config", cfg, "--cwd", dir)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"), "VIBING_CLAUDE_BIN="+cli,
		"FAKECLAUDE_SCRIPT="+filepath.Join(dir, "script"), "FAKECLAUDE_LOG="+filepath.Join(dir, "log"),
		stopTreeEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	must(t, cmd.Start())
	r := &stoppedRun{t: t, dir: dir, cmd: cmd, stdin: stdin, exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<16), 1<<24)
		for sc.Scan() {
			var o run.Output
			_ = json.Unmarshal(sc.Bytes(), &o)
			r.mu.Lock()
			r.events = append(r.events, o.Type+": "+o.Message)
			r.mu.Unlock()
		}
		_ = cmd.Wait()
		close(r.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		for _, p := range r.tree() { // what a failed test left
			_ = syscall.Kill(p.Pid, syscall.SIGKILL)
		}
		<-r.exited
		if t.Failed() {
			t.Logf("events %q; stderr %s", r.seen(), stderr.String())
		}
	})
	data, _ := json.Marshal(run.Input{Type: "prompt", Text: "start the long command"})
	_, err = stdin.Write(append(data, '\n'))
	must(t, err)
	deadline := time.Now().Add(10 * time.Second)
	for len(r.tools()) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the long tool never started; events %q", r.seen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return r
}

func (r *stoppedRun) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// tree lists the live processes of this run (the keeper, bwrap, the CLI,
// its tools): they all inherit the test's variable.
func (r *stoppedRun) tree() []procs.Proc { return procs.WithEnv(stopTreeEnv + "=" + r.dir) }

// tools lists the live processes of the run that are the CLI's long tool.
func (r *stoppedRun) tools() []int {
	var out []int
	for _, p := range r.tree() {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.Pid))
		if string(cmdline) == toolCmdline {
			out = append(out, p.Pid)
		}
	}
	return out
}

// signal sends sig to the run process.
func (r *stoppedRun) signal(sig syscall.Signal) { must(r.t, r.cmd.Process.Signal(sig)) }

// waitExit fails unless the run exits within d of now.
func (r *stoppedRun) waitExit(d time.Duration) time.Duration {
	r.t.Helper()
	start := time.Now()
	select {
	case <-r.exited:
		return time.Since(start)
	case <-time.After(d):
		r.t.Fatalf("vibing-agent run still runs %s after it was told to stop; events %q", d, r.seen())
		return 0
	}
}

// gone fails unless every process in pids has ended within d.
func gone(t *testing.T, what string, pids []int, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for _, pid := range pids {
		for {
			p, ok := procs.Stat(pid)
			if !ok || !p.Alive() {
				break
			}
			if time.Now().After(deadline) {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				t.Fatalf("%s pid %d (%q) still runs %s after the run ended", what, pid, cmdline, d)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// sandboxSettings are the ways the CLI runs: in bubblewrap where it
// starts (the default), and without.
func sandboxSettings(t *testing.T) []string {
	if _, err := sandbox.Find(); err != nil {
		if testdeps.CI() {
			testdeps.Missing(t, "the sandboxed half needs bubblewrap: %v", err)
		}
		t.Logf("without the sandbox only: %v (run make deps for the sandboxed half)", err)
		return []string{"off"}
	}
	return []string{"off", "on"}
}

// TestRunStops stops vibing-agent run, a real process running the scripted
// CLI with a long tool ("sleep 300" in a process group of its own, as the
// Bash tool runs it), the ways a supervisor or the editor stops it: a
// signal, two signals, stdin closing (the editor was killed). Each time the
// run must exit within seconds, and the CLI, its tool and bwrap with it,
// even though stdin stays open after a signal and the CLI, like the real
// one, lives on after it acknowledged the interrupt with a result.
func TestRunStops(t *testing.T) {
	const (
		answers = "init\nprompt\ntool_group\nwait_interrupt\nwait_eof\n" // stops the turn when interrupted, then waits for the next message
		hangs   = "init\nprompt\ntool_group\nhang\n"                     // deaf to the interrupt and to SIGTERM
	)
	tests := []struct {
		name   string
		script string
		stop   func(r *stoppedRun)
		within time.Duration // from the last thing stop did
	}{
		{"SIGTERM", answers, func(r *stoppedRun) { r.signal(syscall.SIGTERM) }, 5 * time.Second},
		{"SIGINT", answers, func(r *stoppedRun) { r.signal(syscall.SIGINT) }, 5 * time.Second},
		// the first signal asks the CLI to stop and waits 2 s for it
		// (run.DefaultCancelGrace); the second does not wait
		{"second SIGTERM ends it at once", hangs, func(r *stoppedRun) {
			r.signal(syscall.SIGTERM)
			time.Sleep(300 * time.Millisecond)
			r.signal(syscall.SIGTERM)
		}, time.Second},
		{"second SIGINT ends it at once", hangs, func(r *stoppedRun) {
			r.signal(syscall.SIGINT)
			time.Sleep(300 * time.Millisecond)
			r.signal(syscall.SIGINT)
		}, time.Second},
		{"stdin closed", answers, func(r *stoppedRun) { r.stdin.Close() }, 5 * time.Second},
		{"stdin closed, the CLI hangs", hangs, func(r *stoppedRun) { r.stdin.Close() }, 5 * time.Second},
	}
	agent, cli := stopBinaries(t)
	for _, sb := range sandboxSettings(t) {
		for _, tt := range tests {
			t.Run("sandbox "+sb+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				r := startStoppedRun(t, agent, cli, tt.script, sb)
				var pids []int
				for _, p := range r.tree() {
					pids = append(pids, p.Pid)
				}
				tools := r.tools()
				tt.stop(r)
				took := r.waitExit(tt.within)
				gone(t, "the long tool", tools, goneWithin)
				gone(t, "a process of the run", pids, goneWithin)
				t.Logf("the run ended %s after it was stopped (%d processes with it); events %q",
					took.Round(time.Millisecond), len(pids), r.seen())
			})
		}
	}
}
