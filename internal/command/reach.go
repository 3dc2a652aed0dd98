package command

import (
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
)

// Guarded is a set of paths no tool call may modify, as its owner (the
// session's guard) names them, with what telling whether a call reaches one
// needs: each path's last name, which of those names are distinctive enough
// to be looked for inside a script's text, and the folders of the one who
// asks (relative words are also read from its working folder, "~" from its
// home). Made once, read by every call (Call.Reaches); the paths are listed
// the first time a call needs them: a process that decides one call which
// changes nothing never resolves them.
type Guarded struct {
	list  func() []string
	names []string
	env   Env // Cwd and Home only
	once  sync.Once

	paths    []string
	bases    []string // filepath.Base of each of paths
	distinct []bool   // bases[i] is looked for inside any word
}

// NewGuarded returns the guarded set of the paths list gives (absolute,
// each once, as resolved by their owner; nil lists none); a path whose last
// name is one of names is also refused when a word of a command that may
// change files merely contains that name.
func NewGuarded(list func() []string, names []string, env Env) *Guarded {
	return &Guarded{list: list, names: names, env: Env{Cwd: env.Cwd, Home: env.Home}}
}

// Paths returns the guarded paths, listing them the first time (not to be
// changed).
func (g *Guarded) Paths() []string {
	g.once.Do(g.load)
	return g.paths
}

// load lists the paths and their last names.
func (g *Guarded) load() {
	if g.list != nil {
		g.paths = g.list()
	}
	g.bases, g.distinct = make([]string, len(g.paths)), make([]bool, len(g.paths))
	for i, p := range g.paths {
		g.bases[i] = filepath.Base(p)
		for _, n := range g.names {
			g.distinct[i] = g.distinct[i] || n != "" && g.bases[i] == n
		}
	}
}

// A Reach is Reaches' answer for a call, worked out by Prepare against the
// guarded set Of (nil: not worked out): Hit says the call may modify the
// guarded path Path.
type Reach struct {
	Of   *Guarded
	Path string
	Hit  bool
}

// Reaches reports the guarded path that c may modify. A file tool that
// edits reaches what its path lies in (or what a folder write restricted to
// names may name). A Bash line reaches a guarded path when one of its
// writes lands in it, read from where the line starts and from every folder
// it may change into; when a cd goes somewhere only known at run time, a
// relative target named like a guarded file or folder reaches it; a
// command not known to only read reaches what its words name (or anything,
// when it runs inside a guarded folder); and a line that cannot be seen
// through, or parsed, reaches what it names anywhere in its text.
func (c *Call) Reaches(g *Guarded) (string, bool) {
	if c.Tool != "Bash" {
		// a file tool writes one path (no slice of copies for it)
		if c.Edits && c.Path != nil {
			return g.writes(c.Path)
		}
		return "", false
	}
	return c.lineReaches(g)
}

// lineReaches is Reaches for a Bash line.
func (c *Call) lineReaches(g *Guarded) (string, bool) {
	if c.Err != nil {
		// The line could not be parsed: refuse when it so much as names a
		// guarded place.
		for i, p := range g.Paths() {
			if strings.Contains(c.Command, g.bases[i]) {
				return p, true
			}
		}
	}
	// A "cd dir && rm x" changes what a relative path means, and a cd
	// inside a subshell does not last: check every relative target
	// against the working directory and every folder the line changes
	// into. When a cd goes somewhere only known at run time, a relative
	// target that names a guarded file or folder is refused outright.
	starts, lost := c.ShellStart() // where the shell is: a cd lasts between calls
	unknown := c.CdUnknown || lost
	var buf [4]Path // most lines start in one folder and change into none
	dirs := c.lineDirs(buf[:0], starts, g.env.Cwd)
	var resolved []Path // the relative targets, from each folder
	for _, p := range c.Modifies {
		if p.Raw == "" || filepath.IsAbs(p.Raw) || strings.HasPrefix(p.Raw, "~") {
			continue
		}
		for _, dir := range dirs {
			resolved = append(resolved, ResolvePath(p.Raw, Env{Cwd: dir.Abs, Home: g.env.Home}))
		}
		if unknown {
			if p, ok := g.namedIn(p.Raw); ok {
				return p, true
			}
		}
	}
	if p, ok := c.namedByOpaque(g, dirs); ok {
		return p, true
	}
	if len(c.Unseen()) > 0 {
		// a command the engine cannot see through, on a line that names
		// a guarded place anywhere: refuse rather than guess
		if p, ok := c.mentions(g, c.Command, dirs); ok {
			return p, true
		}
	}
	for _, paths := range [2][]Path{c.Modifies, resolved} {
		for i := range paths {
			if p, ok := g.writes(&paths[i]); ok {
				return p, true
			}
		}
	}
	return "", false
}

// writes reports the guarded path a write of p may change.
func (g *Guarded) writes(p *Path) (string, bool) {
	same := p.Real == p.Abs
	for _, gp := range g.Paths() {
		if withinFast(p.Abs, gp) || (!same && withinFast(p.Real, gp)) {
			return gp, true
		}
		if p.inside && (within(gp, p.Abs) || within(gp, p.Real)) && namedReaches(p, gp) {
			return gp, true // writes names it does not spell out in a folder that holds gp
		}
	}
	return "", false
}

// withinFast is within(p, g), first told by one byte: a guarded path and the
// path of a call mostly share a long start (the project's folder), and the
// byte where g ends rarely agrees when p is not below it.
func withinFast(p, g string) bool {
	if n := len(g); n > 1 && g[n-1] != '/' && (len(p) < n || p[n-1] != g[n-1]) {
		return false
	}
	return within(p, g)
}

