package egress

import (
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"vibing/internal/command"
	"vibing/internal/matcher"
	"vibing/internal/session"
)

// DefaultAPI is where the claude CLI reaches its API when
// ANTHROPIC_BASE_URL does not say otherwise.
const DefaultAPI = "https://api.anthropic.com"

// Hosts decides connections from the rules of a chat's engine, matched by
// its slow twin (Engine.Reference) like the rest of the sandbox's view.
type Hosts struct {
	twin  *session.Engine
	api   map[string]bool // host:port of the API
	named map[string]string
	extra []string // sandbox_hosts: host or *.domain
	// Named lists, for explain, the hosts allow rules name, each with its rule.
	Named []NamedHost
}

// NamedHost is a host an allow rule names.
type NamedHost struct {
	Host string `json:"host"`
	Rule string `json:"rule"`
}

// NewHosts builds the decider: apiURLs are the API's base URLs (the
// default one and $ANTHROPIC_BASE_URL), extra the sandbox_hosts entries.
func NewHosts(eng *session.Engine, apiURLs, extra []string) *Hosts {
	h := &Hosts{twin: eng.Reference(), api: map[string]bool{}, named: map[string]string{}}
	for _, a := range apiURLs {
		if hp, ok := apiHostPort(a); ok {
			h.api[hp] = true
		}
	}
	for _, e := range extra {
		if e = strings.ToLower(strings.TrimSpace(e)); e != "" {
			h.extra = append(h.extra, strings.TrimSuffix(e, "."))
		}
	}
	h.bashAllowHosts()
	return h
}

// apiHostPort is the host:port a base URL reaches.
func apiHostPort(base string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || u.Host == "" {
		return "", false
	}
	host, port, err := target(u.Host, u.Scheme)
	if err != nil {
		return "", false
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), true
}

// bashAllowHosts collects the hosts named in the Bash allow rules
// (Bash(curl https://example.com/api:*) names example.com).
func (h *Hosts) bashAllowHosts() {
	env := h.twin.Env()
	for _, lr := range h.twin.Explain().Layers {
		if lr.List != "allow" {
			continue
		}
		r, err := matcher.ParseReferenceRule(lr.Rule)
		if err != nil || r.Tool != "Bash" || !r.HasArg() || r.IsRegex() {
			continue
		}
		line := strings.TrimSuffix(strings.TrimSuffix(r.Arg, ":*"), "*")
		c := command.PrepareReference("Bash", map[string]any{"command": line}, env)
		for _, host := range c.Hosts() {
			if _, seen := h.named[host]; !seen {
				h.named[host] = lr.Rule
				h.Named = append(h.Named, NamedHost{Host: host, Rule: lr.Rule})
			}
		}
		command.Release(c)
	}
}

// Decide decides a connection to host:port without asking anyone; a host
// no rule names comes back refused with Source Unknown (Proxy asks).
func (h *Hosts) Decide(host string, port int) Verdict {
	hp := net.JoinHostPort(host, strconv.Itoa(port))
	if h.api[hp] {
		return Verdict{Allow: true, Source: "api", Reason: "the claude CLI's API"}
	}
	d := h.twin.Decide("WebFetch", map[string]any{"url": "https://" + hp + "/"})
	hostRule := d.Rule != "" && namesHost(d.Rule)
	switch {
	case d.Decision == session.Deny && hostRule:
		return Verdict{Rule: d.Rule, Source: d.Source, Reason: fmt.Sprintf("%s is refused by the deny rule %s", host, d.Rule)}
	case d.Decision == session.Ask && hostRule:
		return Verdict{Rule: d.Rule, Source: d.Source, Reason: fmt.Sprintf("%s needs approval (ask: %s), which a connection from the sandbox cannot get, so it is refused", host, d.Rule)}
	case d.Decision == session.Allow && hostRule:
		return Verdict{Allow: true, Rule: d.Rule, Source: d.Source, Reason: fmt.Sprintf("%s is allowed by %s", host, d.Rule)}
	}
	if rule, ok := h.named[hostKey(host)]; ok {
		return Verdict{Allow: true, Rule: rule, Source: "allow_list", Reason: fmt.Sprintf("%s is named by the allow rule %s", host, rule)}
	}
	for _, e := range h.extra {
		if e == host || strings.HasPrefix(e, "*.") && (host == e[2:] || strings.HasSuffix(host, e[1:])) {
			return Verdict{Allow: true, Rule: e, Source: "sandbox_hosts", Reason: fmt.Sprintf("%s is in sandbox_hosts", host)}
		}
	}
	return Verdict{Source: Unknown, Reason: fmt.Sprintf("no rule names %s", host)}
}

