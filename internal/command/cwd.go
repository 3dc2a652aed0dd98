package command

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The working directory of a Bash line is scoped as the shell scopes it:
// subshells ( .. ), substitutions $( .. ) <( .. ), background jobs, pipeline
// elements and the scripts of sh -c / su -c get a copy, so a cd inside them
// does not move the commands after them; { ..; } groups, eval and && || ;
// lists share it. A cd may fail and leave the folder as it was, so after
// `cd DIR;` the shell is in either folder and relative paths are checked
// from both; only the right side of `cd DIR &&` is sure to run in DIR. A cd
// whose target is only known at run time (cd "$D", cd -, bare cd, popd with
// no known stack, source, a dynamic command name) makes the folder unknown:
// relative paths are then checked from every folder the line may be in or
// has named (the working directory included) and no allow path rule covers
// them.

const (
	maxDirs = 8  // folders one point of the line may be in before it counts as unknown
	MaxSeen = 32 // folders tried for a relative path once the folder is unknown
)

// dirState is where relative paths resolve at one point of the walk.
type dirState struct {
	dirs    []string  // the folders the shell may be in; never changed in place
	unknown bool      // a cd went somewhere only known at run time
	stack   *dirStack // the pushd stack, nil when empty or not known
}

type dirStack struct {
	top  dirState
	next *dirStack
}

// sure reports the one folder relative paths resolve from, when it is known.
func (d dirState) sure() (string, bool) {
	if d.unknown || len(d.dirs) != 1 {
		return "", false
	}
	return d.dirs[0], true
}

func sameDirs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// union is the state after a point reached along either of two ways.
func union(a, b dirState) dirState {
	if sameDirs(a.dirs, b.dirs) && a.unknown == b.unknown && a.stack == b.stack {
		return a
	}
	out := dirState{unknown: a.unknown || b.unknown}
	if a.stack == b.stack {
		out.stack = a.stack
	}
	out.dirs = AddDirs(append([]string(nil), a.dirs...), b.dirs)
	if len(out.dirs) > maxDirs {
		out.dirs, out.unknown = out.dirs[:maxDirs:maxDirs], true
	}
	return out
}

func AddDirs(dst, src []string) []string {
next:
	for _, d := range src {
		for _, e := range dst {
			if e == d {
				continue next
			}
		}
		dst = append(dst, d)
	}
	return dst
}

// scoped runs f with a copy of the working directory: what f does to it
// is forgotten afterwards.
func (w *shellWalker) scoped(f func()) {
	before := w.dir
	f()
	w.dir, w.succ = before, before
}

// lost is the state after a cd to a place only known at run time.
func (w *shellWalker) lost(d dirState, also ...string) dirState {
	w.namedDirs(d)
	out := dirState{dirs: AddDirs(append([]string(nil), d.dirs...), also), unknown: true}
	if len(out.dirs) > maxDirs {
		out.dirs = out.dirs[:maxDirs:maxDirs]
	}
	w.see(also)
	return out
}

// see remembers folders the line may be in, to try relative paths from
// once the folder is unknown.
func (w *shellWalker) see(dirs []string) {
	for _, d := range dirs {
		if len(w.seen) >= MaxSeen {
			w.seenFull = true
			return
		}
		w.seen = AddDirs(w.seen, []string{d})
	}
}

// bases returns the folders relative paths are tried from in state d.
func (w *shellWalker) bases(d dirState) []string {
	if !d.unknown {
		return d.dirs
	}
	if w.seenFull {
		// more folders than are tried: deny and ask file rules fire on
		// the line, so trying more of them changes nothing
		w.c.DirOverflow = true
		return d.dirs
	}
	return AddDirs(append([]string(nil), d.dirs...), w.seen)
}

func isRelative(p string) bool {
	return !strings.HasPrefix(p, "/") && p != "~" && !strings.HasPrefix(p, "~/")
}

