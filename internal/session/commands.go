package session

import (
	"fmt"

	"vibing/internal/matcher"
	"vibing/internal/tools"
)

// commandView returns the Bash view of a call of a tool other than Bash that
// runs a shell command (the CLI's Monitor; an MCP or unknown tool whose input
// has a "command"): the same command prepared as a Bash call, so that the
// guard, the deny and ask rules for Bash, the default deny rules and the
// files-that-run-code step see it. nil for every other call.
//
// An allow for such a call comes from a rule that names the tool itself
// (Monitor, mcp__server__tool, a prefix) or from Bash allow rules that cover
// the command, as they would cover it in Bash; a bare "ask: Bash" yields to
// either, like to any narrower allow.
func (e *Engine) commandView(c *matcher.Call) *matcher.Call {
	if c.Tool == "Bash" {
		return nil
	}
	cmd, ok := tools.CommandOf(c.Tool, c.Input)
	if !ok {
		return nil
	}
	return matcher.Prepare("Bash", map[string]any{"command": cmd}, c.Env)
}

// commandText is the command a call runs, for describing it.
func commandText(c *matcher.Call) string {
	if c.Tool == "Bash" {
		return c.Command
	}
	s, _ := tools.CommandOf(c.Tool, c.Input)
	return s
}

// searchNote explains a Read rule that fires on a Grep because of what lies
// below its folder rather than the folder itself.
func searchNote(v *matcher.Call, r *rule) string {
	if v.Tool != "Grep" || r.Rule == nil || r.Rule.Tool != "Read" || !r.Rule.HasArg() || v.Err != nil {
		return ""
	}
	root, _ := v.SearchRoot()
	probe := &matcher.Call{Tool: "Read", Path: &root, Env: v.Env, Detail: root.Abs}
	if r.Rule.Match(probe, matcher.DenyList) {
		return ""
	}
	return fmt.Sprintf(", which names files below %s that the search would read; give a narrower path or a glob that leaves them out", root.Abs)
}

// Suggest returns the narrowest useful rule for an "always" or "for session"
// answer to a call that asks: for an ask about a file that runs code by
// itself, the Edit rule that names it; for a tool that runs a command, the
// Bash rule for that command; else matcher.Suggest's.
func (e *Engine) Suggest(tool string, input map[string]any) string {
	c := e.Prepare(tool, input)
	bc := e.commandView(c)
	if d := e.DecideCall(c); d.Source == SourceAutorun {
		for _, v := range []*matcher.Call{c, bc} {
			if v == nil {
				continue
			}
			if hits := e.autorunHits(v); len(hits) > 0 {
				return e.explicitRule(v, hits[0])
			}
		}
	}
	if bc != nil && bc.Err == nil {
		return matcher.Suggest(bc)
	}
	return matcher.Suggest(c)
}
