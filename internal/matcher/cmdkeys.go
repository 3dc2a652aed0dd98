package matcher

import (
	"path"
	"strings"
)

// Command keys: what lets a rule set be cut down to the Bash rules that may
// speak about a line. A command rule fires only on a simple command whose
// first word (as written, behind its wrappers, in one of its other word
// lists, or the base name of any of these) starts with the rule's command
// name; CommandKey and CommandKeys name that word on both sides, cut at
// its first space, so that the keys of a rule and a command are equal
// whenever the rule can fire on the command. The cut is exact: a rule left
// out is one that cannot match (TestCutPerCallKeepsDecisions compares).

// cmdKey is s up to its first space: the key of a first word.
func cmdKey(s string) string {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i]
	}
	return s
}

// CommandKey is the key every command this rule can fire on has among its
// CommandKeys; ok is false for a rule that is not a command rule, or whose
// pattern does not fix its command name (Bash(*), Bash(np*)).
func (r *Rule) CommandKey() (key string, ok bool) {
	if r == nil || r.kind != kindBash {
		return "", false
	}
	switch r.mode {
	case bashExact, bashPrefix:
		if len(r.words) == 0 || r.words[0] == "" {
			return "", false
		}
		return cmdKey(r.words[0]), true
	}
	// wildcard: every text it matches starts with wildNeed, and wildBare
	// (the pattern without its " *") is matched as a word prefix
	if r.wildBare != "" {
		return cmdKey(r.wildBare), true
	}
	if i := strings.IndexByte(r.wildNeed, ' '); i > 0 {
		return r.wildNeed[:i], true
	}
	return "", false
}

// CommandKeys appends to keys the key of every first word a command rule
// may be tried against on c, and says whether cutting by them is sound:
// it is not for a line that did not parse, or holds a command the engine
// cannot see into or whose braces overflow (every deny and ask rule fires
// on those, whatever their names).
func (c *Call) CommandKeys(keys []string) ([]string, bool) {
	if c == nil || c.Tool != "Bash" || c.Err != nil || c.braceOverflow || len(c.Commands) == 0 {
		return keys, false
	}
	add := func(w string) {
		k := cmdKey(w)
		for _, have := range keys {
			if have == k {
				return
			}
		}
		keys = append(keys, k)
	}
	addWords := func(words []string) {
		if len(words) == 0 {
			return
		}
		add(words[0])
		if strings.Contains(words[0], "/") {
			add(path.Base(words[0]))
		}
	}
	for i := range c.Commands {
		cmd := &c.Commands[i]
		if cmd.braceOverflow || cmd.unseen != "" {
			return keys, false
		}
		addWords(cmd.Words)
		addWords(cmd.Args)
		for _, a := range cmd.more().alts {
			addWords(a)
		}
		add(cmd.Text)
	}
	return keys, true
}