// resolveDirs resolves a cd target from every folder of d.
func (w *shellWalker) resolveDirs(target string, d dirState, physical bool) dirState {
	home := w.c.Env.Home
	if hasGlobChar(target) {
		// cd sr*/secret: bash expands the pattern; the folders it matches
		// are where the shell goes (none, or more than a few: unknown)
		var found []string
		bases := w.bases(d)
		if !isRelative(target) {
			bases = []string{w.c.Env.Cwd}
		}
		for _, base := range bases {
			for _, m := range globDirs(target, Env{Cwd: base, Home: home}) {
				found = AddDirs(found, []string{m})
			}
		}
		if len(found) == 0 || len(found) > maxDirs {
			return w.lost(d)
		}
		out := dirState{dirs: found, unknown: d.unknown}
		w.see(out.dirs)
		return out
	}
	if !isRelative(target) {
		p := ResolvePath(target, Env{Cwd: w.c.Env.Cwd, Home: home})
		out := dirState{dirs: []string{p.Abs}}
		if physical && p.Real != p.Abs {
			out.dirs = append(out.dirs, p.Real)
		}
		w.see(out.dirs)
		return out
	}
	out := dirState{unknown: d.unknown}
	for _, base := range w.bases(d) {
		p := ResolvePath(target, Env{Cwd: base, Home: home})
		out.dirs = AddDirs(out.dirs, []string{p.Abs})
		if physical && p.Real != p.Abs {
			out.dirs = AddDirs(out.dirs, []string{p.Real})
		}
	}
	w.see(out.dirs) // before any is dropped: an unknown folder tries them all
	if len(out.dirs) > maxDirs {
		out.dirs, out.unknown = out.dirs[:maxDirs:maxDirs], true
	}
	return out
}

// trackCd updates the working directory after a simple command: w.succ is
// where the shell is when the command succeeded, w.dir where it may be
// whatever happened.
func (s *scriptWalk) trackCd(c *Command) {
	w := s.w
	before := w.dir
	w.succ = before
	if c.DynamicName {
		// the command may be cd (or source) itself
		w.dir = w.lost(before)
		w.succ = w.dir
		return
	}
	if len(c.Args) == 0 {
		return
	}
	var target dirState
	switch c.Args[0] {
	case "cd":
		target = s.cdTarget(c, before)
	case "pushd":
		target = s.pushdTarget(c, before)
	case "popd":
		target = w.lost(before)
		if len(c.Args) == 1 && before.stack != nil {
			target = before.stack.top
			target.stack = before.stack.next
		}
	case "source", ".":
		w.dir = w.lost(before)
		w.succ = w.dir
		return
	case "eval":
		if c.Dynamic {
			w.dir = w.lost(before)
			w.succ = w.dir
		}
		return
	default:
		return
	}
	w.dir = union(before, target) // a cd that fails leaves the folder as it was
	w.succ = target
	for _, wr := range c.More().Wrappers {
		if wr != "builtin" && wr != "command" {
			// sudo cd, env cd ... run a cd program that moves nothing;
			// the shell may be in either folder
			w.succ = w.dir
			break
		}
	}
}

// cdTarget is where `cd ARGS` goes when it succeeds.
func (s *scriptWalk) cdTarget(c *Command, before dirState) dirState {
	w := s.w
	physical := false
	args := c.Args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		if strings.Trim(a[1:], "LPe@") != "" {
			return w.lost(before) // an option cd does not have
		}
		physical = physical || strings.ContainsRune(a, 'P')
	}
	switch {
	case len(args) == 0:
		if w.c.Env.Home == "" {
			return w.lost(before)
		}
		return w.lost(before, w.c.Env.Home) // $HOME, which the line may have set
	case len(args) > 1, c.Dynamic, args[0] == "-", args[0] == "":
		return w.lost(before)
	}
	t := args[0]
	if strings.HasPrefix(t, "~") && t != "~" && !strings.HasPrefix(t, "~/") {
		return w.lost(before) // ~user
	}
	out := w.resolveDirs(t, before, physical)
	if w.cdpath && isRelative(t) && !strings.HasPrefix(t, "./") && !strings.HasPrefix(t, "../") && t != "." && t != ".." {
		// CDPATH may send it to any folder of that name
		out = w.lost(out)
	}
	return out
}

