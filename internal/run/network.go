package run

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"vibing/internal/session"
)

// A connection from inside the sandbox to a host no rule names (SPEC §14)
// is asked about as a WebFetch of that host, through the same approval
// block as a tool call: the engine decides it first (a session grant or
// an "always" answer given earlier lets it through), and the mode alone
// never lets it out — where the mode would allow it, it asks.

// NetworkPermission is the request the sandbox's proxy sends the runner
// (Runner.Network) about a connection to host:port; reply gets the
// verdict once (on the runner's goroutine).
func NetworkPermission(host string, port int, reply func(Verdict)) *Permission {
	u := "https://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/"
	if port == 80 {
		u = "http://" + host + "/"
	} else if port == 443 {
		u = "https://" + hostName(host) + "/"
	}
	return &Permission{Tool: "WebFetch", Input: map[string]any{"url": u,
		"prompt": "a connection from inside the sandbox to " + net.JoinHostPort(host, strconv.Itoa(port))},
		Reply: reply, network: true}
}

func hostName(h string) string {
	if strings.Contains(h, ":") {
		return "[" + h + "]"
	}
	return h
}

// network takes a connection request: a host a WebFetch call of this run
// was let fetch is allowed at once (the person answered that call
// already); anything else waits its turn in the queue.
func (s *state) network(p *Permission) {
	if s.editorGone || s.cancelled {
		p.Reply(Verdict{Message: "the run is ending, so nobody can be asked about the connection"})
		return
	}
	if h := fetchHost(p); h != "" && s.webHosts[h] {
		p.Reply(Verdict{Allow: true, Message: "the WebFetch call the person let run fetches from it"})
		return
	}
	s.queue = append(s.queue, p)
}

// networkDecision keeps the mode from letting a connection out: only a
// rule or a grant does; else the person is asked.
func networkDecision(d session.Decision) session.Decision {
	if d.Decision == session.Allow && d.Rule == "" {
		d.Decision = session.Ask
		d.Reason = "a program inside the sandbox connects to a host no rule names"
	}
	return d
}

// rememberFetch notes the host of an allowed WebFetch call: the CLI
// fetches it through the sandbox's proxy next.
func (s *state) rememberFetch(p *Permission, v Verdict) {
	if !v.Allow || p.Tool != "WebFetch" || p.network {
		return
	}
	input := p.Input
	if v.UpdatedInput != nil {
		input = v.UpdatedInput
	}
	if h := hostOf(input); h != "" {
		if s.webHosts == nil {
			s.webHosts = map[string]bool{}
		}
		s.webHosts[h] = true
	}
}

func fetchHost(p *Permission) string { return hostOf(p.Input) }

func hostOf(input map[string]any) string {
	raw, _ := input["url"].(string)
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
}
