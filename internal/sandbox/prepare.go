package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"vibing/internal/matcher"
	"vibing/internal/procs"
)

// Options say how a view becomes a bwrap command line.
type Options struct {
	// Terminal keeps the controlling terminal (vibing-agent claude): no
	// --new-session, so the person's keys reach the CLI.
	Terminal bool
	// StateDir holds the list of placeholders bwrap created on disk, so a
	// run that died leaves none behind for long ("" = no list).
	StateDir string
	// Show are more folders the sandbox shows read-only at their own path
	// (the audit relay's socket folder, which may lie in the private /tmp).
	Show []string
	// Interactive says the CLI talks to a person (no -p): the trust they
	// give a folder in the CLI's dialog is carried back to ~/.claude.json.
	Interactive bool
	// Warn tells the person what the sandbox could not do after the
	// command ended (a change to ~/.claude.json it did not carry back);
	// nil: not told.
	Warn func(string)
}

// Prepared is a view ready to run: the bwrap arguments (up to the "--"
// before the command) and what to undo after the command ended.
type Prepared struct {
	Args []string
	// Env are the KEY=VALUE entries the command needs in there.
	Env    []string
	claude *claudeState
	dir    string   // our empty file and folder
	made   []string // placeholders bwrap creates as mount points (missing paths in writable folders)
	opts   Options
	lock   *os.File
}