// pushdTarget is where `pushd ARGS` goes when it succeeds.
func (s *scriptWalk) pushdTarget(c *Command, before dirState) dirState {
	w := s.w
	here := dirState{dirs: before.dirs, unknown: before.unknown}
	switch {
	case len(c.Args) == 1 && before.stack != nil:
		// swap the top two folders
		out := before.stack.top
		out.stack = &dirStack{top: here, next: before.stack.next}
		return out
	case len(c.Args) != 2 || c.Dynamic || strings.HasPrefix(c.Args[1], "-") || strings.HasPrefix(c.Args[1], "+"):
		return w.lost(before)
	}
	t := c.Args[1]
	if strings.HasPrefix(t, "~") && t != "~" && !strings.HasPrefix(t, "~/") {
		return w.lost(before)
	}
	out := w.resolveDirs(t, before, false)
	if w.cdpath && isRelative(t) && !strings.HasPrefix(t, "./") && !strings.HasPrefix(t, "../") {
		out = w.lost(out)
	}
	out.stack = &dirStack{top: here, next: before.stack}
	return out
}

// appendPaths resolves a path word from every folder the shell may be in.
// A word that is a file pattern (cp x CLAUD*, > ~/.bash?c) also stands
// for every file it matches there, as bash expands it.
func (s *scriptWalk) appendPaths(dst []Path, v string, dyn bool) []Path {
	w := s.w
	env := Env{Cwd: w.c.Env.Cwd, Home: w.c.Env.Home}
	glob := !dyn && hasGlobChar(v)
	if dir, ok := w.dir.sure(); ok || !isRelative(v) {
		if ok {
			env.Cwd = dir
		}
		p := ResolvePath(v, env)
		p.Unsure = dyn
		dst = append(dst, p)
		if glob {
			dst = appendGlobMatches(dst, v, env, false)
		}
		return w.throughLinks(dst, p, env)
	}
	for _, dir := range w.bases(w.dir) {
		env.Cwd = dir
		p := ResolvePath(v, env)
		p.Unsure = true // the folder is one of several: no allow rule covers it
		dst = append(dst, p)
		if glob {
			dst = appendGlobMatches(dst, v, env, true)
		}
		dst = w.throughLinks(dst, p, env)
	}
	return dst
}

// maxWriteGlob bounds the files one pattern a command writes is expanded
// to; past it the pattern stands for files the engine cannot list.
const maxWriteGlob = 64

// appendGlobMatches adds the existing files the pattern v matches from
// env.Cwd (bash's own expansion), resolved; past maxWriteGlob matches, or
// when the pattern cannot be read, the pattern's folder stands for files
// inside it whose names are not known.
func appendGlobMatches(dst []Path, v string, env Env, unsure bool) []Path {
	abs := v
	if strings.HasPrefix(abs, "~/") && env.Home != "" {
		abs = env.Home + abs[1:]
	} else if !path.IsAbs(abs) {
		abs = path.Join(env.Cwd, abs)
	}
	// bash's [!x] is Go's [^x]
	matches, err := filepath.Glob(strings.ReplaceAll(abs, "[!", "[^"))
	if err != nil || len(matches) > maxWriteGlob {
		p := ResolvePath(path.Dir(abs), env)
		p.inside, p.Unsure = true, true
		return append(dst, p)
	}
	for _, m := range matches {
		p := ResolvePath(m, env)
		p.Unsure = unsure
		dst = append(dst, p)
	}
	return dst
}

// globDirs returns the folders the pattern target matches from env.Cwd,
// resolved (nil when it cannot be read).
func globDirs(target string, env Env) []string {
	var out []string
	for _, p := range appendGlobMatches(nil, target, env, false) {
		if p.inside {
			return nil
		}
		if isDirPath(p.Real) {
			out = append(out, p.Abs)
		}
	}
	return out
}

