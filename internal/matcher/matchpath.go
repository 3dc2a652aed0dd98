package matcher

import (
	"strings"

	"vibing/internal/command"
)

// Path rules: a rule's glob against a call's path, as written and as resolved,
// relative to the working and home folders.

// matchPath matches a path rule: in allow both the path as written and its
// symlink target must match; in deny/ask either.
func (r *Rule) matchPath(p *command.Path, c *command.Call, list List) bool {
	realCwd, realHome := c.RealCwd, c.RealHome
	if realCwd == "" {
		realCwd, realHome = c.Env.Cwd, c.Env.Home
	}
	if p.Inside() {
		if list == AllowList {
			return false
		}
		if p.Named() {
			return r.matchNamed(p, c, realCwd, realHome) // find -name X -delete: existing entries named X
		}
		return r.matchBelow(p.Abs, c.Env.Cwd, c.Env.Home) || (p.Real != p.Abs && r.matchBelow(p.Real, realCwd, realHome))
	}
	if v := c.Views; v != nil && p == c.Path && !r.ref {
		return r.matchViews(v, p, c, list)
	}
	if list == AllowList {
		if p.Unsure {
			return false
		}
		return r.matchAbs(p.Abs, c.Env.Cwd, c.Env.Home, list) && r.matchAbs(p.Real, realCwd, realHome, list)
	}
	if r.matchAbs(p.Abs, c.Env.Cwd, c.Env.Home, list) {
		return true
	}
	if (p.Real != p.Abs || realCwd != c.Env.Cwd || realHome != c.Env.Home) &&
		(r.matchAbs(p.Real, realCwd, realHome, list) || (p.Real != p.Abs && r.matchAbs(p.Real, c.Env.Cwd, c.Env.Home, list))) {
		return true
	}
	return r.hardLinked(p, c) // the same file under another name (hardlink.go)
}

// matchBelow reports whether the rule may match some file below the folder
// abs (a copy into abs/, an archive unpacked there): the folder or a file
// in it matches, or the pattern's literal start lies below the folder, or
// the folder holds the whole tree the pattern is anchored in.
func (r *Rule) matchBelow(abs, cwd, home string) bool {
	if r.anyBase {
		return true // any name at any depth may appear below
	}
	if r.matchAbs(abs, cwd, home, DenyList) || r.matchAbs(command.JoinDir(abs, "\x00x"), cwd, home, DenyList) {
		return true
	}
	sub := strings.TrimSuffix(abs, "/")
	if r.anchor != anchorRoot {
		dir := cwd
		if r.anchor == anchorHome {
			dir = home
		}
		if dir == "" {
			return false
		}
		if command.Within(dir, abs) {
			return true // the folder holds the anchor: every pattern below it
		}
		var ok bool
		if sub, ok = command.Rel(abs, dir); !ok {
			return false
		}
	}
	if sub == "" {
		return true
	}
	return r.lit == "" || r.lit == sub || strings.HasPrefix(r.lit, sub+"/") || strings.HasPrefix(sub+"/", r.lit)
}

func (r *Rule) matchAbs(abs, cwd, home string, list List) bool {
	subject := abs
	switch r.anchor {
	case anchorCwd, anchorHome:
		dir := cwd
		if r.anchor == anchorHome {
			dir = home
		}
		if dir == "" {
			return false
		}
		subject = command.RelSubject(abs, dir)
	}
	return r.matchSubject(subject, abs, list)
}

// matchView is matchAbs on a reading worked out beforehand.
func (r *Rule) matchView(v *command.PathView, list List) bool {
	subject := v.Abs
	switch r.anchor {
	case anchorCwd:
		if v.NoCwd {
			return false
		}
		subject = v.CwdRel
	case anchorHome:
		if v.NoHome {
			return false
		}
		subject = command.RelSubject(v.Abs, v.Home)
	}
	return r.matchSubject(subject, v.Abs, list)
}

// matchViews is matchPath for the call's own Path (not inside a folder,
// not restricted to names), on its readings worked out in Prepare.
func (r *Rule) matchViews(v *command.PathViews, p *command.Path, c *command.Call, list List) bool {
	if list == AllowList {
		return !p.Unsure && r.matchView(&v.Abs, list) && r.matchView(&v.Real, list)
	}
	if r.matchView(&v.Abs, list) {
		return true
	}
	if (v.RealDiffers || v.DirsDiffer) && (r.matchView(&v.Real, list) || (v.RealDiffers && r.matchView(&v.RealAtCwd, list))) {
		return true
	}
	return r.hardLinked(p, c)
}

