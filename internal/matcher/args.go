package matcher

import (
	"os"
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

	once  sync.Once
	paths []Path
}

// argRef is one word and the folder it is relative to (the working
// directory as tracked through literal cd commands).
type argRef struct {
	word, cwd string
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
