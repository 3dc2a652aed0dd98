package matcher

import (
	"strings"

	"vibing/internal/command"
)

// Path rules: the cheap tests that pass a path rule over without its full
// match (what a rule's pattern must match of a path in each list is
// command.PathPattern.Matches). A deny or ask rule naming a literal path also
// fires on a hard link to that file made earlier (command/hardlink.go).

// cannotEnd and cannotName report, from the literal parts of the pattern
// alone, that a path rule cannot match any name of the path of a file
// tool's call (one whose readings v holds: c.fileViews). In the allow list
// (cannotEnd) the path as written must match, so it must end with the
// pattern's literal end (every reading the pattern takes of it is an end of
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
	return !r.pat.Literal && r.cannotName(c.Views)
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
	if r == nil || r.kind != kindPath || r.pat.Literal {
		return NameTest{}
	}
	return NameTest{r.need}
}

// Rejects is Skips(c, DenyList) (and AskList) of the rule t was made for,
// told by t alone; false says nothing.
func (t NameTest) Rejects(c *command.Call) bool {
	return t.need != "" && c.FileViews && command.FileRejects && c.Views.Lacks(t.need)
}