// CheckAddr refuses a host name that led to an address a deny rule names,
// or to a loopback, link-local or unspecified address (the person's own
// services, the cloud's metadata service): only a rule naming that address
// itself, or the API (ANTHROPIC_BASE_URL=http://localhost:4000), reaches it.
func (h *Hosts) CheckAddr(host string, port int, ip net.IP) (bool, string) {
	if net.ParseIP(host) != nil || h.api[net.JoinHostPort(host, strconv.Itoa(port))] {
		return false, "" // the address itself was decided, or the API's
	}
	local := ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified()
	if local && !h.namedExactly(host, port) {
		return true, fmt.Sprintf("%s leads to the local address %s, which only a rule naming that address reaches", host, ip)
	}
	d := h.twin.Decide("WebFetch", map[string]any{"url": "https://" + hostKey(ip.String()) + "/"})
	if d.Decision == session.Deny && d.Rule != "" && namesHost(d.Rule) {
		return true, fmt.Sprintf("%s leads to %s, which the deny rule %s refuses", host, ip, d.Rule)
	}
	return false, ""
}

// namedExactly reports whether host passes by a rule or a sandbox_hosts
// entry that names it, not a *. wildcard: the person chose that name (an
// allow of localhost reaches the loopback).
func (h *Hosts) namedExactly(host string, port int) bool {
	v := h.Decide(host, port)
	return v.Allow && v.Rule != "" && !strings.Contains(v.Rule, "*")
}

// hostKey is the spelling Call.Hosts gives an IPv6 address.
func hostKey(host string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

// namesHost reports whether a rule speaks about a host (WebFetch(x)),
// not about the WebFetch tool as a whole.
func namesHost(rule string) bool {
	r, err := matcher.ParseReferenceRule(rule)
	return err == nil && r.HasArg()
}

// Summary is what the proxy lets through and refuses, for explain.
type Summary struct {
	API []string `json:"api"` // host:port
	// Allowed are the allow rules that name hosts (WebFetch host rules,
	// Bash rules with a URL or remote).
	Allowed []string `json:"allowed_by_rules,omitempty"`
	// SandboxHosts are the sandbox_hosts entries.
	SandboxHosts []string `json:"sandbox_hosts,omitempty"`
	// Refused are the deny and ask rules that name hosts.
	Refused []string `json:"refused_by_rules,omitempty"`
}

// DenyRules are the deny rules that name hosts: the proxy refuses them
// whatever a program does, so the kernel holds them
// (session.Engine.HoldByKernel).
func (h *Hosts) DenyRules() []string {
	var out []string
	for _, lr := range h.twin.Explain().Layers {
		if r, err := matcher.ParseReferenceRule(lr.Rule); err == nil && lr.List == "deny" && r.Tool == "WebFetch" && r.HasArg() && !r.IsRegex() {
			out = append(out, lr.Rule)
		}
	}
	return out
}

// Summary lists the rules and settings the proxy decides by.
func (h *Hosts) Summary() Summary {
	s := Summary{SandboxHosts: append([]string(nil), h.extra...)}
	for hp := range h.api {
		s.API = append(s.API, hp)
	}
	sort.Strings(s.API)
	seen := map[string]bool{}
	add := func(l *[]string, r string) {
		if !seen[r] {
			seen[r] = true
			*l = append(*l, r)
		}
	}
	for _, lr := range h.twin.Explain().Layers {
		r, err := matcher.ParseReferenceRule(lr.Rule)
		if err != nil || r.Tool != "WebFetch" || !r.HasArg() {
			continue
		}
		if lr.List == "allow" {
			add(&s.Allowed, lr.Rule)
		} else {
			add(&s.Refused, lr.Rule)
		}
	}
	for _, n := range h.Named {
		add(&s.Allowed, n.Rule+" ("+n.Host+")")
	}
	return s
}
