package command

import (
	"path"
	"strings"
)

// The command keys of a call: the first words a command rule may be tried
// against (see Rule.CommandKey in the matcher for the rule's side).

// cmdKey is s up to its first space: the key of a first word.
func CmdKey(s string) string {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i]
	}
	return s
}

// commandKeys appends to keys the key of every first word a command rule
// may be tried against on c, and says whether cutting by them is sound:
// it is not for a line that did not parse, or holds a command the engine
// cannot see into or whose braces overflow (every deny and ask rule fires
// on those, whatever their names).
func (c *Call) commandKeys(keys []string) ([]string, bool) {
	if c == nil || c.Tool != "Bash" || c.Err != nil || c.BraceOverflow || len(c.Commands) == 0 {
		return keys, false
	}
	add := func(w string) {
		k := CmdKey(w)
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
		if cmd.BraceOverflow || cmd.unseen != "" {
			return keys, false
		}
		if l := cmd.lead; l != "" {
			// one first word, no base name, no other reading (setLead):
			// the words, the arguments and the text all give its key
			if t := cmd.Text; t == l || len(t) > len(l) && t[len(l)] == ' ' && t[:len(l)] == l {
				add(l)
				continue
			}
		}
		addWords(cmd.Words)
		addWords(cmd.Args)
		for _, a := range cmd.More().Alts {
			addWords(a)
		}
		add(cmd.Text)
	}
	return keys, true
}
