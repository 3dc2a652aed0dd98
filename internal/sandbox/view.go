package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"vibing/internal/command"
	"vibing/internal/selfexe"
	"vibing/internal/session"
)

// Entry is one path of a View.
type Entry struct {
	Path    string `json:"path"`              // absolute, symlinks resolved
	Why     string `json:"why"`               // in words
	Dir     bool   `json:"dir,omitempty"`     // a folder (else a file)
	Missing bool   `json:"missing,omitempty"` // does not exist: a placeholder keeps it from being created
	// Bound says the path lies in a writable folder, so the sandbox binds
	// something over it; otherwise it is read-only (or, below /tmp, absent)
	// anyway.
	Bound bool `json:"bound,omitempty"`
}

// View is what the CLI and everything it starts see of the file system.
type View struct {
	Cwd      string  `json:"cwd"`
	Writable []Entry `json:"writable"`
	ReadOnly []Entry `json:"read_only"`
	Hidden   []Entry `json:"hidden"`
	// Left are files that run code by themselves which stay writable
	// because an allow rule names them: the engine asks or allows.
	Left []Entry `json:"left_writable,omitempty"`
	// Unexpanded says, one sentence each, what the view could not cover
	// (a walk that stopped, a regex rule, a path that holds the working
	// directory).
	Unexpanded []string `json:"not_expanded,omitempty"`
	// Held are the deny rules the view holds whole (every file a Read
	// rule names hidden, every file a Write rule names read-only and none
	// it names makeable): where the sandbox runs, the engine need not
	// refuse a line it cannot see through for them (session.Engine.HoldByKernel).
	Held []string `json:"held_rules,omitempty"`
	// Visible are folders below /tmp that stay visible (read-only) over
	// the private /tmp: the project, the home folder, the binaries.
	Visible []string `json:"-"`
	// Home is the home folder (symlinks resolved): the CLI's state in
	// ~/.claude and ~/.claude.json (claudejson.go).
	Home string `json:"-"`
}

// Input is what a view is derived from.
type Input struct {
	Engine *session.Engine // the chat's engine, as policy.Open built it
	Root   string          // the project root (its .vibing/ is guarded)
	Home   string          // the home folder ("" = the engine's)
	// Claude and Binary are the CLI and vibing-agent: they must stay
	// visible (never hidden; read-only).
	Claude string
	Binary string
	// Config is the user's config file: visible read-only (a hook inside
	// reads it).
	Config string
	// HookFiles are the files an installed `vibing-agent hook` reads its
	// rules from (its --config and --chat): visible and read-only, like
	// every policy file.
	HookFiles []string
	// Writable are more writable folders (the sandbox_writable option).
	Writable []string
	// EnvAllow are the sandbox_env_allow patterns (for the report; Wrap
	// takes them from Options).
	EnvAllow []string
	// Hosts are the sandbox_hosts entries (for the report).
	Hosts []string
	// MaxEntries bounds each walk of a folder (default DefaultMaxEntries).
	MaxEntries int
}

// DefaultMaxEntries is how many entries one walk looks at before it stops
// and says so.
const DefaultMaxEntries = 20000

// claudeUserAutorun are the entries of ~/.claude that run code or pull in
// files by themselves; the rest of ~/.claude is the CLI's own state.
var claudeUserAutorun = []struct {
	name string
	dir  bool
}{
	{"settings.json", false}, {"settings.local.json", false}, {"CLAUDE.md", false},
	{"commands", true}, {"agents", true}, {"skills", true}, {"hooks", true}, {"output-styles", true},
}

// homeAutorun are the files below ~ that run code by themselves (SPEC §4).
var homeAutorun = []string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
	".zshenv", ".zprofile", ".zlogin", ".zlogout", ".config/fish", ".ssh", ".gitconfig", ".config/git", ".claude.json"}

// Derive builds the view for a turn. It never fails: what it cannot cover
// is said in View.Unexpanded.
func Derive(in Input) *View {
	env := in.Engine.Env()
	home := in.Home
	if home == "" {
		home = env.Home
	}
	d := &deriver{in: in, twin: in.Engine.Reference(), env: env, home: home, v: &View{Cwd: realPath(env.Cwd)}, max: in.MaxEntries}
	if d.max <= 0 {
		d.max = DefaultMaxEntries
	}
	d.v.Home = realPath(home)
	d.writable()
	d.readOnly()
	d.writeDenied()
	d.hidden()
	d.visible()
	for _, l := range [][]Entry{d.v.Writable, d.v.ReadOnly, d.v.Hidden, d.v.Left} {
		sort.SliceStable(l, func(i, j int) bool { return l[i].Path < l[j].Path })
	}
	return d.v
}

type deriver struct {
	in   Input
	twin *session.Engine // in.Engine's slow twin: the view is decided by it (Engine.Reference)
	env  command.Env
	home string
	v    *View
	max  int
	seen map[string]bool // read-only paths already listed
	// gitChecks counts the git look-ups (githistory.go)
	gitChecks int
	gitKnown  map[string]bool
}

