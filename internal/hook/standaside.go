package hook

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"vibing/internal/procs"
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
	// FirstChildOf is the child of pid that started first (the run's
	// keeper starts the CLI before anything else can exist below it).
	FirstChildOf func(pid int) (int, error)
}

// ThisProcess reads the real environment and /proc.
func ThisProcess() Process {
	return Process{Getenv: os.Getenv, Getppid: os.Getppid, ParentOf: parentOf, FirstChildOf: firstChildOf}
}

// InsideRun reports whether the hook was started by the very claude
// process that `vibing-agent run` started: the hook's parent is the
// session's claude (CLAUDE_PID), and that claude's parent is the run named
// by the token — or the run's keeper (internal/procs), a child of the run,
// of which that claude is the first child: the keeper adopts orphans, so a
// nested claude whose shell died can become its child too, but only after
// the run's own claude. A claude started by an agent's command otherwise
// has a shell (or another process) as its parent, so its calls are decided
// by the hook like any other session's.
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
	if err != nil || parent <= 1 {
		return false
	}
	if parent == run {
		return true
	}
	if grand, err := p.ParentOf(parent); err != nil || grand != run || p.FirstChildOf == nil {
		return false
	}
	first, err := p.FirstChildOf(parent)
	return err == nil && first == claude
}

// firstChildOf reads the children of pid (/proc/PID/task/*/children: each
// thread lists the children it forked, and a Go keeper forks from any of
// its threads) and returns the one with the earliest start time.
func firstChildOf(pid int) (int, error) {
	files, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if err != nil || len(files) == 0 {
		return 0, fmt.Errorf("cannot list the children of process %d", pid)
	}
	var data []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		data = append(append(data, b...), ' ')
	}
	best, bestStart := 0, uint64(0)
	for _, f := range bytes.Fields(data) {
		child, err := strconv.Atoi(string(f))
		if err != nil {
			continue
		}
		start, err := startTime(child)
		if err != nil {
			continue
		}
		if best == 0 || start < bestStart || (start == bestStart && child < best) {
			best, bestStart = child, start
		}
	}
	if best == 0 {
		return 0, fmt.Errorf("process %d has no children", pid)
	}
	return best, nil
}

// startTime is a process's start (clock ticks after boot).
func startTime(pid int) (uint64, error) {
	p, ok := procs.Stat(pid)
	if !ok || p.StartTime == 0 {
		return 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	return p.StartTime, nil
}

// parentOf reads a process's parent id from /proc/<pid>/stat.
func parentOf(pid int) (int, error) {
	p, ok := procs.Stat(pid)
	if !ok {
		return 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	return p.PPid, nil
}
