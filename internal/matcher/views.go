package matcher

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
	if s, ok := rel(abs, dir); ok {
		return s
	}
	return "\x00"
}

// pathView is one reading of a path: absolute, and as patterns anchored at
// the working folder see it ("-" when that folder is unknown); the home
// folder's reading is worked out by the few rules anchored there
// (matchView), not for every call.
type pathView struct {
	abs, cwdRel, home string
	noCwd, noHome     bool
}

// set makes v the reading of abs against cwd and home.
func (v *pathView) set(abs, cwd, home string) {
	v.abs, v.home, v.noCwd, v.noHome = abs, home, cwd == "", home == ""
	v.cwdRel = ""
	if !v.noCwd {
		v.cwdRel = relSubject(abs, cwd)
	}
}

// pathViews are the readings of a call's Path that matchPath tries, worked
// out once per call rather than once per rule: the path as written against
// the working and home folders, its target against their resolved forms,
// and its target against the folders as written.
type pathViews struct {
	abs, real, realAtCwd pathView
	absEnd               uint64 // endWord(abs.abs), for cannotEnd
	realDiffers          bool   // Real != Abs
	dirsDiffer           bool   // the resolved working or home folder differs from the written one
}

// fill works out the readings of p, a path of c.
func (v *pathViews) fill(p *Path, c *Call) {
	realCwd, realHome := c.realCwd, c.realHome
	if realCwd == "" {
		realCwd, realHome = c.Env.Cwd, c.Env.Home
	}
	// field by field: v may be part of a larger object (fileCall), and
	// a whole-struct copy into it costs a barrier per pointer
	v.abs.set(p.Abs, c.Env.Cwd, c.Env.Home)
	v.absEnd = endWord(p.Abs)
	v.realDiffers = p.Real != p.Abs
	v.dirsDiffer = realCwd != c.Env.Cwd || realHome != c.Env.Home
	if v.realDiffers || v.dirsDiffer {
		v.real.set(p.Real, realCwd, realHome)
	} else {
		v.real = v.abs // the same path against the same folders (no link on the way)
	}
	if v.realDiffers {
		v.realAtCwd.set(p.Real, c.Env.Cwd, c.Env.Home)
	} else {
		v.realAtCwd = pathView{}
	}
}

// endWord packs the last (up to eight) bytes of s into a word, the last
// byte lowest: when s ends with t, endWord(s)&endMask(len(t)) ==
// endWord(t).
func endWord(s string) uint64 {
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

// EndWord is the word of the last bytes of the call's path (endWord) for
// EndTest.Rejects, worked out in Prepare; ok is false when that test does
// not apply to the call (not one path of a file tool).
func (c *Call) EndWord() (w uint64, ok bool) {
	if !c.fileViews || !fileRejects {
		return 0, false
	}
	return c.views.absEnd, true
}

// fileRejects turns cannotMatchFile on (the tests compare matches without it).
var fileRejects = true

// lacks reports whether no name the path goes by holds need.
func (v *pathViews) lacks(need string) bool {
	return !strings.Contains(v.abs.abs, need) && (!v.realDiffers || !strings.Contains(v.real.abs, need))
}
