package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"vibing/internal/egress"
)

// Report is the sandbox part of explain: whether the CLI runs inside it
// and the view it would get.
type Report struct {
	Setting string `json:"setting"` // auto | on | off
	On      bool   `json:"on"`      // the next turn runs inside bubblewrap
	Why     string `json:"why,omitempty"`
	View    *View  `json:"view,omitempty"`
	// Session is what of the person's session stays outside.
	Session *Session `json:"session,omitempty"`
	// Network is what the sandbox's network proxy lets through.
	Network *egress.Summary `json:"network,omitempty"`
}

// Session is what of the person's session the sandbox keeps outside.
type Session struct {
	// HiddenSockets are the runtime folders made empty and the sockets
	// the session's variables name, covered by an empty file.
	HiddenSockets []string `json:"hidden_sockets"`
	// EnvWithheld are the variables of this environment that stay
	// outside (session sockets, credentials; sandbox_env_allow lets the
	// latter in).
	EnvWithheld []string `json:"env_withheld"`
	// Terminal says whether a process inside can type into the terminal.
	Terminal string `json:"terminal"`
}

// sessionReport is the Session part of a report for this process's
// environment.
func sessionReport(v *View, allow []string) *Session {
	s := &Session{}
	dirs, files := sessionSockets(os.Getenv)
	for _, p := range append(dirs, files...) {
		if !v.inPrivateTmp(p, nil) {
			s.HiddenSockets = append(s.HiddenSockets, p)
		}
	}
	_, s.EnvWithheld = FilterEnv(os.Environ(), allow)
	legacy := "unknown"
	if b, err := os.ReadFile("/proc/sys/dev/tty/legacy_tiocsti"); err == nil {
		legacy = strings.TrimSpace(string(b))
	}
	if TIOCSTIFilterHere() {
		s.Terminal = "nothing inside can type into your terminal: a seccomp filter refuses TIOCSTI and TIOCLINUX"
	} else {
		s.Terminal = fmt.Sprintf("TIOCSTI is not filtered on %s: a process inside `vibing-agent claude` could type into your terminal unless the kernel refuses it (dev.tty.legacy_tiocsti = %s; 0 refuses)", runtime.GOARCH, legacy)
	}
	return s
}

// NewReport derives the report for a setting and a view input.
func NewReport(setting string, in Input) Report {
	if setting == "" {
		setting = "auto"
	}
	r := Report{Setting: setting}
	c, err := Choose(setting)
	switch {
	case err != nil:
		r.Why = err.Error()
	case !c.Use:
		r.Why = c.Notice
	default:
		r.On = true
	}
	r.View = Derive(in)
	r.Session = sessionReport(r.View, in.EnvAllow)
	api := []string{egress.DefaultAPI}
	if u := os.Getenv("ANTHROPIC_BASE_URL"); u != "" {
		api = append(api, u)
	}
	n := egress.NewHosts(in.Engine, api, in.Hosts).Summary()
	r.Network = &n
	return r
}

// Text is the report in plain words.
func (r Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nSandbox (sandbox = %q): ", r.Setting)
	if r.On {
		b.WriteString("the claude CLI and every command it runs start inside bubblewrap.\n")
	} else {
		fmt.Fprintf(&b, "OFF — %s. What it would be:\n", strings.TrimSuffix(r.Why, "."))
	}
	v := r.View
	if v == nil {
		return b.String()
	}
	b.WriteString("  Writable: a private /tmp and\n")
	for _, e := range v.Writable {
		fmt.Fprintf(&b, "    %s  (%s)\n", e.Path, e.Why)
	}
	b.WriteString("  Read-only: everything else, and inside the writable folders:\n")
	n := 0
	for _, e := range v.ReadOnly {
		if !e.Bound {
			continue
		}
		n++
		extra := ""
		if e.Missing {
			extra = "; does not exist: held by an empty placeholder so it cannot be made"
		}
		fmt.Fprintf(&b, "    %s  (%s%s)\n", e.Path, e.Why, extra)
	}
	if n == 0 {
		b.WriteString("    (none)\n")
	}
	if len(v.Left) > 0 {
		b.WriteString("  Left writable (an allow rule names them; the engine asks or allows):\n")
		for _, e := range v.Left {
			fmt.Fprintf(&b, "    %s\n", e.Path)
		}
	}
	b.WriteString("  Hidden (an empty file or folder in their place):\n")
	if len(v.Hidden) == 0 {
		b.WriteString("    (none)\n")
	}
	for _, e := range v.Hidden {
		fmt.Fprintf(&b, "    %s  (%s)\n", e.Path, e.Why)
	}
	if s := r.Session; s != nil {
		b.WriteString("  Your session stays outside:\n")
		if len(s.HiddenSockets) > 0 {
			fmt.Fprintf(&b, "    hidden sockets and runtime folders: %s\n", strings.Join(s.HiddenSockets, ", "))
		}
		if len(s.EnvWithheld) > 0 {
			fmt.Fprintf(&b, "    variables left out (session sockets; credentials unless sandbox_env_allow names them): %s\n", strings.Join(s.EnvWithheld, ", "))
		} else {
			b.WriteString("    variables left out: none in this environment (session sockets and credentials would be)\n")
		}
		fmt.Fprintf(&b, "    %s\n", s.Terminal)
	}
	if n := r.Network; n != nil {
		b.WriteString("  Network: a namespace of its own; the only way out is vibing's proxy (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY), which lets through\n")
		fmt.Fprintf(&b, "    the API: %s\n", strings.Join(n.API, ", "))
		for _, a := range n.Allowed {
			fmt.Fprintf(&b, "    %s\n", a)
		}
		for _, h := range n.SandboxHosts {
			fmt.Fprintf(&b, "    %s  (sandbox_hosts)\n", h)
		}
		if len(n.Refused) > 0 {
			fmt.Fprintf(&b, "    and refuses the hosts of %s;\n", strings.Join(n.Refused, ", "))
		}
		b.WriteString("    any other host is asked about in the chat (refused under vibing-agent claude); programs that ignore the proxy variables reach nothing\n")
	}
	if len(v.Held) > 0 {
		b.WriteString("  Held whole by the kernel (a line the engine cannot see through follows the mode for these, instead of asking every time):\n")
		for _, h := range v.Held {
			fmt.Fprintf(&b, "    %s\n", h)
		}
		if r.Network != nil {
			b.WriteString("    and the deny rules of hosts (the proxy refuses them)\n")
		}
	}
	if len(v.Unexpanded) > 0 {
		b.WriteString("  Not covered:\n")
		for _, s := range v.Unexpanded {
			fmt.Fprintf(&b, "    %s\n", s)
		}
	}
	return b.String()
}
