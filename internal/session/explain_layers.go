package session

import (
	"fmt"
	"sort"
	"strings"

	"vibing/internal/tools"
)

// LayerRule is one rule in explain's list by layer, with what keeps it from
// counting (a higher deny, a managed ask) or what it opens (a bare allow).
type LayerRule struct {
	Layer   string `json:"layer"`
	Source  string `json:"source"`
	List    string `json:"list"` // allow | ask | deny
	Rule    string `json:"rule"`
	Warning string `json:"warning,omitempty"`
}

// layerRules lists every rule by layer (highest first) with its warnings;
// the caller holds e.mu (read).
func (e *Engine) layerRules() []LayerRule {
	var out []LayerRule
	add := func(list string, rules []*rule) {
		for _, r := range rules {
			lr := LayerRule{Layer: r.layer, Source: r.source, List: list, Rule: r.String()}
			if list == "allow" {
				lr.Warning = e.allowWarning(r)
			}
			out = append(out, lr)
		}
	}
	add("deny", e.deny)
	add("ask", e.managedAsk)
	add("ask", e.ask)
	add("allow", e.allow)
	add("deny", e.sessDeny)
	add("allow", e.sessAllow)
	order := map[string]int{LayerManaged: 0, LayerUser: 1, LayerProject: 2, LayerChat: 3, LayerSession: 4}
	first := map[string]int{} // a file's place among its layer's files
	for i, r := range out {
		if _, ok := first[sourceTitle(r)]; !ok {
			first[sourceTitle(r)] = i
		}
	}
	less := func(a, b LayerRule) bool {
		if order[a.Layer] != order[b.Layer] {
			return order[a.Layer] < order[b.Layer]
		}
		return first[sourceTitle(a)] < first[sourceTitle(b)]
	}
	// a stable sort keeps each file's lists in deny, ask, allow order
	sort.SliceStable(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

// allowWarning says why allow rule r never counts, or what a bare allow
// opens ("" when neither).
func (e *Engine) allowWarning(r *rule) string {
	if r.err != nil {
		return "invalid: it never allows anything"
	}
	for _, d := range e.deny {
		if d.err == nil && (d.Rule.Text == r.Rule.Text || (!d.Rule.HasArg() && !d.Rule.IsRegex() && tools.Same(d.Rule.Tool, r.Rule.Tool))) {
			return fmt.Sprintf("never reachable: the deny rule %s (%s) refuses everything it allows", d.String(), d.source)
		}
	}
	for _, a := range e.managedAsk {
		if a.err == nil && (a.Rule.Text == r.Rule.Text || (!a.Rule.HasArg() && !a.Rule.IsRegex() && tools.Same(a.Rule.Tool, r.Rule.Tool))) {
			return fmt.Sprintf("shadowed: the managed ask rule %s (%s) asks first, every time", a.String(), a.source)
		}
	}
	if r.Rule.HasArg() || r.Rule.IsRegex() {
		return ""
	}
	switch r.Rule.Tool {
	case "Read":
		return "a bare Read allow lets the agent read any file without asking, ~/.ssh and other projects included; Read(**) allows the working folder only"
	case "Bash":
		return "a bare Bash allow runs every command without asking, except what a deny or ask rule catches"
	case "Write", "Edit", "MultiEdit":
		return "a bare " + r.Rule.Tool + " allow lets the agent change any file anywhere without asking (except the guarded ones)"
	}
	return ""
}

// layerText is explain's text for the rules by layer.
func layerText(x Explanation) string {
	if len(x.Layers) == 0 && len(x.Notes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nRules by layer (highest first):\n")
	last := ""
	for _, r := range x.Layers {
		if t := sourceTitle(r); t != last {
			fmt.Fprintf(&b, "  %s\n", t)
			last = t
		}
		fmt.Fprintf(&b, "    %-5s %s\n", r.List, r.Rule)
		if r.Warning != "" {
			fmt.Fprintf(&b, "          WARNING: %s\n", r.Warning)
		}
	}
	for _, n := range x.Notes {
		fmt.Fprintf(&b, "NOTE: %s\n", n)
	}
	return b.String()
}

func sourceTitle(r LayerRule) string {
	switch r.Source {
	case SourceDenyList, SourceAskList, SourceAllowList:
		return "chat: the frontmatter"
	case SourcePreset:
		return "chat: the preset"
	case SourceSession:
		return "session: grants from answers"
	}
	return r.Source
}
