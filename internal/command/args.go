package command

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// bashArgs are the words of a Bash line that may name files: every argument
// of every simple command and the sources of input redirections. Deny and
// ask file rules fire on them (Read(.env) denies `cat .env`). They are
// resolved once, on the first file rule that needs them, so a call that
// meets no such rule pays no file-system look-ups for them.
type bashArgs struct {
	refs  []argRef
	first [8]argRef           // refs' first backing array: most lines name a few words
	seen  map[argRef]struct{} // once refs is long, for de-duplication

	once         sync.Once
	paths        []Path
	globOverflow bool // a file pattern named more files than are checked: deny/ask file rules fire
}

// treePath adds a word a command reads whole: when it names a folder, the
// path stands for the folder and everything below it.
func (c *Call) treePath(dst []Path, r argRef) []Path {
	if r.glob {
		n := len(dst)
		dst = c.globPaths(dst, argRef{word: r.word, cwd: r.cwd, glob: true, mayWrite: r.mayWrite})
		for i, end := n, len(dst); i < end; i++ {
			dst = append(dst, asTree(dst[i]))
		}
		return dst
	}
	p := ResolvePath(r.word, Env{Cwd: r.cwd, Home: c.Env.Home})
	p.MayWrite, p.Meta = r.mayWrite, r.meta
	return append(dst, p, asTree(p))
}

// globClimb is the folder below which every name a pattern word with ".."
// after its first glob component may reach lies: the folder that component
// stands in, one level up for each ".." after it (each may undo a level the
// stars matched, or, where ** matched none, climb above the folder).
func globClimb(word string, env Env) string {
	i := strings.IndexAny(word, "*?[")
	head, rest := word[:i], word[i:]
	base := env.Cwd
	if j := strings.LastIndexByte(head, '/'); j >= 0 {
		base = ResolvePath(head[:j+1], env).Abs
	}
	for _, part := range strings.Split(rest, "/") {
		if part == ".." {
			base = filepath.Dir(base)
		}
	}
	return base
}

// asTree returns p as "everything below the folder p" when p is a folder
// (else p itself).
func asTree(p Path) Path {
	if fi, err := os.Stat(p.Real); err == nil && fi.IsDir() {
		p.inside, p.Tree = true, true
	}
	return p
}

// hiddenByShell reports whether the shell would not expand pattern to
// match: a name starting with "." matched by a pattern part that does not
// itself start with "." (without dotglob).
func hiddenByShell(pattern, match string) bool {
	ps, ms := strings.Split(pattern, "/"), strings.Split(match, "/")
	if len(ps) != len(ms) {
		return false
	}
	for i := range ps {
		if strings.HasPrefix(ms[i], ".") && !strings.HasPrefix(ps[i], ".") && hasGlobChar(ps[i]) {
			return true
		}
	}
	return false
}

// maxGlobPaths bounds the names file patterns on one line expand to.
const maxGlobPaths = 512

// globPaths adds the names a file pattern expands to, as the shell expands
// it when the command runs (the pattern itself too: with no match the shell
// passes it as written). As the shell does, * and ? do not match a leading
// dot unless the line speaks of dotglob or GLOBIGNORE.
func (c *Call) globPaths(dst []Path, r argRef) []Path {
	env := Env{Cwd: r.cwd, Home: c.Env.Home}
	pat := ResolvePath(r.word, env)
	pat.MayWrite = r.mayWrite
	dst = append(dst, pat)
	if strings.Contains(r.word, "**") {
		// globstar may reach any depth: every name below the pattern's folder
		var p Path
		if i := strings.Index(pat.Abs, "**"); i >= 0 {
			p = ResolvePath(strings.TrimSuffix(pat.Abs[:i], "/")+"/", env)
		} else {
			// a ".." after the stars took them out of the cleaned path
			// (a/**/../x, h**x/../y): the folders they match lead up again
			p = ResolvePath(globClimb(r.word, env)+"/", env)
		}
		p.inside = true
		return append(dst, p)
	}
	matches, err := filepath.Glob(pat.Abs)
	if err != nil {
		p := ResolvePath(filepath.Dir(pat.Abs), env)
		p.inside = true
		return append(dst, p)
	}
	dotglob := strings.Contains(c.Command, "dotglob") || strings.Contains(c.Command, "GLOBIGNORE")
	for i, m := range matches {
		if i >= maxGlobPaths {
			break
		}
		if !dotglob && hiddenByShell(pat.Abs, m) {
			continue // the shell's * and ? do not match a leading dot (`cat *` skips .env)
		}
		p := ResolvePath(m, env)
		p.MayWrite, p.Meta = r.mayWrite, r.meta
		dst = append(dst, p)
	}
	return dst
}

// argRef is one word and the folder it is relative to (the working
// directory as tracked through literal cd commands).
type argRef struct {
	word, cwd string
	glob      bool // a file pattern: the names it expands to are checked as well
	mayWrite  bool // the command may write what it names (deny Edit/Write rules look at it)
	tree      bool // the command reads whole folders it names (tar, grep -r, cp -r ...)
	meta      bool // the command looks at names only (ls, stat)
}

// argMode is how the command being walked treats the words it names.
type argMode struct {
	mayWrite bool
	tree     bool
	meta     bool // the command looks at the names only, not what the files hold (ls, stat, test)
}

