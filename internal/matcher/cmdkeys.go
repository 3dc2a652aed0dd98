package matcher

import (
	"strings"

	"vibing/internal/command"
)

// Command keys: what lets a rule set be cut down to the Bash rules that may
// speak about a line. A command rule fires only on a simple command whose
// first word (as written, behind its wrappers, in one of its other word
// lists, or the base name of any of these) starts with the rule's command
// name; CommandKey and the call's Cut.Keys (command.Call.Cut) name that word on both sides, cut at
// its first space, so that the keys of a rule and a command are equal
// whenever the rule can fire on the command. The cut is exact: a rule left
// out is one that cannot match (TestCutPerCallKeepsDecisions compares).

// CommandKey is the key every command this rule can fire on has among the
// call's Cut.Keys; ok is false for a rule that is not a command rule, or whose
// pattern does not fix its command name (Bash(*), Bash(np*)).
func (r *Rule) CommandKey() (key string, ok bool) {
	if r == nil || r.kind != kindBash {
		return "", false
	}
	switch r.mode {
	case bashExact, bashPrefix:
		if len(r.words) == 0 || r.words[0] == "" || r.spelledLead {
			return "", false // (a spelling under another name: Bash(pip3 install:*) is pip install too)
		}
		return command.CmdKey(r.words[0]), true
	}
	// wildcard: every text it matches starts with wildNeed, and wildBare
	// (the pattern without its " *") is matched as a word prefix
	if r.wildBare != "" {
		return command.CmdKey(r.wildBare), true
	}
	if i := strings.IndexByte(r.wildNeed, ' '); i > 0 {
		return r.wildNeed[:i], true
	}
	return "", false
}
