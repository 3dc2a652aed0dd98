package session

import (
	"fmt"
	"slices"
	"strings"

	"vibing/internal/command"
	"vibing/internal/matcher"
)

// noteUntrusted adds to the ask d of call c (Bash view bc) which untrusted
// project file would allow it once trusted: its allow rules count for
// nothing until then, but the person should know why the team's policy
// does not apply.
func (e *Engine) noteUntrusted(c, bc *command.Call, d *Decision) {
	say := func(names []string, rule string) {
		what := strings.Join(names, " and ")
		if rule != "" {
			what += " would allow it (" + rule + ")"
		} else {
			what += " would allow it together"
		}
		d.Reason += fmt.Sprintf(" %s, but you have not trusted it: run :VibingTrust (vibing-agent trust %s) if you do.", what, strings.Join(names, " "))
	}
	nameOf := func(r *rule) string { return strings.TrimPrefix(r.source, r.layer+":") }
	for _, v := range []*command.Call{c, bc} {
		if v == nil {
			continue
		}
		if v.Tool == "Bash" {
			valid := make([]*matcher.Rule, len(e.untrusted))
			var names []string
			for i, r := range e.untrusted {
				valid[i] = r.Rule
				if n := nameOf(r); !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
			if ok, by := matcher.Covers(valid, v); ok {
				if by != nil {
					for _, r := range e.untrusted {
						if r.Rule == by {
							names = []string{nameOf(r)}
						}
					}
					say(names, by.Text)
				} else {
					say(names, "")
				}
				return
			}
			continue
		}
		for _, r := range e.untrusted {
			if !r.Rule.Skips(v, matcher.AllowList) && r.Rule.Match(v, matcher.AllowList) {
				say([]string{nameOf(r)}, r.String())
				return
			}
		}
	}
}
