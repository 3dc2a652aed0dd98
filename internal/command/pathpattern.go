package command

import (
	"io/fs"
	"path/filepath"
	"strings"
	"vibing/internal/pathglob"
)

// A path rule's pattern with the folder it is read from, matched as one
// question against the readings of a path (as written and as resolved,
// against the working and home folders as written and as resolved: the
// views of views.go for a file tool's path), against what a write into a
// folder may put there, and against the names in a folder read whole. How
// a rule's text becomes a pattern, and which of these questions each list
// asks (allow: every reading spelled; deny and ask: some reading named, a
// hard link to a literal path, a write into a folder), is matcher's.

// Anchor is the folder a path pattern is read from.
type Anchor uint8

// The anchors of a path pattern.
const (
	AnchorCwd  Anchor = iota // relative: below the working folder
	AnchorRoot               // /abs, //abs
	AnchorHome               // ~/x
)

// PathPattern is a compiled path pattern and its anchor. A pattern spells
// a path its globs match; it names (the way deny and ask rules read it)
// also what lies below a path it spells, and, for AnyBase, a file or
// folder of a name it spells at any depth.
type PathPattern struct {
	Globs   []*pathglob.Glob // the pattern
	Below   []*pathglob.Glob // the same with "/**" appended: what lies below a match
	Lit     string           // the pattern's literal start: a subject without it cannot match
	Anchor  Anchor
	AnyBase bool // a relative pattern without "/": it names that name at any depth
	// Full marks the slow twin: the whole pattern is tried on every
	// reading, without the literal start's test or the readings worked out
	// beforehand (c.Views); its globs are Full too (no cheap tests).
	Full bool
	// Literal marks a pattern without glob characters: in deny and ask it
	// also names a hard link to its file (hardlink.go).
	Literal bool
}

// SpellsAll reports whether the pattern spells both p as written (against
// the working and home folders) and its target (against their resolved
// forms).
func (pt *PathPattern) SpellsAll(p *Path, c *Call) bool {
	if v := c.Views; v != nil && p == c.Path && !pt.Full {
		return pt.matchView(&v.Abs, false) && pt.matchView(&v.real, false)
	}
	realCwd, realHome := c.resolvedDirs()
	return pt.matchAbs(p.Abs, c.Env.Cwd, c.Env.Home, false) && pt.matchAbs(p.Real, realCwd, realHome, false)
}

// NamesSome reports whether the pattern names p as written (against the
// working and home folders) or its target (against their resolved forms,
// or as written).
func (pt *PathPattern) NamesSome(p *Path, c *Call) bool {
	if v := c.Views; v != nil && p == c.Path && !pt.Full {
		return pt.matchView(&v.Abs, true) ||
			(v.realDiffers || v.dirsDiffer) && (pt.matchView(&v.real, true) || (v.realDiffers && pt.matchView(&v.realAtCwd, true)))
	}
	if pt.matchAbs(p.Abs, c.Env.Cwd, c.Env.Home, true) {
		return true
	}
	realCwd, realHome := c.resolvedDirs()
	return (p.Real != p.Abs || realCwd != c.Env.Cwd || realHome != c.Env.Home) &&
		(pt.matchAbs(p.Real, realCwd, realHome, true) || (p.Real != p.Abs && pt.matchAbs(p.Real, c.Env.Cwd, c.Env.Home, true)))
}

// NamesInto reports whether the pattern may name a file that a write into
// the folder p (a copy into p/, an archive unpacked there; p.Inside()) puts
// or removes there: for a find -name X -delete (p.Named()) an existing
// entry of such a name below p, else any file below it, as written or
// resolved.
func (pt *PathPattern) NamesInto(p *Path, c *Call) bool {
	realCwd, realHome := c.resolvedDirs()
	if p.Named() {
		if rels, over := c.namedEntries(p); !over {
			for _, rel := range rels {
				abs, real := p.Abs, p.Real
				if rel != "." {
					abs, real = joinDir(p.Abs, rel), joinDir(p.Real, rel)
				}
				if pt.matchAbs(abs, c.Env.Cwd, c.Env.Home, true) || pt.matchAbs(real, realCwd, realHome, true) {
					return true
				}
			}
			return false
		}
	}
	return pt.namesBelow(p.Abs, c.Env.Cwd, c.Env.Home) || (p.Real != p.Abs && pt.namesBelow(p.Real, realCwd, realHome))
}

// NamesAllBelow reports whether the pattern names every file below the
// folder p of call c (a name no pattern spells, placed there, is named),
// as written or resolved.
func (pt *PathPattern) NamesAllBelow(p *Path, c *Call) bool {
	realCwd, realHome := c.resolvedDirs()
	return pt.namesAllIn(p.Abs, c.Env.Cwd, c.Env.Home) || (p.Real != "" && pt.namesAllIn(p.Real, realCwd, realHome))
}

