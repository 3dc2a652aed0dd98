// Package selfexe names the files vibing-agent runs from. make installs
// three builds of it side by side: bin/vibing-agent, the lean build that
// check and hook run in; bin/vibing-agent-full, which runs audit, rpc and
// run for it; and bin/vibing-agent-otel, the full build with the audit
// export's OpenTelemetry sender, which those start when the export is on.
// Whichever is running, all three run with the person's rights: all are
// guarded against the agent and shown read-only in the sandbox.
package selfexe

import (
	"os"
	"path/filepath"
)

// The names of the builds.
const (
	Lean = "vibing-agent"
	Full = "vibing-agent-full"
	Otel = "vibing-agent-otel"
)

// Pair returns exe and, when exe bears one of the builds' names, the other
// builds beside it, whether or not a file is there yet: a build the agent
// could put there would run the next command.
func Pair(exe string) []string {
	if exe == "" {
		return nil
	}
	dir, base := filepath.Split(exe)
	switch base {
	case Lean, Full, Otel:
		out := []string{exe}
		for _, b := range []string{Lean, Full, Otel} {
			if b != base {
				out = append(out, filepath.Join(dir, b))
			}
		}
		return out
	}
	return []string{exe}
}

// Path is this program's absolute path, symlinks resolved.
func Path() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return p, nil
}

// HookCommand is the program a Claude Code hook entry runs: the lean
// build beside this one when this is vibing-agent-full and the lean build
// is there (it starts faster), else this program.
func HookCommand() (string, error) {
	p, err := Path()
	if err != nil {
		return "", err
	}
	if filepath.Base(p) == Full {
		lean := filepath.Join(filepath.Dir(p), Lean)
		if fi, err := os.Stat(lean); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return lean, nil
		}
	}
	return p, nil
}
