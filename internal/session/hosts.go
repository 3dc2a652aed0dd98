package session

import (
	"fmt"
	"strings"

	"vibing/internal/matcher"
)

// hostClause completes the reason of a WebFetch host rule that fired on a
// Bash line (as h says), which names no URL of its own: the hosts the line
// contacts, or why they cannot be known before it runs. It is "" for any
// other rule.
func hostClause(h *matcher.Hit) string {
	if !h.OnHosts {
		return ""
	}
	if h.HostsUnknown != "" {
		return fmt.Sprintf(", which also fires when the hosts cannot be known before the line runs: %s", h.HostsUnknown)
	}
	hosts := h.Hosts
	if len(hosts) > 5 {
		hosts = append(hosts[:5:5], "...")
	}
	return ", as the line contacts " + strings.Join(hosts, ", ")
}
