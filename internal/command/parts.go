package command

import "strings"

// Parts returns the simple commands of a Bash line as written in it (quotes
// and substitutions kept, redirections left out), in order: the commands of
// the line itself, not those a sh -c, eval or $(…) runs inside them (those
// stay in the text of the command that runs them). A line that did not
// parse, or a call of another tool, has none.
func (c *Call) Parts() []string {
	if c == nil || c.Tool != "Bash" || c.Err != nil {
		return nil
	}
	var out []string
	for i := range c.Commands {
		cmd := &c.Commands[i]
		if cmd.parent >= 0 || cmd.denyOnly || cmd.node == nil || !cmd.node.Pos().IsValid() {
			continue
		}
		from, to := int(cmd.node.Pos().Offset()), int(cmd.node.End().Offset())
		if from < 0 || to > len(c.Command) || from >= to {
			continue
		}
		if s := strings.TrimSpace(c.Command[from:to]); s != "" {
			out = append(out, s)
		}
	}
	return out
}
