package matcher

import "vibing/internal/command"

// A Read deny rule may fire on a Bash line only because one of its
// commands reads a folder whole (grep -r x ., tar c .) that holds a file
// the rule names. Unlike a file the line names, the person can judge that
// read (the engine asks rather than refuses: session.softens), unless the
// rule names every file of the folder (Read(secrets/**) and grep -r x
// secrets), which reads nothing else.

// readsWhole reports whether the rule is one a folder read whole may hit:
// a Read (or NotebookRead) path rule.
func (r *Rule) readsWhole() bool { return r.Tool == "Read" || r.Tool == "NotebookRead" }

// NamesAllBelow reports whether the path rule names every file below the
// folder p of call c (a name no rule spells, placed there, matches it in
// the deny list), as written or resolved.
func (r *Rule) NamesAllBelow(p *command.Path, c *command.Call) bool {
	if r == nil || r.kind != kindPath || p == nil {
		return false
	}
	return r.pat.NamesAllBelow(p, c)
}
