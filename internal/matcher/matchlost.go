package matcher

import (
	"fmt"
	"path"
	"strings"

	"vibing/internal/command"
)

// Path rules after a cd to a folder only known at run time: a relative
// operand whose name the rule could name fires it (cwd.go records them).

// lostReason is why a file rule fires on a relative operand after a cd to
// a folder only known at run time: the operand's name could be one the
// rule names (the rule's last name matches it, or is **); "" when no such
// operand could be.
func (r *Rule) lostReason(c *command.Call) string {
	if len(c.LostRel) == 0 || r == nil || r.kind != kindPath {
		return ""
	}
	last := strings.TrimSuffix(r.Arg, "/")
	if i := strings.LastIndexByte(last, '/'); i >= 0 {
		last = last[i+1:]
	}
	for _, w := range c.LostRel {
		base := path.Base(w)
		ok, err := path.Match(last, base)
		if ok || err != nil || last == "**" || last == "" || strings.ContainsAny(last, "{\\") {
			return fmt.Sprintf("%s is a relative path after a cd to a folder only known at run time", command.Short(w))
		}
	}
	return ""
}
