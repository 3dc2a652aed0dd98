package claude_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vibing/internal/run"
)

// TestNothingLeftBehind ends a turn every way it can end, with a tool
// running in a process group of its own and a background server that
// left the tree's session and environment, and checks that the run ends
// within seconds and no process is left: the spawned pids are gone and
// /proc holds nothing with the run's marker.
func TestNothingLeftBehind(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		cancel  bool
		closeIn bool
		idle    time.Duration
		ok      bool   // the run ends with a result
		want    string // in the error otherwise
	}{
		{"result", "init\nprompt\ntool_group\ndaemon\nresult\nwait_eof\n", false, false, 0, true, ""},
		{"result, CLI ignores EOF", "init\nprompt\ntool_group\ndaemon\nresult\nsleep 5000\n", false, false, 0, true, ""},
		{"CLI crash mid-tool", "init\nprompt\ntool_group\ndaemon\ncrash\n", false, false, 0, false, "without a result"},
		{"cancel while the CLI hangs", "init\nprompt\ntool_group\ndaemon\nhang\n", true, false, 0, false, "cancelled"},
		{"garbage", "init\nprompt\ntool_group\ndaemon\ngarbage\nwait_eof\n", false, false, 0, false, "not stream-json"},
		{"editor gone", "init\nprompt\ntool_group\ndaemon\nsleep 100\nresult\nwait_eof\n", false, true, 0, true, ""},
		// nobody is left to see or answer it: the turn is cancelled
		{"editor gone, the CLI hangs", "init\nprompt\ntool_group\ndaemon\nhang\n", false, true, 0, false, "cancelled"},
		{"idle timeout", "init\nprompt\ntool_group\ndaemon\nhang\n", false, false, 300 * time.Millisecond, false, "sent nothing"},
		{"idle timeout mid-line", "init\nprompt\ntool_group\ndaemon\npartial\nhang\n", false, false, 300 * time.Millisecond, false,
			"sent only an incomplete line of 35 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tu := &turn{t: t, script: tt.script, timeout: 5 * time.Second, idle: tt.idle, closeAfterPrompt: tt.closeIn}
			if tt.cancel {
				tu.respond = func(o run.Output, send func(run.Input)) {
					if o.Type == "session" {
						go func() { time.Sleep(200 * time.Millisecond); send(run.Input{Type: "cancel"}) }()
					}
				}
			}
			start := time.Now()
			tu.run()
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("the run took %s to end", took.Round(time.Millisecond))
			}
			if tt.ok != (tu.err == nil) {
				t.Fatalf("Run() = %v; events %v", tu.err, tu.types())
			}
			if !tt.ok && !strings.Contains(tu.first("error").Message, tt.want) {
				t.Errorf("error = %q, want it to mention %q", tu.first("error").Message, tt.want)
			}
			nothingLeft(t, tu.log, 2*time.Second)
		})
	}
}

// TestRunKilled kills the run itself (SIGKILL: no clean-up of its own)
// while a tool runs: the CLI and everything it started end within seconds.
func TestRunKilled(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script, logPath := filepath.Join(dir, "script"), filepath.Join(dir, "log")
	os.WriteFile(script, []byte("init\nprompt\ntool_group\ndaemon\nhang\n"), 0o644)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), runHelperEnv+"="+fakeBin+"|"+script+"|"+logPath)
	stdin, _ := cmd.StdinPipe()
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Write([]byte(`{"type":"prompt","text":"go"}` + "\n"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(logPath)
		if strings.Count(string(data), `"spawned"`) == 2 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the fake CLI never started its tools; log:\n%s", data)
		}
		time.Sleep(20 * time.Millisecond)
	}
	data, _ := os.ReadFile(logPath)
	log := parseLog(data)
	cli := int(log[0]["pid"].(float64))
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	start := time.Now()
	nothingLeft(t, log, 5*time.Second)
	for alive(cli) {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("the CLI (pid %d) outlived the killed run by 5 s", cli)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("everything ended %s after the run was killed", time.Since(start).Round(time.Millisecond))
}
