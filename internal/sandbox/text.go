package sandbox

import (
	"fmt"
	"strings"
)

// Report is the sandbox part of explain: whether the CLI runs inside it
// and the view it would get.
type Report struct {
	Setting string `json:"setting"` // auto | on | off
	On      bool   `json:"on"`      // the next turn runs inside bubblewrap
	Why     string `json:"why,omitempty"`
	View    *View  `json:"view,omitempty"`
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
	return r
}

// Text is the report in plain words.
func (r Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nSandbox (sandbox = %q): ", r.Setting)
	if r.On {
		b.WriteString("the claude CLI and every command it runs start inside bubblewrap; the network is unchanged.\n")
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
	if len(v.Unexpanded) > 0 {
		b.WriteString("  Not covered:\n")
		for _, s := range v.Unexpanded {
			fmt.Fprintf(&b, "    %s\n", s)
		}
	}
	return b.String()
}
