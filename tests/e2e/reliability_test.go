package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"vibing/internal/fakeapi"
	"vibing/internal/procs"
	"vibing/internal/run"
)

// background is a turn that starts a server-like command in the
// background (Claude Code's run_in_background), which outlives its Bash
// call by design.
func background(cmd string) fakeapi.Turn {
	return fakeapi.Turn{Tools: []fakeapi.ToolCall{{Name: "Bash",
		Input: map[string]any{"command": cmd, "description": "dev server", "run_in_background": true}}}}
}

// waitGone fails unless no process of the world is left within d.
func (w *world) waitGone(d time.Duration) {
	w.t.Helper()
	deadline := time.Now().Add(d)
	for {
		left := w.leftovers()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				cmdline, _ := os.ReadFile("/proc/" + itoa(pid) + "/cmdline")
				w.t.Errorf("left behind: pid %d %q", pid, cmdline)
			}
			w.t.FailNow()
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestRealBackgroundCommandEndsWithTurn: a dev server the model starts in
// the background does not outlive the run (the live process: it ends when
// its stdin closes after the last result).
func TestRealBackgroundCommandEndsWithTurn(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "permissions_allow: [\"Bash(sleep:*)\"]\n", "", background("sleep 300"))
	res := w.run(nil)
	if res.code != 0 {
		t.Fatalf("exit %d; events %v; stderr %s", res.code, res.types(), res.stderr)
	}
	if d := res.all("decision"); len(d) != 1 || d[0].Decision != "allow" {
		t.Fatalf("decisions %+v, want the background command allowed", d)
	}
	w.waitGone(3 * time.Second)
}

// TestRealSignalDuringApproval stops the run while an approval waits and a
// background command runs: SIGTERM lets it deny the call and record that;
// SIGKILL gives it no chance, yet the pending call is in the audit log and
// the CLI and its tools end within seconds.
func TestRealSignalDuringApproval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		sig  syscall.Signal
		row  string
	}{
		{"SIGTERM", syscall.SIGTERM, "ask_denied"},
		{"SIGKILL", syscall.SIGKILL, "ask_pending"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, "permissions_allow: [\"Bash(sleep:*)\"]\npermissions_ask: [\"Bash(touch:*)\"]\n", "",
				background("sleep 300"), bash("touch never.txt"))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := w.command(ctx)
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			data, _ := json.Marshal(run.Input{Type: "prompt", Text: "start the server, then touch"})
			stdin.Write(append(data, '\n'))
			var events []run.Output
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				var o run.Output
				_ = json.Unmarshal(sc.Bytes(), &o)
				events = append(events, o)
				if o.Type == "approval_request" {
					time.Sleep(200 * time.Millisecond) // the ask_pending row is written off the loop
					cmd.Process.Signal(tt.sig)
				}
			}
			cmd.Wait()
			var types []string
			for _, e := range events {
				types = append(types, e.Type)
			}
			t.Logf("events %v", types)
			if w.exists("never.txt") {
				t.Error("the call asked about ran")
			}
			rows := auditRows(t, w)
			got := map[string]int{}
			for _, r := range rows {
				got[r.Decision]++
			}
			if len(rows) != 2 || got["allow"] != 1 || got[tt.row] != 1 {
				t.Errorf("audit rows %v, want one allow and one %s", got, tt.row)
			}
			w.waitGone(5 * time.Second)
		})
	}
}

// TestRealRunStops stops the run while the real CLI runs an allowed long
// command ("sleep 300"), with stdin left open after a signal (a supervisor,
// Ctrl-C in a terminal) or closed (the editor was killed): the run exits
// within seconds, and the command, the CLI and bubblewrap with it.
func TestRealRunStops(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		stop func(cmd *exec.Cmd, stdin io.Closer)
	}{
		{"SIGTERM", func(cmd *exec.Cmd, _ io.Closer) { cmd.Process.Signal(syscall.SIGTERM) }},
		{"SIGINT", func(cmd *exec.Cmd, _ io.Closer) { cmd.Process.Signal(syscall.SIGINT) }},
		{"stdin closed", func(_ *exec.Cmd, stdin io.Closer) { stdin.Close() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// (the CLI refuses a command that starts with "sleep 300")
			w := newWorld(t, "permissions_allow: [\"Bash(sleep:*)\", \"Bash(echo:*)\"]\n", "", bash("echo waiting && sleep 300"))
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := w.command(ctx)
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			data, _ := json.Marshal(run.Input{Type: "prompt", Text: "sleep a while"})
			stdin.Write(append(data, '\n'))
			var mu sync.Mutex
			var types []string
			exited := make(chan struct{})
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					var o run.Output
					_ = json.Unmarshal(sc.Bytes(), &o)
					mu.Lock()
					types = append(types, o.Type)
					mu.Unlock()
				}
				cmd.Wait()
				close(exited)
			}()
			seen := func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), types...) }
			sleeper := 0
			for deadline := time.Now().Add(30 * time.Second); sleeper == 0; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the command never started; events %v", seen())
				}
				for _, pid := range w.leftovers() {
					if cmdline, _ := os.ReadFile("/proc/" + itoa(pid) + "/cmdline"); string(cmdline) == "sleep\x00300\x00" {
						sleeper = pid
					}
				}
			}
			tree := w.leftovers()
			tt.stop(cmd, stdin)
			start := time.Now()
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				t.Fatalf("vibing-agent run still runs 10 s after it was stopped; events %v", seen())
			}
			t.Logf("the run ended %s after it was stopped (%d processes in its tree); events %v",
				time.Since(start).Round(time.Millisecond), len(tree), seen())
			w.waitGone(3 * time.Second)
			if p, ok := procs.Stat(sleeper); ok && p.Alive() {
				t.Errorf("the command (pid %d) outlived the run", sleeper)
			}
		})
	}
}
