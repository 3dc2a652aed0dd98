package session

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"vibing/internal/command"
	"vibing/internal/config"
)

// guardedPaths lists what no tool call may modify: the project's .vibing
// folder, the chat file, the user's config file, vibing's state folder (audit
// database) and the user's vibing configuration folder.
func guardedPaths(cfg *config.Config, opts Options, env command.Env) []string {
	root := opts.ProjectRoot
	if root == "" {
		root = env.Cwd
	}
	var out []string
	add := func(p string) { out = appendGuard(out, p, env) }
	add(filepath.Join(root, ".vibing"))
	add(filepath.Join(env.Cwd, ".vibing"))
	add(opts.ChatFile)
	add(opts.ConfigFile)
	add(cfg.AuditDB())
	add(config.StateDir())
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		add(filepath.Join(d, "vibing"))
	} else if env.Home != "" {
		add(filepath.Join(env.Home, ".config", "vibing"))
	}
	return out
}

// guardList returns the guarded paths, resolving them the first time.
func (e *Engine) guardList() []string {
	e.guardOnce.Do(func() {
		if e.guardMake != nil { // nil: an engine whose environment could not be read (it denies every call)
			e.guarded = e.guardMake()
		}
		e.guardBase = make([]string, len(e.guarded))
		for i, g := range e.guarded {
			e.guardBase[i] = filepath.Base(g)
		}
	})
	return e.guarded
}

// appendGuard adds p, and its resolved target where that differs, to out.
func appendGuard(out []string, p string, env command.Env) []string {
	if p == "" {
		return out
	}
	r := command.ResolvePath(p, env)
	// each once: every call is checked against the whole list
	if !slices.Contains(out, r.Abs) {
		out = append(out, r.Abs)
	}
	if r.Real != r.Abs && !slices.Contains(out, r.Real) {
		out = append(out, r.Real)
	}
	return out
}

// guard is step 1: it reports the guarded path that c would modify.
func (e *Engine) guard(c *command.Call) (string, bool) {
	if c.Tool != "Bash" {
		// a file tool writes one path (no slice of copies for it)
		if c.Edits && c.Path != nil {
			return e.guardedBy(c.Path)
		}
		return "", false
	}
	if c.Err != nil {
		// The line could not be parsed: refuse when it so much as names a
		// guarded place.
		for _, g := range e.guardList() {
			if strings.Contains(c.Command, filepath.Base(g)) {
				return g, true
			}
		}
	}
	// A "cd dir && rm x" changes what a relative path means, and a cd
	// inside a subshell does not last: check every relative target
	// against the working directory and every folder the line changes
	// into. When a cd goes somewhere only known at run time, a relative
	// target that names a guarded file or folder is refused outright.
	starts, lost := c.ShellStart() // where the shell is: a cd lasts between calls
	cds, unknown := cdTargets(c, starts)
	unknown = unknown || lost
	var buf [4]command.Path // most lines start in one folder and change into none
	dirs := append(buf[:0], cds...)
	for _, d := range starts {
		dirs = append(dirs, command.Path{Abs: d})
	}
	dirs = append(dirs, command.Path{Abs: e.env.Cwd})
	dirs = uniqueDirs(dirs)
	var resolved []command.Path // the relative targets, from each folder
	for _, p := range c.Modifies {
		if p.Raw == "" || filepath.IsAbs(p.Raw) || strings.HasPrefix(p.Raw, "~") {
			continue
		}
		for _, dir := range dirs {
			resolved = append(resolved, command.ResolvePath(p.Raw, command.Env{Cwd: dir.Abs, Home: e.env.Home}))
		}
		if unknown {
			if g, ok := e.namesGuarded(p.Raw); ok {
				return g, true
			}
		}
	}
	if g, ok := e.namedByOpaque(c, dirs); ok {
		return g, true
	}
	if len(c.Unseen()) > 0 {
		// a command the engine cannot see through, on a line that names
		// a guarded place anywhere: refuse rather than guess
		if g, ok := e.mentionsGuarded(c, c.Command, dirs); ok {
			return g, true
		}
	}
	for _, paths := range [2][]command.Path{c.Modifies, resolved} {
		for i := range paths {
			if g, ok := e.guardedBy(&paths[i]); ok {
				return g, true
			}
		}
	}
	return "", false
}

