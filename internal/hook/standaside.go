package hook

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// RunEnv names the environment variable `vibing-agent run` sets for the
// claude process it starts: the run's own process id. A nested claude
// (started by a command the agent runs) inherits it, so the token alone
// proves nothing; InsideRun checks the process tree as well.
const RunEnv = "VIBING_RUN_PID"

// SandboxRun is the token's value for a claude that run starts inside the
// sandbox.
const SandboxRun = "sandbox"

// RunToken is the KEY=VALUE that `vibing-agent run` adds to the
// environment of the claude process it starts.
func RunToken() string { return RunEnv + "=" + strconv.Itoa(os.Getpid()) }

// Process is what InsideRun needs to know about the processes around the
// hook.
type Process struct {
	Getenv   func(string) string
	Getppid  func() int
	ParentOf func(pid int) (int, error)
}

// ThisProcess reads the real environment and /proc.
func ThisProcess() Process {
	return Process{Getenv: os.Getenv, Getppid: os.Getppid, ParentOf: parentOf}
}

// InsideRun reports whether the hook was started by the very claude
// process that `vibing-agent run` started: the hook's parent is the
// session's claude (CLAUDE_PID), and that claude's parent is the run named
// by the token. A claude started by an agent's command has a shell (or
// another process) as its parent, never the run itself, so its calls are
// decided by the hook like any other session's.
//
// Inside the sandbox (SPEC §14) the run is not visible: there the token is
// SandboxRun, and run's claude is process 2 of the sandbox's own process
// ids, the child of bubblewrap's process 1; the sandbox allows no nested
// namespace, so no other process can be that.
func InsideRun(p Process) bool {
	if p.Getenv(RunEnv) == SandboxRun {
		claude, err := strconv.Atoi(p.Getenv("CLAUDE_PID"))
		if err != nil || claude != 2 || p.Getppid() != claude {
			return false
		}
		parent, err := p.ParentOf(claude)
		return err == nil && parent == 1
	}
	run, err := strconv.Atoi(p.Getenv(RunEnv))
	if err != nil || run <= 1 {
		return false
	}
	claude, err := strconv.Atoi(p.Getenv("CLAUDE_PID"))
	if err != nil || claude <= 1 || p.Getppid() != claude {
		return false
	}
	parent, err := p.ParentOf(claude)
	return err == nil && parent == run
}

// parentOf reads a process's parent id from /proc/<pid>/stat (the field
// after the state, which follows the parenthesised command name).
func parentOf(pid int) (int, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 2 {
		return 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	return strconv.Atoi(string(f[1]))
}
