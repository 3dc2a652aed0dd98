package matcher

import "strings"

// lastName is the last name of a path rule's pattern arg (what a relative
// operand after a cd to a folder only known at run time is held against:
// command.Call.UnseenFor), worked out when the rule is read (Rule.last).
func lastName(arg string) string {
	last := strings.TrimSuffix(arg, "/")
	if i := strings.LastIndexByte(last, '/'); i >= 0 {
		last = last[i+1:]
	}
	return last
}