func isDirPath(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// lostRelative: after a cd to a folder only known at run time (cd
// "$(...)", cd "$d" once d may have changed), a relative file operand of
// command me may name any file there. The folders the line named are tried
// (bases), and, as that cannot be certain, file rules fire on the operand
// as on a word computed at run time.
func (s *scriptWalk) lostRelative(me int, dyns []bool) {
	if !s.w.dir.unknown {
		return
	}
	c := &s.w.c.Commands[me]
	if c.DynamicName || len(c.Words) < 2 {
		return
	}
	switch programName(c.Words[0]) {
	case "cd", "pushd", "popd":
		return
	}
	sub := subcommandTools[programName(c.Words[0])]
	for i := 1; i < len(c.Words); i++ {
		w := c.Words[i]
		if (dyns != nil && dyns[i]) || w == "" || IsFlagWord(w) || !isRelative(w) || dataOnly(c, i) {
			continue
		}
		if sub {
			sub = false // git status, npm test: the first word is a subcommand, not a file
			continue
		}
		if len(s.w.c.LostRel) < 32 {
			s.w.c.LostRel = append(s.w.c.LostRel, w)
		}
	}
}

// subcommandTools take a subcommand as their first operand.
var subcommandTools = map[string]bool{
	"git": true, "go": true, "npm": true, "npx": true, "yarn": true, "pnpm": true, "cargo": true,
	"docker": true, "kubectl": true, "make": true, "pip": true, "pip3": true, "gh": true, "bun": true,
	"deno": true, "uv": true, "poetry": true, "rustup": true, "systemctl": true, "dotnet": true,
}

// lostRedirect is lostRelative for a redirection's file (cd "$(…)" && cat
// < key, … > pre-commit): a relative name after a cd to a folder only known
// at run time.
func (s *scriptWalk) lostRedirect(w string) {
	if !s.w.dir.unknown || w == "" || !isRelative(w) || len(s.w.c.LostRel) >= 32 {
		return
	}
	s.w.c.LostRel = append(s.w.c.LostRel, w)
}

// namedDirs adds to the folders the line has named those that variables'
// values name (seeNamedDir), from the working folder and the folders of d,
// when the shell's folder is first lost.
func (w *shellWalker) namedDirs(d dirState) {
	if len(w.named) == 0 {
		return
	}
	bases := AddDirs([]string{w.c.Env.Cwd}, d.dirs)
	for _, v := range w.named {
		for _, base := range bases {
			if p := ResolvePath(v, Env{Cwd: base, Home: w.c.Env.Home}); isDirPath(p.Abs) {
				w.see([]string{p.Abs})
			}
		}
	}
	w.named = nil
}

// CwdDirs returns the folders below the working directory that the call's
// path lies in, as written and resolved, each with its trailing "/" (""
// for a path right in the working directory): a rule whose CwdDir is not
// the start of one of them cannot match the call. ok is false when the
// call is not one path of a file tool (Bash, searches, a folder a command
// writes into, an input that could not be read): then any rule may match.
func (c *Call) CwdDirs() (dirs [3]string, n int, ok bool) {
	v := c.Views
	if v == nil || c.Err != nil || c.Path == nil || c.Path.inside || c.Path.Unsure || c.Tool == "Bash" || IsSearch(c.Tool) {
		return dirs, 0, false
	}
	add := func(pv *PathView) {
		if pv.noCwd || pv.cwdRel == "\x00" {
			return // outside: no rule anchored in a folder below it matches
		}
		dir := pv.cwdRel[:strings.LastIndexByte(pv.cwdRel, '/')+1]
		for _, have := range dirs[:n] {
			if have == dir {
				return
			}
		}
		dirs[n] = dir
		n++
	}
	add(&v.Abs)
	if v.realDiffers || v.dirsDiffer { // else real is abs (fill)
		add(&v.real)
	}
	if v.realDiffers {
		add(&v.realAtCwd)
	}
	return dirs, n, true
}
