package hook_test

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"vibing/internal/hook"
)

// FirstChildOf finds, among real children, the one started first.
func TestFirstChildOf(t *testing.T) {
	var cmds []*exec.Cmd
	for i := 0; i < 3; i++ {
		c := exec.Command("sleep", "5")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
		time.Sleep(30 * time.Millisecond) // start times differ by clock ticks (10 ms)
	}
	defer func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}()
	got, err := hook.ThisProcess().FirstChildOf(os.Getpid())
	if err != nil {
		t.Fatalf("FirstChildOf: %v", err)
	}
	if got != cmds[0].Process.Pid {
		t.Errorf("FirstChildOf = %d, want the first child %d (children %d %d %d)", got, cmds[0].Process.Pid,
			cmds[0].Process.Pid, cmds[1].Process.Pid, cmds[2].Process.Pid)
	}
}
