package matcher

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// bashArgs are the words of a Bash line that may name files: every argument
// of every simple command and the sources of input redirections. Deny and
// ask file rules fire on them (Read(.env) denies `cat .env`). They are
// resolved once, on the first file rule that needs them, so a call that
// meets no such rule pays no file-system look-ups for them.
type bashArgs struct {
	refs []argRef
	seen map[argRef]struct{} // once refs is long, for de-duplication

	once         sync.Once
	paths        []Path
	globOverflow bool // a file pattern named more files than are checked: deny/ask file rules fire
}

// maxGlobPaths bounds the names file patterns on one line expand to.
const maxGlobPaths = 512

// globPaths adds the names a file pattern expands to, as the shell expands
// it when the command runs (the pattern itself too: with no match the shell
// passes it as written). Go's matching lets * match a leading dot, so
// `cat *` is also checked against dot files: stricter than the shell, never
// looser.
func (c *Call) globPaths(dst []Path, r argRef) []Path {
	env := Env{Cwd: r.cwd, Home: c.Env.Home}
	pat := ResolvePath(r.word, env)
	dst = append(dst, pat)
	if strings.Contains(r.word, "**") {
		// globstar may reach any depth: every name below the pattern's folder
		dir := pat.Abs[:strings.Index(pat.Abs, "**")]
		p := ResolvePath(strings.TrimSuffix(dir, "/")+"/", env)
		p.inside = true
		return append(dst, p)
	}
	matches, err := filepath.Glob(pat.Abs)
	if err != nil {
		p := ResolvePath(filepath.Dir(pat.Abs), env)
		p.inside = true
		return append(dst, p)
	}
	for i, m := range matches {
		if i >= maxGlobPaths {
			break
		}
		dst = append(dst, ResolvePath(m, env))
	}
	return dst
}

// argRef is one word and the folder it is relative to (the working
// directory as tracked through literal cd commands).
type argRef struct {
	word, cwd string
	glob      bool // a file pattern: the names it expands to are checked as well
}

// argPaths returns the call's argument words resolved as paths.
func (c *Call) argPaths() []Path {
	a := c.args
	if a == nil {
		return nil
	}
	a.once.Do(func() {
		a.paths = make([]Path, 0, len(a.refs))
		env := Env{Home: c.Env.Home}
		for _, r := range a.refs {
			if r.glob {
				a.paths = c.globPaths(a.paths, r)
				if len(a.paths) > maxGlobPaths {
					a.globOverflow = true
				}
				continue
			}
			if p, ok := c.fastResolve(r); ok {
				a.paths = append(a.paths, p)
				continue
			}
			env.Cwd = r.cwd
			a.paths = append(a.paths, ResolvePath(r.word, env))
		}
	})
	return a.paths
}

// fastResolve resolves a plain name in the working directory with one
// Lstat: when it is not a symlink its target is the resolved working
// directory joined with it. Anything else takes the full ResolvePath.
func (c *Call) fastResolve(r argRef) (Path, bool) {
	w := r.word
	if r.cwd != c.Env.Cwd || c.realCwd == "" || w == "." || w == ".." || w == "~" || strings.ContainsRune(w, '/') {
		return Path{}, false
	}
	abs := joinDir(r.cwd, w)
	fi, err := os.Lstat(abs)
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return Path{}, false
	}
	return Path{Raw: w, Abs: abs, Real: joinDir(c.realCwd, w)}, true
}

func joinDir(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}
