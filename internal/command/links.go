package command

import (
	"path"
	"strings"
)

// Links a line makes before it uses them: `ln -s ~/.config l && echo x >>
// l/nvim/init.lua` writes ~/.config/nvim/init.lua, which no look-up finds
// when the engine decides (l does not exist yet). The walk remembers each
// symbolic link the line makes, and a path through its name also stands for
// the path through its target.

// linkAlias is one link made on the line: name (absolute) points at target
// (absolute).
type linkAlias struct{ name, target string }

// noteLink records the link command me makes, if it is ln -s with a known
// target and name.
func (s *scriptWalk) noteLink(me int) {
	c := &s.w.c.Commands[me]
	if len(c.Args) < 3 || programName(c.Args[0]) != "ln" || c.Dynamic {
		return
	}
	ops := operandsOf(c.Args[1:])
	if len(ops) == 0 || len(ops) > 2 {
		return
	}
	target := ops[0]
	name := path.Base(strings.TrimSuffix(target, "/"))
	if len(ops) == 2 {
		name = ops[1]
		if s.dirExists(name) {
			name = path.Join(name, path.Base(strings.TrimSuffix(target, "/")))
		}
	}
	env := Env{Cwd: s.w.c.Env.Cwd, Home: s.w.c.Env.Home}
	if dir, ok := s.w.dir.sure(); ok {
		env.Cwd = dir
	}
	n := ResolvePath(name, env)
	symbolic := false
	for _, a := range c.Args[1:] {
		if a == "--symbolic" || (len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 's')) {
			symbolic = true
		}
	}
	t := target
	if symbolic && isRelative(t) && !strings.HasPrefix(t, "~") {
		t = path.Join(path.Dir(n.Abs), t) // a relative target is read from the link's folder
	}
	tp := ResolvePath(t, env)
	s.w.links = append(s.w.links, linkAlias{name: n.Abs, target: tp.Abs})
}

// throughLinks adds to dst the path p stands for through the links the
// line made before (a link's name replaced by its target).
func (w *shellWalker) throughLinks(dst []Path, p Path, env Env) []Path {
	for i := len(w.links) - 1; i >= 0; i-- {
		l := w.links[i]
		if p.Abs != l.name && !strings.HasPrefix(p.Abs, l.name+"/") {
			continue
		}
		q := ResolvePath(l.target+p.Abs[len(l.name):], env)
		q.Unsure = p.Unsure
		dst = append(dst, q)
	}
	return dst
}