func (d *deriver) note(s string) { d.v.Unexpanded = append(d.v.Unexpanded, s) }

// writable lists the writable folders: the working directory, the CLI's
// state, the usual caches, the configured ones.
func (d *deriver) writable() {
	add := func(p, why string, create bool) {
		r := realPath(p)
		for _, w := range d.v.Writable {
			if w.Path == r {
				return
			}
		}
		fi, err := os.Stat(r)
		switch {
		case err == nil && fi.IsDir():
			d.v.Writable = append(d.v.Writable, Entry{Path: r, Why: why, Dir: true})
		case errors.Is(err, fs.ErrNotExist) && create:
			d.v.Writable = append(d.v.Writable, Entry{Path: r, Why: why, Dir: true, Missing: true})
		}
	}
	add(d.env.Cwd, "the working directory", false)
	if d.home != "" {
		add(filepath.Join(d.home, ".claude"), "the claude CLI's own state (sessions, projects, todos)", true)
		add(filepath.Join(d.home, ".cache"), "build and tool caches", false)
		add(filepath.Join(d.home, ".npm"), "npm's cache", false)
	}
	if gm := goModCache(d.home); gm != "" {
		add(gm, "the Go module cache", false)
	}
	for _, w := range d.in.Writable {
		p := expandHome(w, d.home)
		if !filepath.IsAbs(p) {
			d.note("sandbox_writable " + w + " is not an absolute path (or ~/...): left read-only")
			continue
		}
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			d.note("sandbox_writable " + w + " is not an existing folder: left read-only")
			continue
		}
		add(p, "sandbox_writable", false)
	}
}

// goModCache is where go keeps downloaded modules.
func goModCache(home string) string {
	if p := os.Getenv("GOMODCACHE"); p != "" {
		return p
	}
	if p := os.Getenv("GOPATH"); p != "" {
		return filepath.Join(strings.Split(p, ":")[0], "pkg", "mod")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, "go", "pkg", "mod")
}

// inWritable reports whether p lies in a writable folder.
func (d *deriver) inWritable(p string) bool {
	for _, w := range d.v.Writable {
		if command.Within(p, w.Path) {
			return true
		}
	}
	return false
}

// coveredRO reports whether p lies in a read-only entry already listed.
func (d *deriver) coveredRO(p string) bool {
	for _, e := range d.v.ReadOnly {
		if e.Dir && command.Within(p, e.Path) && p != e.Path {
			return true
		}
	}
	return false
}

// readOnly lists the guarded paths and the files that run code by
// themselves.
func (d *deriver) readOnly() {
	d.seen = map[string]bool{}
	x := d.in.Engine.Explain()
	for _, g := range x.Guarded {
		dir := isGuardedDir(g)
		d.addRO(g, "guarded: only the person changes permissions", dir, false)
	}
	for _, p := range append(append(selfexe.Pair(d.in.Binary), d.in.Config), d.in.HookFiles...) {
		if p != "" {
			d.addRO(p, "guarded: only the person changes permissions", false, false)
		}
	}
	projects := []string{d.in.Root, d.env.Cwd}
	for i, p := range projects {
		if p == "" || i == 1 && realPath(p) == realPath(projects[0]) {
			continue
		}
		d.projectAutorun(p)
	}
	d.nestedAutorun()
	if d.home != "" {
		cl := filepath.Join(d.home, ".claude")
		for _, e := range claudeUserAutorun {
			d.addRO(filepath.Join(cl, e.name), "runs code by itself (Claude Code's user settings, hooks, commands, skills, agents)", e.dir, true)
		}
		for _, n := range homeAutorun {
			p := filepath.Join(d.home, n)
			fi, err := os.Stat(p)
			d.addRO(p, "runs code by itself (shell start-up files, git and SSH configuration, the CLI's user configuration)", err == nil && fi.IsDir(), true)
		}
	}
}

// isGuardedDir tells the guarded folders from files by name (they may not
// exist yet).
func isGuardedDir(p string) bool {
	if fi, err := os.Stat(p); err == nil {
		return fi.IsDir()
	}
	b := filepath.Base(p)
	return b == ".vibing" || b == "vibing" || b == "policy.d" || b == "managed-settings.d"
}

// projectAutorun lists the files of a project folder that run code by
// themselves.
func (d *deriver) projectAutorun(dir string) {
	const why = "runs code or pulls in files by itself"
	d.addRO(filepath.Join(dir, ".claude"), why+" (Claude Code's settings, hooks, commands, skills, agents)", true, true)
	d.addRO(filepath.Join(dir, ".mcp.json"), why+" (MCP servers)", false, true)
	d.addRO(filepath.Join(dir, "CLAUDE.md"), why+" (loaded into every session)", false, true)
	d.addRO(filepath.Join(dir, "CLAUDE.local.md"), why+" (loaded into every session)", false, true)
	git := filepath.Join(dir, ".git")
	fi, err := os.Lstat(git)
	switch {
	case err != nil:
		// no repository: git init makes its own hooks and config
	case fi.IsDir():
		d.addRO(filepath.Join(git, "hooks"), why+" (git hooks)", true, true)
		d.addRO(filepath.Join(git, "config"), why+" (git configuration: hooksPath, fsmonitor, aliases)", false, true)
	default:
		d.addRO(git, why+" (a .git file says where the repository's hooks and configuration are)", false, true)
	}
}

