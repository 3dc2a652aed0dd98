package matcher

import (
	"vibing/internal/command"
)

// Host rules on a Bash line: a deny or ask WebFetch rule fires on the hosts
// the line's analysis says it may contact (hosts.go, nettools.go).

// matchBashHosts fires a deny or ask WebFetch rule on a Bash line that may
// contact a matching host, or a host only known at run time.
func (r *Rule) matchBashHosts(c *command.Call, list List) bool {
	n := c.BashHosts()
	return n.Unknown != "" || r.host.MatchesAny(n.Hosts, list == AllowList)
}
