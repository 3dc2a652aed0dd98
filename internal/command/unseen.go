package command

import (
	"fmt"
	"path"
	"strings"
)

// What the engine cannot see through on a Bash call, noted once the line
// is walked (opaque.go decides it per command).

// unseenReason is the first reason a Bash call cannot be seen through, for
// command rules, or (files) for file rules.
func (c *Call) unseenReason(files bool) string {
	if c.UnseenCmd != "" || !files {
		return c.UnseenCmd
	}
	if c.unseenArg != "" {
		return c.unseenArg
	}
	if c.args != nil && c.args.globOverflow {
		return "a file pattern on the line names more files than are checked"
	}
	return ""
}

// UnseenFor is why a file rule whose last name is the pattern last cannot
// tell what the Bash line c does: unseenReason(true), else a relative
// operand after a cd to a folder only known at run time whose name could
// be one the rule names (last matches its base name, or is ** or "", or is
// a pattern path.Match cannot read the way the rule does); "" when nothing
// is unseen.
func (c *Call) UnseenFor(last string) string {
	if why := c.unseenReason(true); why != "" {
		return why
	}
	for _, w := range c.LostRel {
		ok, err := path.Match(last, path.Base(w))
		if ok || err != nil || last == "**" || last == "" || strings.ContainsAny(last, "{\\") {
			return fmt.Sprintf("%s is a relative path after a cd to a folder only known at run time", Short(w))
		}
	}
	return ""
}

// noteUnseen records, once the line is walked, the first reason a command
// cannot be seen through and the first argument only known at run time.
func (c *Call) noteUnseen() {
	for i := range c.Commands {
		cmd := &c.Commands[i]
		if cmd.unseen != "" && c.UnseenCmd == "" {
			c.UnseenCmd = cmd.unseen
		}
		if computed := cmd.More().computed; len(computed) > 0 && c.unseenArg == "" {
			c.unseenArg = fmt.Sprintf("an argument of %s is only known at run time (%s)", cmd.Words[0], computed[0])
		}
	}
}

// Unseen returns the reasons the engine cannot see what a Bash call runs
// (empty when it can see all of it).
func (c *Call) Unseen() []string {
	if c.UnseenCmd == "" {
		return nil // noteUnseen found none when the line was walked
	}
	var out []string
	for i := range c.Commands {
		if u := c.Commands[i].unseen; u != "" {
			out = append(out, u)
		}
	}
	return out
}
