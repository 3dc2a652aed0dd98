package session

import (
	"path/filepath"
)

// maxParts bounds the simple commands DecideParts decides for one line.
const maxParts = 20

// Part is the decision on one simple command of a Bash line, as if it ran
// alone: what an approval shows beside each command of a compound line.
type Part struct {
	Command string // as written in the line
	Decision
}

// DecideParts decides each simple command of a compound Bash line on its
// own (for the approval block: "npm test ✓ allowed by Bash(npm:*)", "rm -rf
// build ? asks"); nil for a line of one command, a line that does not parse
// and other tools. It changes nothing (no shell tracking, no grants): the
// line itself is decided by DecideIn.
func (e *Engine) DecideParts(tool string, input map[string]any, cwd string) []Part {
	env := e.env
	if filepath.IsAbs(cwd) {
		env.Shell = []string{filepath.Clean(cwd)}
	} else {
		env.Shell, env.ShellLost = e.shell.where()
	}
	c := e.prepare(tool, input, env)
	parts := c.Parts()
	if len(parts) < 2 {
		return nil
	}
	if len(parts) > maxParts {
		parts = parts[:maxParts]
	}
	out := make([]Part, 0, len(parts))
	for _, p := range parts {
		out = append(out, Part{Command: p, Decision: e.DecideCall(e.prepare("Bash", map[string]any{"command": p}, env))})
	}
	return out
}
