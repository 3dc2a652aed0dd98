package session

import (
	"fmt"
	"strings"

	"vibing/internal/command"
)

// hostClause completes the reason of a WebFetch host rule that fired on a
// Bash line, which names no URL of its own: the hosts the line contacts, or
// why they cannot be known before it runs. It is "" for any other rule.
func hostClause(c *command.Call, r *rule) string {
	if r.err != nil || !r.Rule.OnHosts() || c.Tool != "Bash" || c.Err != nil {
		return ""
	}
	if why := c.HostsUnknown(); why != "" {
		return fmt.Sprintf(", which also fires when the hosts cannot be known before the line runs: %s", why)
	}
	hosts := c.Hosts()
	if len(hosts) > 5 {
		hosts = append(hosts[:5:5], "...")
	}
	return ", as the line contacts " + strings.Join(hosts, ", ")
}