// Prepare makes the placeholders and the arguments. Cleanup must be called
// once the command ended.
func (v *View) Prepare(o Options) (*Prepared, error) {
	dir, err := os.MkdirTemp("", "vibing-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	p := &Prepared{dir: dir, opts: o}
	emptyFile, emptyDir := filepath.Join(dir, "empty"), filepath.Join(dir, "emptydir")
	if err := os.WriteFile(emptyFile, nil, 0o444); err != nil {
		p.Cleanup()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if err := os.Mkdir(emptyDir, 0o555); err != nil {
		p.Cleanup()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	p.lock = lockShared(o.StateDir)
	sweep(o.StateDir, p.lock)

	a := append([]string(nil), baseFlags...)
	if !o.Terminal {
		a = append(a, "--new-session")
	}
	a = append(a, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp")
	for _, vis := range append(append([]string(nil), v.Visible...), o.Show...) {
		a = append(a, "--ro-bind", vis, vis)
	}
	ws := append([]Entry(nil), v.Writable...)
	sort.SliceStable(ws, func(i, j int) bool { return len(ws[i].Path) < len(ws[j].Path) })
	for _, w := range ws {
		if w.Missing {
			if err := os.MkdirAll(w.Path, 0o700); err != nil {
				continue // the CLI makes it, or fails with its own message
			}
		}
		a = append(a, "--bind", w.Path, w.Path)
	}
	cs, err := v.prepareClaudeState(dir, o.Interactive)
	if err != nil {
		p.Cleanup()
		return nil, err
	}
	if cs != nil {
		p.claude = cs
		a = append(a, "--bind", cs.copy, cs.mount)
		p.Env = append(p.Env, "CLAUDE_CONFIG_DIR="+filepath.Dir(cs.mount))
		if cs.placed {
			p.made = append(p.made, cs.mount)
		}
	}
	var roDirs []string
	for _, e := range v.ReadOnly {
		if e.Dir {
			roDirs = append(roDirs, e.Path)
		}
	}
	var hidDirs []string
	for _, e := range v.Hidden {
		if e.Dir {
			hidDirs = append(hidDirs, e.Path)
		}
	}
	ro := sortedByLength(v.ReadOnly)
	for _, e := range ro {
		if !e.Bound || below(e.Path, roDirs) || below(e.Path, hidDirs) || !v.shows(e.Path) {
			continue
		}
		src := e.Path
		if e.Missing {
			src = emptyFile
			if e.Dir {
				src = emptyDir
			}
			p.made = append(p.made, e.Path)
		}
		a = append(a, "--ro-bind", src, e.Path)
	}
	for _, e := range sortedByLength(v.Hidden) {
		if below(e.Path, hidDirs) || !v.shows(e.Path) {
			continue
		}
		src := emptyFile
		if e.Dir {
			src = emptyDir
		}
		a = append(a, "--ro-bind", src, e.Path)
	}
	a = append(a, "--chdir", v.Cwd)
	p.Args = a
	p.record()
	return p, nil
}

// shows reports whether p is in the sandbox at all: below /tmp only what
// is bound over the private /tmp shows.
func (v *View) shows(p string) bool {
	if !matcher.Within(p, "/tmp") {
		return true
	}
	for _, vis := range v.Visible {
		if matcher.Within(p, vis) {
			return true
		}
	}
	for _, w := range v.Writable {
		if matcher.Within(p, w.Path) {
			return true
		}
	}
	return false
}

// below reports whether p lies strictly inside one of dirs.
func below(p string, dirs []string) bool {
	for _, d := range dirs {
		if p != d && matcher.Within(p, d) {
			return true
		}
	}
	return false
}

func sortedByLength(in []Entry) []Entry {
	out := append([]Entry(nil), in...)
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Path) < len(out[j].Path) })
	return out
}

// Wrap puts bwrap in front of the program cmd runs: bwrap ARGS -- PROGRAM
// ARGS, inside the keeper when cmd runs one (internal/procs), so the keeper
// stays outside and ends the whole sandbox.
func (p *Prepared) Wrap(cmd *exec.Cmd, bwrap string) {
	prefix := append([]string{bwrap}, p.Args...)
	procs.Prefix(cmd, append(prefix, "--"))
	if len(p.Env) > 0 {
		if cmd.Env == nil {
			cmd.Env = os.Environ()
		}
		cmd.Env = append(cmd.Env, p.Env...)
	}
}

// Cleanup removes the placeholders bwrap made as mount points (when they
// are still empty and no other sandbox runs) and our own files.
func (p *Prepared) Cleanup() {
	if p == nil {
		return
	}
	if p.claude != nil {
		dropped, err := p.claude.sync()
		p.claude = nil
		p.warn(dropped, err)
	}
	if p.lock != nil {
		_ = syscall.Flock(int(p.lock.Fd()), syscall.LOCK_UN)
		sweep(p.opts.StateDir, p.lock)
		_ = p.lock.Close()
		p.lock = nil
	}
	if p.dir != "" {
		_ = os.Chmod(filepath.Join(p.dir, "emptydir"), 0o700)
		_ = os.RemoveAll(p.dir)
		p.dir = ""
	}
}

// warn names what was not carried back into ~/.claude.json.
func (p *Prepared) warn(dropped []string, err error) {
	if p.opts.Warn == nil {
		return
	}
	if len(dropped) > 0 {
		p.opts.Warn(fmt.Sprintf("changes the sandboxed session made to ~/.claude.json that can run code or grant permissions are not kept: %s (make them outside the sandbox, e.g. claude mcp add)",
			strings.Join(dropped, ", ")))
	}
	if err != nil {
		p.opts.Warn(fmt.Sprintf("the claude CLI's state (~/.claude.json) from the sandboxed session could not be saved: %v", err))
	}
}

const placeholderList = "sandbox-placeholders"

// record adds the placeholders bwrap is about to make to the list in the
// state folder, so that a run killed before its Cleanup leaves them to the
// next run's sweep.
func (p *Prepared) record() {
	if p.opts.StateDir == "" || len(p.made) == 0 {
		return
	}
	if err := os.MkdirAll(p.opts.StateDir, 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(p.opts.StateDir, placeholderList), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(strings.Join(p.made, "\n") + "\n")
}

// lockShared takes a shared lock that every running sandbox holds: the
// placeholders are removed only when none runs (another sandbox may have
// its mount on one).
func lockShared(stateDir string) *os.File {
	if stateDir == "" {
		return nil
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(stateDir, "sandbox.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		_ = f.Close()
		return nil
	}
	return f
}

// sweep removes the listed placeholders that are still empty, when no other
// sandbox runs (an exclusive lock can be had at once); lock is the caller's
// lock file (shared or released).
func sweep(stateDir string, lock *os.File) {
	if stateDir == "" || lock == nil {
		return
	}
	list := filepath.Join(stateDir, placeholderList)
	data, err := os.ReadFile(list)
	if err != nil || len(data) == 0 {
		return
	}
	fd := int(lock.Fd())
	if syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return // another sandbox runs: its mounts may sit on them
	}
	defer func() { _ = syscall.Flock(fd, syscall.LOCK_SH) }()
	for _, p := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if p != "" {
			removeIfEmpty(p) // one with content is the person's now
		}
	}
	_ = os.Remove(list)
}

// removeIfEmpty removes p when it is an empty regular file or an empty
// folder, and reports whether it did.
func removeIfEmpty(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil {
		return false
	}
	switch {
	case fi.Mode().IsRegular() && fi.Size() == 0:
	case fi.IsDir():
		f, err := os.Open(p)
		if err != nil {
			return false
		}
		_, err = f.Readdirnames(1)
		f.Close()
		if !errors.Is(err, io.EOF) {
			return false
		}
	default:
		return false
	}
	return os.Remove(p) == nil
}
