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
	if n.Unknown != "" {
		return true
	}
	for _, h := range n.Hosts {
		if r.matchHost(h, list) {
			return true
		}
	}
	return false
}

// HostsUnseen reports, for a deny or ask WebFetch host rule that matches
// the Bash call c, the reason when it matches only because the line may
// reach a host known at run time (no host it names matches), and ""
// otherwise.
func (r *Rule) HostsUnseen(c *command.Call, list List) string {
	if r == nil || c == nil || c.Tool != "Bash" || r.kind != kindDomain || list == AllowList {
		return ""
	}
	n := c.BashHosts()
	if n.Unknown == "" {
		return ""
	}
	for _, h := range n.Hosts {
		if r.matchHost(h, list) {
			return ""
		}
	}
	return n.Unknown
}