// lineDirs appends to dst the folders relative words of the line are read
// from: those its cd and pushd commands change into, those it starts in,
// and cwd; each once.
func (c *Call) lineDirs(dst []Path, starts []string, cwd string) []Path {
	dst = append(dst, c.cdTargets(starts)...)
	for _, d := range starts {
		dst = append(dst, Path{Abs: d})
	}
	return uniqueDirs(append(dst, Path{Abs: cwd}))
}

// uniqueDirs drops repeated folders (the shell's folder is usually the
// working directory): each costs a look-up per word.
func uniqueDirs(dirs []Path) []Path {
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

// cdTargets returns the folders the line's cd and pushd commands change
// into: the last word of each whose target is known, resolved from every
// folder the line starts in.
func (c *Call) cdTargets(starts []string) (dirs []Path) {
	for i := range c.Commands {
		if t, cd, known := cdKnown(&c.Commands[i]); cd && known {
			for _, base := range starts {
				dirs = append(dirs, ResolvePath(t, Env{Cwd: base, Home: c.Env.Home}))
			}
		}
	}
	return dirs
}

// cdKnown tells, as the guard reads a line, whether cmd changes the shell's
// folder (cd, pushd, popd) and, if so, whether to a folder known before it
// runs (target, its last word: not a popd, nor a change without a word or
// with a word only known at run time).
func cdKnown(cmd *Command) (target string, cd, known bool) {
	if len(cmd.Args) == 0 {
		return "", false, false
	}
	switch cmd.Args[0] {
	case "cd", "pushd", "popd":
	default:
		return "", false, false
	}
	if len(cmd.Args) < 2 || cmd.Dynamic || cmd.Args[0] == "popd" {
		return "", true, false
	}
	return cmd.Args[len(cmd.Args)-1], true, true
}

// namedIn reports the guarded path whose last name is a component of the
// relative path raw (".vibing", the chat file's name).
func (g *Guarded) namedIn(raw string) (string, bool) {
	for _, part := range strings.Split(filepath.Clean(raw), "/") {
		for i, p := range g.Paths() {
			if part == g.bases[i] {
				return p, true
			}
		}
	}
	return "", false
}

// namedByOpaque reports a guarded path named by a command that is not known
// to only read: its effect on the files it names cannot be told from its
// words, so the guard fails closed. Relative words are tried from every
// folder in dirs (where the line starts and the folders it changes into);
// when one of those lies in a guarded folder, any such command is refused
// (a script names its files in ways no word shows: rmtree('chat')).
func (c *Call) namedByOpaque(g *Guarded, dirs []Path) (string, bool) {
	looked := false
	for i := range c.Commands {
		cmd := &c.Commands[i] // (no copy of each command)
		if len(cmd.Args) == 0 || cmd.ReadOnly() {
			continue
		}
		if !looked {
			// the guarded paths are needed from the first command that may
			// change something on: a read-only line never lists them
			looked = true
			if p, ok := g.holdsDir(dirs); ok {
				return p, true
			}
		}
		for _, a := range cmd.Args[1:] {
			if p, ok := c.mentions(g, a, dirs); ok {
				return p, true
			}
		}
	}
	return "", false
}

// holdsDir reports the guarded folder one of dirs lies in.
func (g *Guarded) holdsDir(dirs []Path) (string, bool) {
	for _, d := range dirs {
		for _, p := range g.Paths() {
			if within(d.Abs, p) || within(d.Real, p) {
				return p, true
			}
		}
	}
	return "", false
}

// mentions reports whether a word names a guarded path: as a path (after
// an "x=" prefix), or inside a script text by the guarded folder's or
// file's distinctive name. A word is looked up for c (Call.Exists): the file
// rules that resolve it later read the same look-up.
func (c *Call) mentions(g *Guarded, w string, dirs []Path) (string, bool) {
	cands := []string{w}
	if i := strings.IndexByte(w, '='); i >= 0 {
		cands = append(cands, w[i+1:])
	}
	for _, cand := range cands {
		if cand == "" || strings.HasPrefix(cand, "-") {
			continue
		}
		for _, dir := range dirs {
			if !c.mayBePath(cand, dir.Abs) {
				continue
			}
			p := c.ResolveWord(cand, Env{Cwd: dir.Abs, Home: g.env.Home})
			for _, gp := range g.Paths() {
				if within(p.Abs, gp) || within(p.Real, gp) {
					return gp, true
				}
			}
			if filepath.IsAbs(cand) || strings.HasPrefix(cand, "~") {
				break // the same path from every folder
			}
		}
	}
	for i, gp := range g.Paths() {
		if strings.Contains(w, gp) || g.distinct[i] && strings.Contains(w, g.bases[i]) {
			return gp, true
		}
	}
	return "", false
}

// mayBePath is a cheap filter before resolving a word as a path (which costs
// a look-up per folder): a word with a "/" or "~", or the name of something
// that exists in dir (one lstat per name for the call c, whether or not it
// is a symlink and its target exists).
func (c *Call) mayBePath(w, dir string) bool {
	if BytesPathLike.In(w) {
		return true
	}
	if BytesSpace.In(w) {
		return false // a script text: looked at by name only
	}
	if w != "" && w != "." && w != ".." && dir != "/" && cleanAbs(dir) {
		return c.lstatIn(dir, w).errno == 0 // (joinName's plain case: w holds no "/")
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
// write restricted to names: past it the write reaches the folder.
const maxGuardEntries = 2000

// namedReaches reports whether a write below p may reach g, a guarded path
// below p. It may, unless p is restricted to entries of some names (find .
// -name '*.pyc' -delete): then only when a folder on the way from p to g,
// g itself, or an entry below g (the first maxGuardEntries looked at; past
// them it may) has such a name.
func namedReaches(p *Path, g string) bool {
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
