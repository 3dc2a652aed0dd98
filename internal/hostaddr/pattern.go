package hostaddr

import "strings"

// Pattern is the host of a host rule (WebFetch(github.com),
// WebFetch(*.example.org), WebFetch(10.0.0.1)), compared with canonical
// hosts (NormHost's) as they are: what a rule names is worked out once,
// when it is read.
type Pattern struct {
	Host  string // canonical (NormHost)
	Wild  bool   // *.domain: the domain and its subdomains in every list
	IP    bool   // an IP address: no subdomains
	nat64 string // for an IPv4 address, the NAT64 address that reaches it
}

// NewPattern is the pattern of the canonical host h; wild for *.h.
func NewPattern(h string, wild bool) Pattern {
	return Pattern{Host: h, Wild: wild, IP: IsIPHost(h), nat64: NAT64(h)}
}

// Matches reports whether the pattern names the canonical host h. Exact is
// the allow list's reading: there a host names that host alone, as in
// Claude Code; otherwise (deny, ask) it also names every subdomain, as
// whoever owns a domain owns its subdomains, and a deny a subdomain walks
// around protects nothing. *.domain names the subdomains in every list. An
// IP address names that address and, outside the exact reading, the IPv6
// address that reaches it through NAT64 (64:ff9b::a.b.c.d).
func (p *Pattern) Matches(h string, exact bool) bool {
	if h == "" {
		return false
	}
	if h == p.Host {
		return true
	}
	if p.IP {
		return !exact && p.nat64 != "" && h == p.nat64
	}
	if !p.Wild && exact {
		return false
	}
	return len(h) > len(p.Host) && strings.HasSuffix(h, p.Host) && h[len(h)-len(p.Host)-1] == '.'
}

// MatchesAny reports whether the pattern names one of hosts (Matches).
func (p *Pattern) MatchesAny(hosts []string, exact bool) bool {
	for _, h := range hosts {
		if p.Matches(h, exact) {
			return true
		}
	}
	return false
}