// guardedBy reports the guarded path a write of p may change.
func (e *Engine) guardedBy(p *command.Path) (string, bool) {
	same := p.Real == p.Abs
	for _, g := range e.guardList() {
		if under(p.Abs, g) || (!same && under(p.Real, g)) {
			return g, true
		}
		if p.Inside() && (within(g, p.Abs) || within(g, p.Real)) && namedReaches(p, g) {
			return g, true // writes names it does not spell out in a folder that holds g
		}
	}
	return "", false
}

// under is within(p, g), first told by one byte: a guarded path and the
// path of a call mostly share a long start (the project's folder), and the
// byte where g ends rarely agrees when p is not below it.
func under(p, g string) bool {
	if n := len(g); n > 1 && g[n-1] != '/' && (len(p) < n || p[n-1] != g[n-1]) {
		return false
	}
	return within(p, g)
}

// uniqueDirs drops repeated folders (the shell's folder is usually the
// working directory): each costs a look-up per word.
func uniqueDirs(dirs []command.Path) []command.Path {
	out := dirs[:0]
next:
	for _, d := range dirs {
		for _, o := range out {
			if o.Abs == d.Abs {
				continue next
			}
		}
		out = append(out, d)
	}
	return out
}

// cdTargets returns the folders a Bash line changes into (resolved from
// every folder it starts in), and whether some change goes to a folder
// only known at run time.
func cdTargets(c *command.Call, starts []string) (dirs []command.Path, unknown bool) {
	for _, cmd := range c.Commands {
		if len(cmd.Args) == 0 {
			continue
		}
		switch cmd.Args[0] {
		case "cd", "pushd", "popd":
		default:
			continue
		}
		if len(cmd.Args) < 2 || cmd.Dynamic || cmd.Args[0] == "popd" {
			unknown = true
			continue
		}
		for _, base := range starts {
			dirs = append(dirs, command.ResolvePath(cmd.Args[len(cmd.Args)-1], command.Env{Cwd: base, Home: c.Env.Home}))
		}
	}
	return dirs, unknown
}

// namesGuarded reports whether a relative path has a component named like a
// guarded file or folder (".vibing", the chat file's name).
func (e *Engine) namesGuarded(raw string) (string, bool) {
	for _, part := range strings.Split(filepath.Clean(raw), "/") {
		for _, g := range e.guardList() {
			if part == filepath.Base(g) {
				return g, true
			}
		}
	}
	return "", false
}

// within reports whether p is dir or lies below it.
func within(p, dir string) bool { return command.Within(p, dir) }

// namedByOpaque reports a guarded path named by a command that is not known
// to only read: its effect on the files it names cannot be told from its
// words, so the guard fails closed. Relative words are tried from every
// folder in dirs (where the line starts and the folders it changes into);
// when one of those lies in a guarded folder, any such command is refused
// (a script names its files in ways no word shows: rmtree('chat')).
func (e *Engine) namedByOpaque(c *command.Call, dirs []command.Path) (string, bool) {
	looked := false
	for i := range c.Commands {
		cmd := &c.Commands[i] // (no copy of each command)
		if len(cmd.Args) == 0 || cmd.ReadOnly() {
			continue
		}
		if !looked {
			// the guarded paths are needed from the first command that may
			// change something on: a read-only line never resolves them
			looked = true
			if g, ok := e.guardedDir(dirs); ok {
				return g, true
			}
		}
		for _, a := range cmd.Args[1:] {
			if g, ok := e.mentionsGuarded(c, a, dirs); ok {
				return g, true
			}
		}
	}
	return "", false
}

// guardedDir reports the guarded folder one of dirs lies in.
func (e *Engine) guardedDir(dirs []command.Path) (string, bool) {
	for _, d := range dirs {
		for _, g := range e.guardList() {
			if within(d.Abs, g) || within(d.Real, g) {
				return g, true
			}
		}
	}
	return "", false
}