// nestedAutorun finds such files below the working directory: a
// subfolder's CLAUDE.md or .claude/, a nested repository's hooks.
func (d *deriver) nestedAutorun() {
	cwd := d.env.Cwd
	n := 0
	stopped := false
	_ = filepath.WalkDir(cwd, func(p string, e fs.DirEntry, err error) error {
		if err != nil || p == cwd {
			return nil
		}
		if n++; n > d.max {
			stopped = true
			return filepath.SkipAll
		}
		name := e.Name()
		switch {
		case e.IsDir() && name == ".git":
			d.projectAutorun(filepath.Dir(p))
			return filepath.SkipDir
		case e.IsDir() && (name == ".claude" || name == "node_modules" || name == ".vibing"):
			if name == ".claude" {
				d.addRO(p, "runs code by itself (Claude Code's settings in a subfolder)", true, true)
			}
			return filepath.SkipDir
		case !e.IsDir() && (name == "CLAUDE.md" || name == "CLAUDE.local.md" || name == ".mcp.json"):
			d.addRO(p, "pulls in files by itself (a subfolder's "+name+")", false, true)
		}
		return nil
	})
	if stopped {
		d.note("the look for CLAUDE.md, .claude/ and .git/ in subfolders of " + cwd + " stopped after " +
			strconv.Itoa(d.max) + " entries: the ones further down stay writable")
	}
}

// addRO lists p as read-only; autorun files stay writable when an allow
// rule names them (the engine then asks or allows).
func (d *deriver) addRO(p, why string, dir, autorun bool) {
	if p == "" {
		return
	}
	r := realPath(p)
	if d.seen[r] {
		return
	}
	d.seen[r] = true
	_, err := os.Lstat(r)
	missing := errors.Is(err, fs.ErrNotExist)
	if autorun && d.allowed(r, dir) {
		d.v.Left = append(d.v.Left, Entry{Path: r, Why: "an allow rule names it: " + why, Dir: dir, Missing: missing})
		return
	}
	if d.coveredRO(r) {
		return
	}
	e := Entry{Path: r, Why: why, Dir: dir, Missing: missing, Bound: d.inWritable(r)}
	if missing && e.Bound && !d.madeWritable(filepath.Dir(r)) {
		if fi, err := os.Stat(filepath.Dir(r)); err != nil || !fi.IsDir() {
			// its folder does not exist either: hold nothing there (a
			// placeholder would block creating the folder itself)
			e.Bound = false
		}
	}
	d.v.ReadOnly = append(d.v.ReadOnly, e)
}

// madeWritable reports whether dir is a writable folder the sandbox makes
// before it starts (~/.claude on a first run).
func (d *deriver) madeWritable(dir string) bool {
	for _, w := range d.v.Writable {
		if w.Missing && w.Path == dir {
			return true
		}
	}
	return false
}

// allowed reports whether the engine (its slow twin) lets a Write to p (or into the folder
// p) run: only an allow rule that names it can, in any mode.
func (d *deriver) allowed(p string, dir bool) bool {
	target := p
	if dir {
		target = filepath.Join(p, "x")
	}
	dec := d.twin.Decide("Write", map[string]any{"file_path": target, "content": ""})
	return dec.Decision == session.Allow && dec.Rule != ""
}

// visible lists the folders below /tmp (and below the session's runtime
// folders, which the sandbox empties) that must show through: the
// project, the home folder, the binaries, the config file.
func (d *deriver) visible() {
	tmp := realPath(os.TempDir())
	runtimeDirs, _ := sessionSockets(os.Getenv)
	covered := func(r string) bool {
		return command.Within(r, tmp) || command.Within(r, "/tmp") || within(r, runtimeDirs)
	}
	shown := append([]string{d.in.Root, d.env.Cwd, d.home, d.in.Claude, d.in.Config}, selfexe.Pair(d.in.Binary)...)
	for _, p := range append(shown, d.in.HookFiles...) {
		if p == "" {
			continue
		}
		// the path as the command names it (a symlink such as
		// .deps/bin/claude is what is executed) and where it leads
		for _, r := range []string{filepath.Clean(p), realPath(p)} {
			if !filepath.IsAbs(r) || !covered(r) {
				continue
			}
			if _, err := os.Stat(r); err != nil {
				continue
			}
			d.v.Visible = appendOnce(d.v.Visible, r)
		}
	}
	sort.Strings(d.v.Visible)
}

func appendOnce(l []string, s string) []string {
	for _, x := range l {
		if x == s {
			return l
		}
	}
	return append(l, s)
}

// realPath resolves symlinks in p, or in its longest existing prefix.
func realPath(p string) string {
	if p == "" {
		return ""
	}
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(realPath(parent), filepath.Base(p))
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") && home != "" {
		return filepath.Join(home, p[2:])
	}
	return p
}
