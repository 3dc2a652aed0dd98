package command

import "strings"

// The readings of a call's path that path rules try, worked out once per
// call (pathViews), and the path helpers they rest on.

// Within reports whether the absolute path p is dir or lies below it.
func Within(p, dir string) bool { return within(p, dir) }

// within reports whether p is dir or lies below it.
func within(p, dir string) bool {
	if p == "" || dir == "" {
		return false
	}
	if dir == "/" {
		return true
	}
	dir = strings.TrimSuffix(dir, "/")
	return strings.HasPrefix(p, dir) && (len(p) == len(dir) || p[len(dir)] == '/')
}

// relSubject is abs as a pattern anchored at dir reads it: relative to dir,
// "" for dir itself, "\x00" outside it (where only the any-depth base-name
// form may match).
func relSubject(abs, dir string) string {
	if abs == dir {
		return ""
	}
	if s, ok := Rel(abs, dir); ok {
		return s
	}
	return "\x00"
}

// PathView is one reading of a path: absolute, and as patterns anchored at
// the working folder see it; the home folder's reading is worked out by
// the few patterns anchored there (PathPattern.matchView), not for every
// call.
type PathView struct {
	Abs           string
	cwdRel, home  string
	noCwd, noHome bool
}

// set makes v the reading of abs against cwd and home.
func (v *PathView) set(abs, cwd, home string) {
	v.Abs, v.home, v.noCwd, v.noHome = abs, home, cwd == "", home == ""
	v.cwdRel = ""
	if !v.noCwd {
		v.cwdRel = relSubject(abs, cwd)
	}
}

// PathViews are the readings of a call's Path that path patterns try
// (PathPattern.SpellsAll, NamesSome), worked out once per call rather than
// once per rule: the path as written against the working and home folders,
// its target against their resolved forms, and its target against the
// folders as written.
type PathViews struct {
	Abs             PathView
	real, realAtCwd PathView
	AbsEnd          uint64 // EndWord(Abs.Abs), for matcher's end test
	realDiffers     bool   // real != Abs
	dirsDiffer      bool   // the resolved working or home folder differs from the written one
}

// fill works out the readings of p, a path of c.
func (v *PathViews) fill(p *Path, c *Call) {
	realCwd, realHome := c.resolvedDirs()
	// field by field: v may be part of a larger object (fileCall), and
	// a whole-struct copy into it costs a barrier per pointer
	v.Abs.set(p.Abs, c.Env.Cwd, c.Env.Home)
	v.AbsEnd = EndWord(p.Abs)
	v.realDiffers = p.Real != p.Abs
	v.dirsDiffer = realCwd != c.Env.Cwd || realHome != c.Env.Home
	if v.realDiffers || v.dirsDiffer {
		v.real.set(p.Real, realCwd, realHome)
	} else {
		v.real = v.Abs // the same path against the same folders (no link on the way)
	}
	if v.realDiffers {
		v.realAtCwd.set(p.Real, c.Env.Cwd, c.Env.Home)
	} else {
		v.realAtCwd = PathView{}
	}
}

// resolvedDirs are the working and home folders resolved, as the call's
// targets are read against them: the folders as written when the call
// does not know them resolved.
func (c *Call) resolvedDirs() (cwd, home string) {
	if c.RealCwd == "" {
		return c.Env.Cwd, c.Env.Home
	}
	return c.RealCwd, c.RealHome
}

// EndWord packs the last (up to eight) bytes of s into a word, the last
// byte lowest: when s ends with t, EndWord(s) masked to its low len(t)
// bytes is EndWord(t).
func EndWord(s string) uint64 {
	if n := len(s); n >= 8 { // one load (the compiler joins the bytes)
		s = s[n-8:]
		return uint64(s[7]) | uint64(s[6])<<8 | uint64(s[5])<<16 | uint64(s[4])<<24 |
			uint64(s[3])<<32 | uint64(s[2])<<40 | uint64(s[1])<<48 | uint64(s[0])<<56
	}
	var w uint64
	for i := 0; i < len(s); i++ {
		w = w<<8 | uint64(s[i])
	}
	return w
}

// EndWord is the word of the last bytes of the call's path (EndWord) for
// EndTest.Rejects, worked out in Prepare; ok is false when that test does
// not apply to the call (not one path of a file tool).
func (c *Call) EndWord() (w uint64, ok bool) {
	if !c.FileViews || !FileRejects {
		return 0, false
	}
	return c.Views.AbsEnd, true
}

// FileRejects turns matcher's end and name tests of a file call on (the
// tests compare matches without them).
var FileRejects = true

// Lacks reports whether no name the path goes by holds need.
func (v *PathViews) Lacks(need string) bool {
	return !strings.Contains(v.Abs.Abs, need) && (!v.realDiffers || !strings.Contains(v.real.Abs, need))
}