// mentionsGuarded reports whether a word names a guarded path: as a path
// (after an "x=" prefix), or inside a script text by the guarded folder's or
// file's distinctive name. A word is looked up for c (Call.Exists): the file
// rules that resolve it later read the same look-up.
func (e *Engine) mentionsGuarded(c *command.Call, w string, dirs []command.Path) (string, bool) {
	cands := []string{w}
	if i := strings.IndexByte(w, '='); i >= 0 {
		cands = append(cands, w[i+1:])
	}
	for _, cand := range cands {
		if cand == "" || strings.HasPrefix(cand, "-") {
			continue
		}
		for _, dir := range dirs {
			if !mayBePath(c, cand, dir.Abs) {
				continue
			}
			p := c.ResolveWord(cand, command.Env{Cwd: dir.Abs, Home: e.env.Home})
			for _, g := range e.guardList() {
				if within(p.Abs, g) || within(p.Real, g) {
					return g, true
				}
			}
			if filepath.IsAbs(cand) || strings.HasPrefix(cand, "~") {
				break // the same path from every folder
			}
		}
	}
	for i, g := range e.guardList() {
		base := e.guardBase[i]
		if strings.Contains(w, g) || (base == ".vibing" || base == e.chatBase) && strings.Contains(w, base) {
			return g, true
		}
	}
	return "", false
}

// mayBePath is a cheap filter before resolving a word as a path (which costs
// a look-up per folder): a word with a "/" or "~", or the name of something
// that exists in dir (one lstat per name for the call c, whether or not it
// is a symlink and its target exists).
func mayBePath(c *command.Call, w, dir string) bool {
	if strings.ContainsAny(w, "/~") {
		return true
	}
	if strings.ContainsAny(w, " \t\n") {
		return false // a script text: looked at by name only
	}
	return c.Exists(joinName(dir, w))
}

// joinName is filepath.Join(dir, name) for a name without a "/": in a
// clean absolute folder, the two joined by a slash, without a cleaning pass.
func joinName(dir, name string) string {
	switch {
	case name == "" || name == "." || name == ".." || strings.Contains(name, "/") || !cleanAbs(dir):
		return filepath.Join(dir, name)
	case dir == "/":
		return "/" + name
	}
	return dir + "/" + name
}

// cleanAbs reports whether dir is absolute and already clean (what
// filepath.Clean leaves as it is), without building its cleaned copy.
func cleanAbs(dir string) bool {
	if dir == "/" {
		return true
	}
	if len(dir) < 2 || dir[0] != '/' || dir[len(dir)-1] == '/' {
		return false
	}
	for i := 1; i < len(dir); i++ {
		if dir[i] == '/' && (dir[i-1] == '/' || dir[i-1] == '.' && (dir[i-2] == '/' || dir[i-2] == '.' && dir[i-3] == '/')) {
			return false // "//", "/./", "/../"
		}
	}
	return !strings.HasSuffix(dir, "/.") && !strings.HasSuffix(dir, "/..")
}

// maxGuardEntries bounds the entries of a guarded folder looked at for a
// write restricted to names: past it the guard fires.
const maxGuardEntries = 2000

// namedReaches reports whether a write below p may reach g, a guarded path
// below p. It may, unless p is restricted to entries of some names (find .
// -name '*.pyc' -delete): then only when a folder on the way from p to g,
// g itself, or an entry below g (the first maxGuardEntries looked at; past
// them it may) has such a name.
func namedReaches(p *command.Path, g string) bool {
	if !p.Named() {
		return true
	}
	for _, root := range []string{p.Abs, p.Real} {
		if rel, err := filepath.Rel(root, g); err == nil && within(g, root) && rel != "." {
			for _, part := range strings.Split(rel, "/") {
				if p.MayName(part) {
					return true
				}
			}
		}
	}
	n, hit := 0, false
	_ = filepath.WalkDir(g, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == g {
			return nil
		}
		if n++; n > maxGuardEntries || p.MayName(d.Name()) {
			hit = true
			return filepath.SkipAll
		}
		return nil
	})
	return hit
}

// guardDenial is the deny of the guard (step 1) for c, which could modify p.
func guardDenial(c *command.Call, p string) Decision {
	return Decision{Decision: Deny, Source: SourceGuard,
		Reason: fmt.Sprintf("%s could modify %s, which holds vibing's permissions; only you can change those (use the slash commands).", describe(c), p)}
}
