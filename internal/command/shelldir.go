package command

import "path/filepath"

// A Bash call need not start in the working directory. Claude Code runs
// every Bash call in a new shell, started in the folder the last call that
// exited 0 ended in (pwd -P), as long as that folder lies inside the
// project; it names that folder as "cwd" in the PreToolUse hook input.
// Env.Shell carries it into Prepare: the walker (cwd.go) starts there, so
// the line's relative paths resolve from the folder the shell is really
// in, while rules stay anchored at Env.Cwd. Where no one says where the
// shell is, ShellAfter tells what a line may have done to it.

// begin sets where the line starts, and returns that state.
func (w *shellWalker) begin() dirState {
	env := w.c.Env
	var dirs []string
	if len(env.Shell) == 0 {
		w.c.cwdStart[0] = env.Cwd // (no allocation for the usual start)
		dirs = w.c.cwdStart[:]
	} else {
		dirs = env.shellDirs()
	}
	w.c.starts = dirs[:len(dirs):len(dirs)]
	start := dirState{dirs: dirs, unknown: env.ShellLost}
	if len(dirs) > maxDirs {
		start.dirs, start.unknown = dirs[:maxDirs:maxDirs], true
	}
	w.dir, w.succ = start, start
	if len(w.seen) == 0 && len(dirs) <= MaxSeen {
		w.seen = w.c.starts // the same folders, each once; an append copies
	} else {
		w.see(dirs) // an unknown folder tries every one of them
	}
	if env.ShellLost {
		// the folder an earlier line went to is not known: a relative
		// path may name anything, so deny and ask file rules fire on it
		w.seenFull = true
	}
	return start
}

// end records where the shell may be once the line ran: where it started
// (the line failed, or its cd did) or wherever the line may have moved it;
// and whether a cd, pushd or popd anywhere on the line (in a subshell too)
// goes to a folder only known at run time (Call.CdUnknown).
func (w *shellWalker) end(start dirState) {
	after := union(start, w.dir)
	after.stack = nil // every call runs in a new shell: the pushd stack is gone
	if w.c.Err != nil {
		after.unknown = true // the line was not followed to its end
	}
	w.after = after
	w.c.shellAfter = &w.after // kept with the walker, which is allocated anyway
	w.c.CdUnknown = false
	for i := range w.c.Commands {
		if _, cd, known := cdKnown(&w.c.Commands[i]); cd && !known {
			w.c.CdUnknown = true // (as the guard reads a line: see cdKnown)
			break
		}
	}
}

// ShellAfter reports where a shell that keeps its folder from one call to
// the next (as Claude Code's Bash does) may be once this call ran: the
// folders the call started in (a line that fails, or whose cd fails,
// leaves the shell there) and every folder the line may end in. lost says
// it may also be in a folder only known at run time (cd "$D", source, a
// line that could not be followed). Only Bash moves the shell.
func (c *Call) ShellAfter() (dirs []string, lost bool) {
	if c.shellAfter != nil {
		return append([]string(nil), c.shellAfter.dirs...), c.shellAfter.unknown
	}
	dirs = c.Env.shellDirs()
	if c.Tool == "Bash" {
		return dirs, true // the line was not followed (too long, not a string)
	}
	return dirs, c.Env.ShellLost
}

// ShellStart reports the folders the call's Bash line starts in (Env.Shell
// spelled from Cwd, or Cwd), and whether it may start somewhere else too.
func (c *Call) ShellStart() (dirs []string, lost bool) {
	if c.starts != nil {
		return c.starts, c.Env.ShellLost // never changed in place; full, so an append copies
	}
	return c.Env.shellDirs(), c.Env.ShellLost
}

// shellDirs returns the folders a Bash line starts in: Shell, or Cwd.
func (e Env) shellDirs() []string {
	if len(e.Shell) == 0 {
		return []string{e.Cwd}
	}
	out := make([]string, 0, len(e.Shell))
	for _, d := range e.Shell {
		out = AddDirs(out, []string{e.spell(d)})
	}
	return out
}

// spell cleans a shell folder and, when it lies in the real path of Cwd
// (the CLI reports the physical folder, while the chat may name its
// working directory through a symlink), spells it from Cwd: the same
// place, named as the rules anchored at Cwd see it.
func (e Env) spell(d string) string {
	if !filepath.IsAbs(d) {
		d = e.Cwd + "/" + d
	}
	d = filepath.Clean(d)
	if e.Cwd == "" || Inside(d, e.Cwd) {
		return d
	}
	real := RealDir(e.Cwd)
	switch r, ok := Rel(d, real); {
	case real == e.Cwd:
	case d == real:
		return e.Cwd
	case ok:
		return joinDir(e.Cwd, r)
	}
	return d
}