// metaOnly are programs that read a file's name and attributes, never its
// contents: Read rules do not fire on their words.
var metaOnly = Table[map[string]bool]{Make: func() map[string]bool {
	return map[string]bool{
		"ls": true, "dir": true, "stat": true, "test": true, "[": true, "[[": true, "realpath": true, "readlink": true,
		"basename": true, "dirname": true, "touch": false, "lsattr": true, "getfacl": true, "du": true,
	}
}}

// writesModeled are the programs whose writes writesOf knows (so the other
// words they name are not written): deny Edit/Write rules fire on their
// writes only.
var writesModeled = Table[map[string]bool]{Make: func() map[string]bool {
	return map[string]bool{
		"rm": true, "rmdir": true, "tee": true, "truncate": true, "touch": true, "mkdir": true, "unlink": true,
		"shred": true, "mkfifo": true, "mknod": true, "sponge": true, "cp": true, "mv": true, "install": true,
		"ln": true, "rsync": true, "scp": true, "chmod": true, "chown": true, "chgrp": true, "dd": true,
		"gzip": true, "gunzip": true, "bzip2": true, "bunzip2": true, "xz": true, "unxz": true, "zstd": true,
		"tar": true, "bsdtar": true, "unzip": true, "zip": true, "7z": true, "7za": true, "cpio": true,
		"curl": true, "wget": true, "sort": true, "tree": true, "xxd": true, "uniq": true, "yq": true,
	}
}}

// argModeOf says how a command (behind its wrappers) treats the words it
// names.
func argModeOf(args []string) argMode { return argModeBy(args, nil) }

// argModeBy is argModeOf reading the program table through w (progBits).
func argModeBy(args []string, w *shellWalker) argMode {
	if len(args) == 0 {
		return argMode{mayWrite: true}
	}
	name := programName(args[0])
	rest := args[1:]
	b := w.progBits(name)
	m := argMode{mayWrite: b&(progWritesModeled|progReader) == 0, meta: b&progMetaOnly != 0}
	if b&progKnown != 0 && b&(progReader|progWritesModeled) == 0 {
		switch name {
		case "rg", "ag", "ack", "rsync", "zip", "grep", "egrep", "fgrep", "cp", "scp", "tar", "bsdtar", "find", "git", "ln", "link":
		default:
			return m // nothing more to learn
		}
	}
	if name == "find" {
		m.mayWrite = hasFlag(rest, "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fls", "-fprintf")
	}
	if name == "git" {
		if sub, _ := gitSubcommand(rest); gitReads(sub) {
			m.mayWrite = false
		}
	}
	switch name {
	case "rg", "ag", "ack", "rsync", "zip", "du", "tree", "ls":
		m.tree = name != "du" && name != "tree" && name != "ls"
		if name == "zip" {
			m.tree = hasOpt(rest, 'r', "--recurse-paths")
		}
	case "grep", "egrep", "fgrep":
		m.tree = hasOpt(rest, 'r', "--recursive") || hasOpt(rest, 'R', "--dereference-recursive")
	case "cp", "scp":
		m.tree = hasOpt(rest, 'r', "--recursive") || hasOpt(rest, 'R') || hasOpt(rest, 'a', "--archive")
	case "tar", "bsdtar":
		m.tree = true
	case "ln", "link":
		// a link to a folder reaches every file below it under a new
		// name (ln -s src l && cat l/secret/key): as if it read them
		m.tree = true
	}
	return m
}

// argPaths returns the call's argument words resolved as paths.
func (c *Call) ArgPaths() []Path {
	a := c.args
	if a == nil {
		return nil
	}
	a.once.Do(func() {
		a.paths = make([]Path, 0, len(a.refs))
		env := Env{Home: c.Env.Home}
		for _, r := range a.refs {
			if r.tree {
				a.paths = c.treePath(a.paths, r)
				continue
			}
			if r.glob {
				a.paths = c.globPaths(a.paths, r)
				if len(a.paths) > maxGlobPaths {
					a.globOverflow = true
				}
				continue
			}
			if p, ok := c.fastResolve(r); ok {
				p.MayWrite, p.Meta = r.mayWrite, r.meta
				a.paths = append(a.paths, p)
				continue
			}
			env.Cwd = r.cwd
			p := ResolvePath(r.word, env)
			p.MayWrite, p.Meta = r.mayWrite, r.meta
			a.paths = append(a.paths, p)
		}
	})
	return a.paths
}

// fastResolve resolves a plain name in the working directory with one
// Lstat: when it is not a symlink its target is the resolved working
// directory joined with it. Anything else takes the full ResolvePath.
func (c *Call) fastResolve(r argRef) (Path, bool) {
	w := r.word
	if c.ref || r.cwd != c.Env.Cwd || c.RealCwd == "" || w == "." || w == ".." || w == "~" || strings.ContainsRune(w, '/') {
		return Path{}, false
	}
	abs := joinDir(r.cwd, w)
	l := c.lstat(abs) // the guard may have looked already (Exists)
	switch {
	case l.errno == 0 && l.link:
		return Path{}, false
	case l.errno != 0 && l.errno != syscall.ENOENT:
		return Path{Raw: w, Abs: abs, Real: joinDir(c.RealCwd, w)}, true // the hard-link check looks again
	}
	looked := l.st
	return Path{Raw: w, Abs: abs, Real: joinDir(c.RealCwd, w), looked: &looked}, true
}

func joinDir(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// namesFile reports whether w names an existing file or folder in the
// working directory (then it is an operand, not a subcommand: `cat README`).
func (c *Call) NamesFile(w string) bool {
	if c.Env.Cwd == "" {
		return false
	}
	_, err := os.Lstat(joinDir(c.Env.Cwd, w))
	return err == nil
}