// Names reports whether the pattern names the absolute path abs, read
// against the working folder cwd and the home folder home.
func (pt *PathPattern) Names(abs, cwd, home string) bool { return pt.matchAbs(abs, cwd, home, true) }

// NamedInTree reports whether the folder p, which a command reads whole,
// holds a file or folder whose name the pattern spells (for an AnyBase
// pattern, which names it at any depth). The folders .git and node_modules
// are not looked into (a limit the README states); a folder too large to
// look through counts as holding one.
func (pt *PathPattern) NamedInTree(p *Path) bool {
	n := 0
	found := false
	for _, root := range []string{p.Abs, p.Real} {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			n++
			if n > MaxTreeEntries {
				found = true
				return filepath.SkipAll
			}
			name := d.Name()
			for _, g := range pt.Globs {
				if g.Match(name) {
					found = true
					return filepath.SkipAll
				}
			}
			if d.IsDir() && path != root && (name == ".git" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		})
		if found || p.Real == p.Abs {
			break
		}
	}
	return found
}

// namesBelow reports whether the pattern may name some file below the
// folder abs: the folder or a file in it is named, or the pattern's
// literal start lies below the folder, or the folder holds the whole tree
// the pattern is anchored in.
func (pt *PathPattern) namesBelow(abs, cwd, home string) bool {
	if pt.AnyBase {
		return true // any name at any depth may appear below
	}
	if pt.matchAbs(abs, cwd, home, true) || pt.namesAllIn(abs, cwd, home) {
		return true
	}
	sub := strings.TrimSuffix(abs, "/")
	if pt.Anchor != AnchorRoot {
		dir := cwd
		if pt.Anchor == AnchorHome {
			dir = home
		}
		if dir == "" {
			return false
		}
		if within(dir, abs) {
			return true // the folder holds the anchor: every pattern below it
		}
		var ok bool
		if sub, ok = Rel(abs, dir); !ok {
			return false
		}
	}
	if sub == "" {
		return true
	}
	return pt.Lit == "" || pt.Lit == sub || strings.HasPrefix(pt.Lit, sub+"/") || strings.HasPrefix(sub+"/", pt.Lit)
}

// namesAllIn reports whether the pattern names a name no pattern spells
// placed in the folder dir: then it names every file there.
func (pt *PathPattern) namesAllIn(dir, cwd, home string) bool {
	return pt.matchAbs(joinDir(dir, "\x00x"), cwd, home, true)
}

// matchAbs reports whether the pattern spells (wide: names) abs, read
// against cwd and home.
func (pt *PathPattern) matchAbs(abs, cwd, home string, wide bool) bool {
	subject := abs
	switch pt.Anchor {
	case AnchorCwd, AnchorHome:
		dir := cwd
		if pt.Anchor == AnchorHome {
			dir = home
		}
		if dir == "" {
			return false
		}
		subject = relSubject(abs, dir)
	}
	return pt.matchSubject(subject, abs, wide)
}

// matchView is matchAbs on a reading worked out beforehand.
func (pt *PathPattern) matchView(v *PathView, wide bool) bool {
	subject := v.Abs
	switch pt.Anchor {
	case AnchorCwd:
		if v.noCwd {
			return false
		}
		subject = v.cwdRel
	case AnchorHome:
		if v.noHome {
			return false
		}
		subject = relSubject(v.Abs, v.home)
	}
	return pt.matchSubject(subject, v.Abs, wide)
}

// matchSubject matches the subject the pattern's anchor gives (relSubject)
// and, wide, what lies below it and, for the any-depth form, every name of
// abs.
func (pt *PathPattern) matchSubject(subject, abs string, wide bool) bool {
	if subject != "\x00" && (pt.Full || strings.HasPrefix(subject, pt.Lit)) {
		for _, g := range pt.Globs {
			if g.Match(subject) {
				return true
			}
		}
		if wide {
			for _, g := range pt.Below {
				if g.Match(subject) {
					return true
				}
			}
		}
	}
	if pt.AnyBase && wide {
		// any folder or file of that name, at any depth, and what lies below it
		rest := abs
		for rest != "" {
			rest = strings.TrimLeft(rest, "/")
			seg := rest
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				seg, rest = rest[:i], rest[i:]
			} else {
				rest = ""
			}
			for _, g := range pt.Globs {
				if seg != "" && g.Match(seg) {
					return true
				}
			}
		}
	}
	return false
}

// Matches reports whether the pattern matches p, a path of call c, as a
// rule of the allow list (allow) or of the deny and ask lists: in allow
// it must spell both the path as written and its symlink target; in deny
// and ask it must name either, or the path is a hard link to the file a
// literal pattern names, or the path is a folder a write may put a file
// the pattern names in.
func (pt *PathPattern) Matches(p *Path, c *Call, allow bool) bool {
	switch {
	case p.Inside():
		return !allow && pt.NamesInto(p, c)
	case allow:
		return !p.Unsure && pt.SpellsAll(p, c)
	}
	return pt.NamesSome(p, c) || (pt.Literal && pt.LinkedBy(p, c))
}
