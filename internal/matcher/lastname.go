package matcher

import "strings"

// lastName is the last name of a path rule's pattern (what a relative
// operand after a cd to a folder only known at run time is held against:
// command.Call.UnseenFor).
func (r *Rule) lastName() string {
	last := strings.TrimSuffix(r.Arg, "/")
	if i := strings.LastIndexByte(last, '/'); i >= 0 {
		last = last[i+1:]
	}
	return last
}