// cannotEnd and cannotName report, from the literal parts of the pattern
// alone, that a path rule cannot match any name of the path of a file
// tool's call (one whose readings v holds: c.fileViews). In the allow list
// (cannotEnd) the path as written must match, so it must end with the
// pattern's literal end (every reading matchView takes of it is an end of
// it). In the deny and ask lists (cannotName) every reading is a part of
// the path as written or of its target, and a match of the pattern, of
// what lies below one (the pattern followed by /**) and of a base name at
// any depth all hold the pattern's literal run. (A literal deny or ask rule
// may still match through a hard link: see the caller.)
func (r *Rule) cannotEnd(v *command.PathViews) bool {
	if r.tail == "" || !command.FileRejects {
		return false
	}
	// the last bytes first, in one compare of words: most rules end
	// otherwise than the path, and are passed over without a call
	return v.AbsEnd&r.tailMsk != r.tailEnd || !strings.HasSuffix(v.Abs.Abs, r.tail)
}

// endMask keeps the low n bytes of a word (all eight from n = 8 on).
func endMask(n int) uint64 {
	if n >= 8 {
		return ^uint64(0)
	}
	return 1<<(8*n) - 1
}

// Skips reports, by the cheap tests of cannotEnd (allow list) and
// cannotName (deny and ask lists; never for a literal rule, which follows
// hard links to its file), that r surely does not match the file call c in
// list; false says nothing. A caller that tries many rules on one call
// passes over most of them this way, without the call of the full match.
func (r *Rule) Skips(c *command.Call, list List) bool {
	if r.kind != kindPath || !c.FileViews {
		return false
	}
	if list == AllowList {
		return r.cannotEnd(c.Views)
	}
	return !r.literal && r.cannotName(c.Views)
}

// EndTest is the first compare of cannotEnd for one rule, kept apart from
// it: a list of them side by side is read without reading the rules.
type EndTest struct{ mask, end uint64 }

// EndTest returns r's end test; one for no rule (nil) or a rule that is
// not about paths passes nothing over.
func (r *Rule) EndTest() EndTest {
	if r == nil || r.kind != kindPath {
		return EndTest{}
	}
	return EndTest{r.tailMsk, r.tailEnd}
}

// Rejects reports, in one compare of words, that the rule t was made for
// surely matches no path whose EndWord is w in the allow list: the path
// does not end with the literal end of every path it matches (Skips). It
// is small enough to be inlined in the loop over a list; a rule it keeps
// may still be one Skips passes over. (No tail: mask and end are both 0.)
func (t EndTest) Rejects(w uint64) bool { return w&t.mask != t.end }

func (r *Rule) cannotName(v *command.PathViews) bool {
	return r.need != "" && command.FileRejects && v.Lacks(r.need)
}

// NameTest is the test of Skips for the deny and ask lists (cannotName),
// kept apart from its rule: a list of them side by side is read without
// reading the rules.
type NameTest struct{ need string }

// NameTest returns r's name test; one for no rule (nil), a rule that is
// not about paths or a literal one (which follows hard links) passes
// nothing over.
func (r *Rule) NameTest() NameTest {
	if r == nil || r.kind != kindPath || r.literal {
		return NameTest{}
	}
	return NameTest{r.need}
}

// Rejects is Skips(c, DenyList) (and AskList) of the rule t was made for,
// told by t alone; false says nothing.
func (t NameTest) Rejects(c *command.Call) bool {
	return t.need != "" && c.FileViews && command.FileRejects && c.Views.Lacks(t.need)
}

// matchSubject matches the subject a pattern's anchor gives (relSubject)
// and, for the any-depth form, every name of abs.
func (r *Rule) matchSubject(subject, abs string, list List) bool {
	if subject != "\x00" && (r.ref || strings.HasPrefix(subject, r.lit)) {
		for _, g := range r.globs {
			if r.globMatch(g, subject) {
				return true
			}
		}
		if list != AllowList {
			for _, g := range r.below {
				if r.globMatch(g, subject) {
					return true
				}
			}
		}
	}
	if r.anyBase && list != AllowList {
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
			for _, g := range r.globs {
				if seg != "" && r.globMatch(g, seg) {
					return true
				}
			}
		}
	}
	return false
}

// globMatch is g.Match, or for the slow twin (a reference rule) the whole
// pattern without its cheap tests.
func (r *Rule) globMatch(g *command.PathGlob, s string) bool {
	if r.ref {
		return g.MatchFull(s)
	}
	return g.Match(s)
}

// matchNamed reports whether a deny or ask rule matches an entry a find
// -delete restricted to names may delete below p.
func (r *Rule) matchNamed(p *command.Path, c *command.Call, realCwd, realHome string) bool {
	rels, over := c.NamedEntries(p)
	if over {
		return r.matchBelow(p.Abs, c.Env.Cwd, c.Env.Home) || (p.Real != p.Abs && r.matchBelow(p.Real, realCwd, realHome))
	}
	for _, rel := range rels {
		abs, real := p.Abs, p.Real
		if rel != "." {
			abs, real = command.JoinDir(p.Abs, rel), command.JoinDir(p.Real, rel)
		}
		if r.matchAbs(abs, c.Env.Cwd, c.Env.Home, DenyList) || r.matchAbs(real, realCwd, realHome, DenyList) {
			return true
		}
	}
	return false
}
