package session

import (
	"path/filepath"
	"sync"

	"vibing/internal/command"
)

// shellTrack remembers where the agent's shell may be, for a call whose
// backend does not say. Claude Code's Bash keeps a cd from one call to the
// next (and names the folder in every hook input); a backend that does not
// name it leaves the engine to follow the lines it let through.
type shellTrack struct {
	mu   sync.Mutex
	dirs []string // folders the shell may be in; nil: only the working directory
	lost bool     // it may also be in a folder only known at run time
}

// maxShellDirs bounds the folders remembered; past it the folder counts as lost.
const maxShellDirs = 16

// DecideIn runs the pipeline for one call of a running agent whose shell is
// in the folder cwd (Claude Code's hook input "cwd": its Bash keeps a cd
// between calls). A Bash line's relative paths resolve from there, while
// rules stay anchored at the chat's working directory. cwd "" (or not an
// absolute path) means the agent did not say: the line then starts in every
// folder an earlier line this engine let through may have left the shell
// in, and after a cd to a place only known at run time its relative paths
// fail closed (deny and ask file rules fire on them).
func (e *Engine) DecideIn(tool string, input map[string]any, cwd string) Decision {
	env := e.env
	if filepath.IsAbs(cwd) {
		env.Shell = []string{filepath.Clean(cwd)}
	} else {
		env.Shell, env.ShellLost = e.shell.where()
	}
	c := e.prepareFor(tool, input, env)
	d := e.DecideCall(c)
	if c.Tool == "Bash" && d.Decision != Deny {
		// it may run (now, or once the person approves): remember where
		// it may leave the shell, whatever order the calls run in
		e.shell.moved(c.ShellAfter())
	}
	command.Release(c) // the decision holds strings only: nothing of c outlives it
	return d
}

// where returns the folders a call the agent says nothing about may start in.
func (s *shellTrack) where() ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dirs, s.lost
}

// moved adds the folders a line may leave the shell in. The set only grows:
// calls of one turn may run in parallel, so none of them proves where the
// shell is afterwards.
func (s *shellTrack) moved(dirs []string, lost bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := append([]string(nil), s.dirs...)
	for _, d := range dirs {
		if !containsString(next, d) {
			next = append(next, d)
		}
	}
	s.dirs = next
	s.lost = s.lost || lost || len(next) > maxShellDirs
	if len(next) > maxShellDirs {
		s.dirs = next[:maxShellDirs:maxShellDirs]
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
